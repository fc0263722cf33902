#include <gtest/gtest.h>
#include <stb/stb_image.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "core/error.h"
#include "terrain/png16.h"
#include "test_support.h"

using namespace eco;

TEST(TerrainPng16, RoundTripsThroughStbImage) {
  test::TempDir dir;
  for (auto [w, h] : {std::pair{1, 1}, std::pair{7, 3}, std::pair{64, 50}}) {
    std::vector<uint16_t> pixels(size_t(w) * size_t(h));
    std::mt19937 rng(uint32_t(w * 131 + h));
    for (size_t i = 0; i < pixels.size(); ++i)
      pixels[i] = i % 3 ? uint16_t(rng()) : uint16_t(i * 37);  // noise and smooth ramps
    std::string path = dir.file(std::to_string(w) + "x.png");
    writePng16(path, w, h, pixels.data());

    ASSERT_TRUE(stbi_is_16_bit(path.c_str()));
    int rw = 0, rh = 0, comp = 0;
    stbi_us* loaded = stbi_load_16(path.c_str(), &rw, &rh, &comp, 0);
    ASSERT_NE(loaded, nullptr) << stbi_failure_reason();
    EXPECT_EQ(rw, w);
    EXPECT_EQ(rh, h);
    EXPECT_EQ(comp, 1);
    EXPECT_EQ(std::vector<uint16_t>(loaded, loaded + pixels.size()), pixels);
    stbi_image_free(loaded);
  }
}

TEST(TerrainPng16, CompressesSmoothData) {
  test::TempDir dir;
  const int w = 256, h = 256;
  std::vector<uint16_t> ramp(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ramp[size_t(y) * size_t(w) + size_t(x)] = uint16_t(x * 100 + y * 50);
  std::string path = dir.file("ramp.png");
  writePng16(path, w, h, ramp.data());
  EXPECT_LT(test::readBytes(path).size(), ramp.size() * 2 / 10);
}

TEST(TerrainPng16, RejectsBadSizeAndUnwritablePath) {
  test::TempDir dir;
  uint16_t px = 0;
  EXPECT_THROW(writePng16(dir.file("zero.png"), 0, 1, &px), InputError);
  try {
    writePng16(dir.file("missing_dir/x.png"), 1, 1, &px);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing_dir/x.png"), std::string::npos);
  }
}
