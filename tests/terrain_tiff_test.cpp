// GeoTIFF reading (terrain/tiff_read.cpp) against fixtures written here with libtiff: every
// sample type, striped and tiled, uncompressed / LZW / Deflate, channels of RGBA images, the
// GeoTIFF tags, nodata and damaged files; and the heightmap's derivatives next to nodata.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <stb/stb_image_write.h>

#include "core/error.h"
#include "terrain/terrain.h"
#include "test_support.h"
#include "tiff_fixture.h"

namespace {

using eco::test::TempDir;
using eco::test::TiffSpec;

// A pattern of raw sample values (as doubles) for pixel (x, y), channel c.
double pattern(int x, int y, int c, int bits, int format) {
  const double v = double((x * 37 + y * 101 + c * 53) % 251);
  if (format == SAMPLEFORMAT_IEEEFP) return v * 3.25 - 200.0;
  if (format == SAMPLEFORMAT_INT) return v * 97.0 - 12000.0;
  return bits == 8 ? v : v * 251.0;
}

std::vector<uint8_t> samples(int w, int h, int spp, int bits, int format) {
  std::vector<uint8_t> out(size_t(w) * size_t(h) * size_t(spp) * size_t(bits / 8));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < spp; ++c) {
        const size_t k = (size_t(y) * size_t(w) + size_t(x)) * size_t(spp) + size_t(c);
        const double v = pattern(x, y, c, bits, format);
        if (bits == 8) out[k] = uint8_t(v);
        else if (bits == 16 && format == SAMPLEFORMAT_INT) { int16_t s = int16_t(v); std::memcpy(&out[2 * k], &s, 2); }
        else if (bits == 16) { uint16_t s = uint16_t(v); std::memcpy(&out[2 * k], &s, 2); }
        else { float f = float(v); std::memcpy(&out[4 * k], &f, 4); }
      }
  return out;
}

