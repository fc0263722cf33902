#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "core/error.h"
#include "input_error.h"
#include "terrain/distance_transform.h"
#include "terrain/terrain.h"

using namespace eco;
using eco::test::errorOf;

namespace {

std::vector<double> bruteForceSquared(const std::vector<uint8_t>& sites, int w, int h) {
  std::vector<double> d(sites.size(), std::numeric_limits<double>::infinity());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int sy = 0; sy < h; ++sy)
        for (int sx = 0; sx < w; ++sx)
          if (sites[size_t(sy) * size_t(w) + size_t(sx)]) {
            double dd = double(x - sx) * (x - sx) + double(y - sy) * (y - sy);
            d[size_t(y) * size_t(w) + size_t(x)] = std::min(d[size_t(y) * size_t(w) + size_t(x)], dd);
          }
  return d;
}

Heightmap flatTerrain(int w, int h, float cell) { return Heightmap{Grid(w, h), cell}; }

Image maskImage(const std::vector<uint8_t>& sites, int w, int h) {
  Image image{Grid(w, h), 8};
  for (size_t i = 0; i < sites.size(); ++i) image.pixels.values[i] = sites[i] ? 1.f : 0.f;
  return image;
}

}  // namespace

TEST(TerrainRiver, DistanceTransformMatchesBruteForceOnRandomMasks) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 60; ++trial) {
    int w = 1 + int(rng() % 40), h = 1 + int(rng() % 40);
    double density = trial % 3 == 0 ? 0.002 : trial % 3 == 1 ? 0.05 : 0.5;
    std::vector<uint8_t> sites(size_t(w) * size_t(h));
    for (auto& s : sites) s = std::uniform_real_distribution<double>(0, 1)(rng) < density;
    EXPECT_EQ(squaredDistanceTransform(sites.data(), w, h), bruteForceSquared(sites, w, h))
        << "trial " << trial << " " << w << "x" << h;
  }
}

TEST(TerrainRiver, DistanceTransformOfSingleSiteAndEmptyMask) {
  std::vector<uint8_t> sites(7 * 5, 0);
  EXPECT_TRUE(std::isinf(squaredDistanceTransform(sites.data(), 7, 5)[12]));
  sites[size_t(2) * 7 + 6] = 1;
  std::vector<double> d = squaredDistanceTransform(sites.data(), 7, 5);
  EXPECT_EQ(d[0], 36.0 + 4.0);
  EXPECT_EQ(d[size_t(4) * 7 + 3], 9.0 + 4.0);
}

TEST(TerrainRiver, MaskFieldIsInMetresOfTheRiverCell) {
  // Heightmap 101x51 at 2 m spans 200 x 100 m; a 21x11 mask has 10 m cells.
  Heightmap terrain = flatTerrain(101, 51, 2.f);
  std::vector<uint8_t> sites(21 * 11, 0);
  for (int y = 0; y < 11; ++y) sites[size_t(y) * 21 + 5] = 1;  // river along x = 50 m
  RiverField field = riverFieldFromMask(maskImage(sites, 21, 11), terrain, "river.png");
  EXPECT_FLOAT_EQ(field.cellSize, 10.f);
  for (float x : {0.f, 20.f, 50.f, 55.f, 123.f, 200.f}) EXPECT_NEAR(field.distanceAt(x, 37.f), std::abs(x - 50.f), 1e-4f) << x;
}

TEST(TerrainRiver, MaskFieldAgreesAcrossResolutions) {
  // The same diagonal river rasterized at two resolutions gives distances within a coarse cell.
  Heightmap terrain = flatTerrain(65, 65, 1.f);  // 64 x 64 m
  auto rasterize = [](int n) {
    std::vector<uint8_t> sites(size_t(n) * size_t(n), 0);
    for (int i = 0; i < n; ++i) sites[size_t(i) * size_t(n) + size_t(i)] = 1;
    return maskImage(sites, n, n);
  };
  RiverField fine = riverFieldFromMask(rasterize(129), terrain, "fine.png");
  RiverField coarse = riverFieldFromMask(rasterize(33), terrain, "coarse.png");
  EXPECT_FLOAT_EQ(fine.cellSize, 0.5f);
  EXPECT_FLOAT_EQ(coarse.cellSize, 2.f);
  std::mt19937 rng(7);
  for (int k = 0; k < 200; ++k) {
    float x = std::uniform_real_distribution<float>(0, 64)(rng), z = std::uniform_real_distribution<float>(0, 64)(rng);
    // A diagonal line x = z is at |x - z| / sqrt(2); the raster staircase adds at most a cell.
    float exact = std::abs(x - z) / std::sqrt(2.f);
    EXPECT_NEAR(fine.distanceAt(x, z), exact, 0.5f);
    EXPECT_NEAR(coarse.distanceAt(x, z), exact, 2.f);
  }
}

TEST(TerrainRiver, EmptyMaskGivesTheWorldDiagonal) {
  Heightmap terrain = flatTerrain(31, 41, 1.f);
  RiverField field = riverFieldFromMask(Image{Grid(31, 41, 0.2f), 8}, terrain, "dry.png");
  for (float d : field.metres.values) EXPECT_FLOAT_EQ(d, 50.f);
}

TEST(TerrainRiver, DistanceImageIsScaled) {
  Heightmap terrain = flatTerrain(11, 11, 3.f);  // 30 x 30 m
  Image image{Grid(6, 6), 16};
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 6; ++i) image.pixels.at(i, j) = float(i) / 5.f;
  RiverField field = riverFieldFromDistance(image, 200.f, terrain, "dist.exr");
  EXPECT_FLOAT_EQ(field.cellSize, 6.f);
  EXPECT_NEAR(field.distanceAt(15.f, 4.f), 100.f, 1e-3f);
  EXPECT_NEAR(field.distanceAt(99.f, 4.f), 200.f, 1e-3f);
}

TEST(TerrainRiver, RejectsMismatchedAspectAndTinyImages) {
  Heightmap terrain = flatTerrain(101, 51, 1.f);  // 100 x 50 m
  // 21x11 fits exactly; 21x12 is 5 m off in z (more than half a 1 m cell).
  EXPECT_NO_THROW(riverFieldFromMask(Image{Grid(21, 11), 8}, terrain, "ok.png"));
  std::string message = errorOf([&] { riverFieldFromMask(Image{Grid(21, 12), 8}, terrain, "rivers/bad.png"); });
  EXPECT_NE(message.find("rivers/bad.png"), std::string::npos) << message;
  EXPECT_NE(message.find("aspect"), std::string::npos) << message;
  message = errorOf([&] { riverFieldFromDistance(Image{Grid(12, 11), 8}, 1.f, terrain, "d.exr"); });
  EXPECT_NE(message.find("d.exr"), std::string::npos) << message;
  message = errorOf([&] { riverFieldFromMask(Image{Grid(1, 1), 8}, terrain, "dot.png"); });
  EXPECT_NE(message.find("dot.png"), std::string::npos) << message;
}

TEST(TerrainRiver, LargeTransformIsFast) {
  // 2048^2 with sparse sites: guards against a quadratic implementation.
  const int n = 2048;
  std::vector<uint8_t> sites(size_t(n) * n, 0);
  sites[size_t(100) * n + 1900] = 1;
  sites[size_t(2000) * n + 5] = 1;
  std::vector<double> d = squaredDistanceTransform(sites.data(), n, n);
  EXPECT_EQ(d[0], std::min(100.0 * 100 + 1900.0 * 1900, 2000.0 * 2000 + 25));
  EXPECT_EQ(d[size_t(n) * n - 1], std::min(1947.0 * 1947 + 147.0 * 147, 47.0 * 47 + 2042.0 * 2042));
}