// What the reader must return for a raw value: unsigned integers normalized, the rest as is.
float expected(double raw, int bits, int format) {
  if (format == SAMPLEFORMAT_UINT) return float(raw) / (bits == 8 ? 255.f : 65535.f);
  return float(raw);
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const eco::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(TerrainTiff, EveryLayoutDecodesToTheWrittenValues) {
  TempDir dir;
  struct Type {
    int bits, format;
  };
  const Type types[] = {{8, SAMPLEFORMAT_UINT}, {16, SAMPLEFORMAT_UINT}, {16, SAMPLEFORMAT_INT}, {32, SAMPLEFORMAT_IEEEFP}};
  const int compressions[] = {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE};
  const int w = 37, h = 23;  // partial tiles and strips on both axes
  int cases = 0;
  for (const Type& t : types)
    for (int compression : compressions)
      for (bool tiled : {false, true})
        for (int predictor : {0, 2, 3}) {
          if (predictor && compression == COMPRESSION_NONE) continue;
          if (predictor == 3 && t.format != SAMPLEFORMAT_IEEEFP) continue;
          TiffSpec spec;
          spec.width = w;
          spec.height = h;
          spec.bits = t.bits;
          spec.sampleFormat = t.format;
          spec.tiled = tiled;
          spec.compression = compression;
          spec.predictor = predictor;
          const std::string path = dir.file("t" + std::to_string(cases++) + ".tif");
          const std::vector<uint8_t> data = samples(w, h, 1, t.bits, t.format);
          eco::test::writeTiff(path, spec, data.data());
          SCOPED_TRACE(path + " bits " + std::to_string(t.bits) + " format " + std::to_string(t.format) +
                       " compression " + std::to_string(compression) + (tiled ? " tiled" : " striped") +
                       " predictor " + std::to_string(predictor));
          const eco::ImageInfo info = eco::probeImage(path);
          EXPECT_EQ(info.width, w);
          EXPECT_EQ(info.height, h);
          const eco::Image image = eco::loadInput(path, 0, 0);
          ASSERT_EQ(image.pixels.width, w);
          ASSERT_EQ(image.pixels.height, h);
          EXPECT_TRUE(image.noData.empty());
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
              ASSERT_EQ(image.pixels.at(x, y), expected(pattern(x, y, 0, t.bits, t.format), t.bits, t.format))
                  << "pixel " << x << "," << y;
        }
  EXPECT_EQ(cases, 44);
}

TEST(TerrainTiff, ChannelsOfRgbaTiffAndPng) {
  TempDir dir;
  const int w = 20, h = 9;
  for (bool planar : {false, true}) {
    TiffSpec spec;
    spec.width = w;
    spec.height = h;
    spec.samplesPerPixel = 4;
    spec.bits = 8;
    spec.planarSeparate = planar;
    spec.compression = COMPRESSION_LZW;
    const std::string path = dir.file(planar ? "planar.tif" : "splat.tif");
    const std::vector<uint8_t> data = samples(w, h, 4, 8, SAMPLEFORMAT_UINT);
    eco::test::writeTiff(path, spec, data.data());
    for (int c = 0; c < 4; ++c) {
      const eco::Image image = eco::loadImage(path, c);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          ASSERT_EQ(image.pixels.at(x, y), float(pattern(x, y, c, 8, SAMPLEFORMAT_UINT)) / 255.f) << c << " " << x << "," << y;
    }
    EXPECT_NE(errorOf([&] { eco::loadImage(path); }).find("4 channels, expected a single one"), std::string::npos);
  }
  // RGBA and RGB PNGs: each channel; a single channel asked of a colour PNG is refused.
  std::vector<uint8_t> rgba(size_t(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 4; ++c) rgba[(size_t(y) * w + size_t(x)) * 4 + size_t(c)] = uint8_t(pattern(x, y, c, 8, SAMPLEFORMAT_UINT));
  const std::string png = dir.file("splat.png");
  ASSERT_NE(stbi_write_png(png.c_str(), w, h, 4, rgba.data(), w * 4), 0);
  for (int c = 0; c < 4; ++c) {
    const eco::Image image = eco::loadImage(png, c);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        ASSERT_EQ(image.pixels.at(x, y), float(pattern(x, y, c, 8, SAMPLEFORMAT_UINT)) / 255.f);
  }
  EXPECT_NE(errorOf([&] { eco::loadImage(png); }).find("expected a single grayscale channel"), std::string::npos);
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  const std::string png3 = dir.file("rgb.png");
  ASSERT_NE(stbi_write_png(png3.c_str(), w, h, 3, rgb.data(), w * 3), 0);
  EXPECT_NE(errorOf([&] { eco::loadImage(png3, 3); }).find("no channel 'a'"), std::string::npos);
}

TEST(TerrainTiff, GeoTagsAndNoData) {
  TempDir dir;
  const int w = 30, h = 20;
  std::vector<int16_t> heights(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) heights[size_t(y) * w + size_t(x)] = int16_t(100 + x + 2 * y);
  // A block of SRTM-style voids.
  for (int y = 5; y < 9; ++y)
    for (int x = 10; x < 16; ++x) heights[size_t(y) * w + size_t(x)] = -32768;
  TiffSpec spec;
  spec.width = w;
  spec.height = h;
  spec.bits = 16;
  spec.sampleFormat = SAMPLEFORMAT_INT;
  spec.compression = COMPRESSION_ADOBE_DEFLATE;
  spec.tiled = true;
  spec.pixelScale = {30, 30, 0};
  spec.geoKeys = eco::test::geoKeysFor(32610);
  spec.noData = "-32768";
  const std::string path = dir.file("dem.tif");
  eco::test::writeTiff(path, spec, heights.data());
  const eco::Image image = eco::loadImage(path);
  EXPECT_TRUE(image.geo.hasPixelScale);
  EXPECT_EQ(image.geo.pixelScaleX, 30.0);
  EXPECT_EQ(image.geo.pixelScaleY, 30.0);
  EXPECT_EQ(image.geo.crs(), "EPSG:32610");
  EXPECT_FALSE(image.geo.geographic);
  EXPECT_TRUE(image.geo.hasNoData);
  ASSERT_EQ(image.noData.size(), size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool hole = y >= 5 && y < 9 && x >= 10 && x < 16;
      ASSERT_EQ(image.noData[size_t(y) * w + size_t(x)], hole ? 1 : 0);
      // Holes carry the smallest valid value (100 at the origin), everything else its own.
      ASSERT_EQ(image.pixels.at(x, y), hole ? 100.f : float(100 + x + 2 * y));
    }

  // Geographic: degrees, reported as such. A NaN nodata marks NaN pixels instead of refusing them.
  std::vector<float> f(size_t(w) * h, 5.f);
  f[7] = std::numeric_limits<float>::quiet_NaN();
  spec.bits = 32;
  spec.sampleFormat = SAMPLEFORMAT_IEEEFP;
  spec.pixelScale = {0.000277777, 0.000277777, 0};
  spec.geoKeys = eco::test::geoKeysFor(4326, true);
  spec.noData = "nan";
  eco::test::writeTiff(path, spec, f.data());
  const eco::Image geographic = eco::loadImage(path);
  EXPECT_TRUE(geographic.geo.geographic);
  EXPECT_EQ(geographic.geo.crs(), "EPSG:4326");
  ASSERT_FALSE(geographic.noData.empty());
  EXPECT_EQ(geographic.noData[7], 1);
  EXPECT_EQ(geographic.pixels.values[7], 5.f);
  // Without the nodata tag the same NaN pixel is an error naming it.
  spec.noData.clear();
  eco::test::writeTiff(path, spec, f.data());
  EXPECT_NE(errorOf([&] { eco::loadImage(path); }).find("pixel 7,0 is NaN"), std::string::npos);
}

TEST(TerrainTiff, DamagedAndUnsupportedFilesAreOneLineErrors) {
  TempDir dir;
  const int w = 40, h = 40;
  TiffSpec spec;
  spec.width = w;
  spec.height = h;
  spec.compression = COMPRESSION_LZW;
  const std::vector<uint8_t> data = samples(w, h, 1, 16, SAMPLEFORMAT_UINT);
  const std::string good = dir.file("good.tif");
  eco::test::writeTiff(good, spec, data.data());
  const std::string bytes = eco::test::readBytes(good);

  // Every truncation and a sweep of single-byte damages: an InputError or a clean decode,
  // never a crash (run under the sanitizers by the fuzz build too).
  int errors = 0;
  for (size_t cut = 0; cut < bytes.size(); cut += 7) {
    eco::test::writeBytes(dir.file("cut.tif"), bytes.substr(0, cut));
    try {
      eco::loadImage(dir.file("cut.tif"));
    } catch (const eco::InputError& e) {
      ++errors;
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      EXPECT_EQ(std::string(e.what()).rfind(dir.file("cut.tif"), 0), 0u) << e.what();
    }
  }
  EXPECT_GT(errors, 0);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    std::string damaged = bytes;
    damaged[i] = char(damaged[i] ^ 0x5a);
    eco::test::writeBytes(dir.file("bad.tif"), damaged);
    try {
      eco::loadImage(dir.file("bad.tif"));
    } catch (const eco::InputError&) {
    }
  }

  TiffSpec wide = spec;
  wide.bits = 32;
  wide.sampleFormat = SAMPLEFORMAT_INT;
  std::vector<int32_t> ints(size_t(w) * h, 1);
  eco::test::writeTiff(dir.file("int32.tif"), wide, ints.data());
  EXPECT_NE(errorOf([&] { eco::loadImage(dir.file("int32.tif")); }).find("unsupported TIFF samples of 32-bit signed integer"),
            std::string::npos);
  TiffSpec jpeg = spec;
  jpeg.compression = COMPRESSION_PACKBITS;
  eco::test::writeTiff(dir.file("packbits.tif"), jpeg, data.data());
  EXPECT_NE(errorOf([&] { eco::loadImage(dir.file("packbits.tif")); }).find("TIFF compression 32773 is not supported"),
            std::string::npos);
  // A header claiming a 100000-pixel side is refused before anything its size is allocated.
  TiffSpec huge = spec;
  huge.width = 100000;
  huge.height = 1;
  huge.compression = COMPRESSION_NONE;
  std::vector<uint16_t> row(100000, 0);
  eco::test::writeTiff(dir.file("huge.tif"), huge, row.data());
  EXPECT_NE(errorOf([&] { eco::loadImage(dir.file("huge.tif")); }).find("too large"), std::string::npos);
}

// "Normals near nodata from valid neighbours only": on a plane with a hole, the derivative at
// a valid pixel beside the hole is the plane's (one-sided), and the slope is the plane's.
TEST(TerrainTiff, DerivativesBesideNoDataUseValidNeighboursOnly) {
  const int n = 21;
  const float cell = 2.f, gx = 0.3f, gz = -0.2f;
  eco::Grid g(n, n);
  std::vector<uint8_t> hole(size_t(n) * n, 0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const bool missing = i >= 8 && i <= 11 && j >= 8 && j <= 11;
      hole[size_t(j) * n + size_t(i)] = missing;
      g.at(i, j) = missing ? -5000.f : gx * float(i) * cell + gz * float(j) * cell;  // a fill far off the plane
    }
  const eco::Heightmap t(g, cell, hole);
  const eco::HeightDerivatives d = eco::heightDerivatives(t);
  // Pixels on the hole's rim: left (7, 9), right (12, 10), above (9, 7), below (10, 12).
  for (auto [i, j] : {std::pair{7, 9}, std::pair{12, 10}, std::pair{9, 7}, std::pair{10, 12}}) {
    const float x = float(i) * cell, z = float(j) * cell;
    const eco::Vec2 grad = t.gradientAt(x, z);
    EXPECT_NEAR(grad.x, gx, 1e-4f) << i << "," << j;
    EXPECT_NEAR(grad.z, gz, 1e-4f) << i << "," << j;
    const eco::HeightGradient hg = d.at(x, z);
    EXPECT_EQ(hg.gradient.x, grad.x);
    EXPECT_EQ(hg.gradient.z, grad.z);
    EXPECT_NEAR(hg.slopeTangent, std::sqrt(gx * gx + gz * gz), 1e-4f) << i << "," << j;
    EXPECT_FALSE(t.noDataAt(x, z));
  }
  EXPECT_TRUE(t.noDataAt(7.5f * cell, 9.f * cell));  // between a rim pixel and a hole pixel
  EXPECT_FALSE(t.noDataAt(6.5f * cell, 9.f * cell));
}

// Gray images (issue #30): in a gray or gray + alpha image the channels "r", "g" and "b" all read
// the gray (as a viewer shows it) and "a" the alpha; "a" of a gray image without alpha is
// refused. Earlier a gray + alpha PNG's "g" read the alpha and its "a" was refused.
TEST(TerrainTiff, GrayAndGrayAlphaChannelsNameTheGrayAndTheAlpha) {
  TempDir dir;
  const int w = 7, h = 5;
  std::vector<uint8_t> ga(size_t(w) * h * 2);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      ga[(size_t(y) * w + size_t(x)) * 2] = uint8_t(10 * x + y);        // gray
      ga[(size_t(y) * w + size_t(x)) * 2 + 1] = uint8_t(200 - 3 * x);   // alpha
    }
  const std::string png = dir.file("ga.png");
  ASSERT_NE(stbi_write_png(png.c_str(), w, h, 2, ga.data(), w * 2), 0);
  TiffSpec spec;  // the fixture marks a second sample as unassociated alpha
  spec.width = w;
  spec.height = h;
  spec.samplesPerPixel = 2;
  spec.bits = 8;
  const std::string tif = dir.file("ga.tif");
  eco::test::writeTiff(tif, spec, ga.data());
  for (const std::string& path : {png, tif}) {
    for (int c = 0; c < 4; ++c) {
      const eco::Image image = eco::loadImage(path, c);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const int expect = c < 3 ? 10 * x + y : 200 - 3 * x;
          ASSERT_EQ(image.pixels.at(x, y), float(expect) / 255.f) << path << " channel " << c << " at " << x << "," << y;
        }
    }
  }
  // gray alone: r, g, b read it; there is no alpha
  std::vector<uint8_t> gray(size_t(w) * h);
  for (size_t i = 0; i < gray.size(); ++i) gray[i] = uint8_t(i * 3);
  const std::string g = dir.file("g.png");
  ASSERT_NE(stbi_write_png(g.c_str(), w, h, 1, gray.data(), w), 0);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(eco::loadImage(g, c).pixels.at(2, 1), float(gray[size_t(w) + 2]) / 255.f) << c;
  EXPECT_NE(errorOf([&] { eco::loadImage(g, 3); }).find("1 channel (gray), no channel 'a'"), std::string::npos);
}
