// The viewer's look (#20): shadows fall where an independent CPU ray march says the sun is
// blocked and nowhere else, hidden species draw nothing while the others draw the same, and
// the sun is the aspect mask's sun.
#include <gtest/gtest.h>

#include <array>

#include <cmath>
#include <cstring>

#include "render/headless.h"
#include "render/renderer.h"
#include "render/shadows.h"
#include "render_support.h"
#include "terrain/terrain.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::smallWorld;

namespace {

// Bilinear height of the synthetic world's grid at world (x, z).
double heightAt(const Scene& w, double x, double z) {
  double fx = std::clamp(x / double(w.cellSize), 0.0, double(w.heights.width - 1) - 1e-9);
  double fz = std::clamp(z / double(w.cellSize), 0.0, double(w.heights.height - 1) - 1e-9);
  int i = int(fx), j = int(fz);
  double u = fx - i, v = fz - j;
  auto h = [&](int a, int b) { return double(w.heights.at(a, b)); };
  return (1 - v) * ((1 - u) * h(i, j) + u * h(i + 1, j)) + v * ((1 - u) * h(i, j + 1) + u * h(i + 1, j + 1));
}

// Clearance of the ray from the ground at (x, z) toward the sun: the smallest height of the
// ray above the terrain along its first 3 km inside the world (negative: blocked).
double sunClearance(const Scene& w, double x, double z, double azimuthDeg, double elevationDeg) {
  const double pi = 3.14159265358979;
  double az = azimuthDeg * pi / 180, el = elevationDeg * pi / 180;
  double dx = std::sin(az), dz = -std::cos(az), rise = std::tan(el);  // north -z, east +x
  double y0 = heightAt(w, x, z), size = double(w.heights.width - 1) * double(w.cellSize);
  double clearance = 1e9;
  for (double s = 4; s < 3000; s += 2) {
    double px = x + dx * s, pz = z + dz * s;
    if (px < 0 || pz < 0 || px > size || pz > size) break;
    clearance = std::min(clearance, y0 + rise * s - heightAt(w, px, pz));
  }
  return clearance;
}

struct Pixel {
  int x, y;
};
// Where world point p lands on the screen (the frame's own matrix; Vulkan ndc y points down).
bool project(const gpu::FrameData& f, Vec3 p, int width, int height, Pixel& out) {
  auto row = [&](int i) { return double(f.clip[i].x * p.x + f.clip[i].y * p.y + f.clip[i].z * p.z + f.clip[i].w); };
  double w = row(3);
  if (w <= 0) return false;
  double nx = row(0) / w, ny = row(1) / w;
  out = {int(std::floor((nx * 0.5 + 0.5) * width)), int(std::floor((ny * 0.5 + 0.5) * height))};
  return out.x >= 0 && out.y >= 0 && out.x < width && out.y < height;
}

// The synthetic ridge seen from straight above with shadows reaching the whole world, with
// the sun from the east at `elevationDeg`; the same view without shadows in `off`.
ViewerOptions ridgeFromAbove(Scene& world, float elevationDeg, ViewerOptions& off) {
  world = makeSyntheticScene(smallWorld(0));
  world.sunAzimuthDeg = 90;  // from the east: the ridge shades the ground west of it
  world.sunElevationDeg = elevationDeg;
  ViewerOptions o;
  o.width = o.height = 256;
  o.validation = true;
  o.camera = camera(512, 1700, 512, 0, -89.9f);
  o.view.fog = false;
  o.renderer.shadows.distance = 3000;
  o.renderer.shadows.mapSize = 2048;
  off = o;
  off.view.shadows = false;
  return o;
}

TEST(RenderLook, SunDirectionIsTheAspectMasksSun) {
  for (float az : {0.f, 45.f, 90.f, 180.f, 237.5f, 359.f})
    for (float el : {5.f, 40.f, 80.f}) {
      Vec3 s = sunDirection(az, el);
      Vec2 xz = sunDirectionXZ(az);
      double h = std::hypot(double(s.x), double(s.z));
      EXPECT_NEAR(double(s.x) / h, double(xz.x), 1e-5) << az;
      EXPECT_NEAR(double(s.z) / h, double(xz.z), 1e-5) << az;
      EXPECT_NEAR(std::asin(double(s.y)) * 180 / 3.14159265358979, double(el), 1e-3);
    }
}

// Terrain only, seen from straight above, a low sun from the east behind the ridge: every
// ground point facing the sun that the CPU ray march finds blocked by more than 4 m is darker
// with shadows on, every point it finds clear by more than 4 m is unchanged. (Ground facing
// away from the sun gets no direct light either way.)
TEST(RenderLook, ShadowsFallExactlyWhereTheRidgeBlocksTheSun) {
  if (!fixtures::haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world;
  ViewerOptions off;
  const ViewerOptions o = ridgeFromAbove(world, 15, off);
  HeadlessResult on = runHeadless(world, o), without = runHeadless(world, off);
  EXPECT_EQ(on.validationErrors, 0);
  ASSERT_TRUE(on.frames.back().shadows);
  ASSERT_FALSE(without.frames.back().shadows);

  gpu::FrameData f = makeFrameData(o.camera, o.width, o.height, o.cull);
  int shadowed = 0, darker = 0, lit = 0, unchanged = 0;
  for (double z = 24; z < 1000; z += 8)
    for (double x = 24; x < 1000; x += 8) {
      Vec3 p{float(x), float(heightAt(world, x, z)), float(z)};
      Pixel px;
      if (!project(f, p, o.width, o.height, px)) continue;
      size_t i = (size_t(px.y) * size_t(o.width) + size_t(px.x)) * 4;
      int a = on.pixels[i] + on.pixels[i + 1] + on.pixels[i + 2];
      int b = without.pixels[i] + without.pixels[i + 1] + without.pixels[i + 2];
      // the surface's own facing: finite differences over a cell
      double gx = (heightAt(world, x + 4, z) - heightAt(world, x - 4, z)) / 8;
      double gz = (heightAt(world, x, z + 4) - heightAt(world, x, z - 4)) / 8;
      Vec3 sun = sunDirection(90, 15);
      double facing = (-gx * double(sun.x) + double(sun.y) - gz * double(sun.z)) / std::sqrt(gx * gx + gz * gz + 1);
      if (facing < 0.1) continue;
      double c = sunClearance(world, x, z, 90, 15);
      if (c < -4) {
        ++shadowed;
        darker += a < b - 15;
      } else if (c > 4) {
        ++lit;
        unchanged += std::abs(a - b) <= 3;
      }
    }
  ASSERT_GT(shadowed, 500) << "the ridge casts a wide shadow";
  ASSERT_GT(lit, 500);
  EXPECT_GE(darker, shadowed * 97 / 100) << darker << " of " << shadowed << " blocked points darker";
  EXPECT_GE(unchanged, lit * 97 / 100) << unchanged << " of " << lit << " clear points unchanged";
}

// Shade is lit by the sky (issue #29): ground the ridge's shadow covers shows at 20-40 % of the
// brightness the same ground has in the sun (the same frame without shadows; display values,
// the default sun 40 degrees up), not black.
TEST(RenderLook, ShadeIsAFifthToTwoFifthsOfSunlitGround) {
  if (!fixtures::haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world;
  ViewerOptions off;
  const ViewerOptions o = ridgeFromAbove(world, 40, off);
  const HeadlessResult on = runHeadless(world, o), sunlit = runHeadless(world, off);
  EXPECT_EQ(on.validationErrors, 0);
  const gpu::FrameData f = makeFrameData(o.camera, o.width, o.height, o.cull);
  const Vec3 sunDir = sunDirection(90, 40);
  double shade = 0, sun = 0;
  int n = 0;
  for (double z = 24; z < 1000; z += 8)
    for (double x = 24; x < 1000; x += 8) {
      const double gx = (heightAt(world, x + 4, z) - heightAt(world, x - 4, z)) / 8;
      const double gz = (heightAt(world, x, z + 4) - heightAt(world, x, z - 4)) / 8;
      const double facing = (-gx * double(sunDir.x) + double(sunDir.y) - gz * double(sunDir.z)) / std::sqrt(gx * gx + gz * gz + 1);
      if (facing < 0.5 || sunClearance(world, x, z, 90, 40) > -4) continue;  // sun-facing ground in the shadow
      Vec3 p{float(x), float(heightAt(world, x, z)), float(z)};
      Pixel px;
      if (!project(f, p, o.width, o.height, px)) continue;
      const size_t i = (size_t(px.y) * size_t(o.width) + size_t(px.x)) * 4;
      auto lum = [&](const std::vector<uint8_t>& q) { return 0.2126 * q[i] + 0.7152 * q[i + 1] + 0.0722 * q[i + 2]; };
      shade += lum(on.pixels), sun += lum(sunlit.pixels), ++n;
    }
  ASSERT_GT(n, 100);
  const double ratio = shade / sun;
  std::printf("%d shaded points: %.1f in the shade, %.1f in the sun (of 255): %.3f\n", n, shade / n, sun / n, ratio);
  EXPECT_GT(ratio, 0.2);
  EXPECT_LT(ratio, 0.4);
}

// Past the world's edge the ground goes on (issue #29): a camera north of the world looking
// north and down sees ground below the horizon (the palette's soil and grass, greener than blue)
// and sky above it (bluer than red), not sky all the way down.
TEST(RenderLook, GroundGoesOnPastTheWorldsEdge) {
  if (!fixtures::haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  const Scene world = makeSyntheticScene(smallWorld(0));
  ViewerOptions o;
  o.width = 160;
  o.height = 90;
  o.validation = true;
  o.camera = camera(512, 300, -500, 0, -10);  // outside the world, looking away from it
  const HeadlessResult r = runHeadless(world, o);
  EXPECT_EQ(r.validationErrors, 0);
  auto mean = [&](int y0, int y1) {
    std::array<double, 3> m{};
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < o.width; ++x)
        for (int c = 0; c < 3; ++c) m[size_t(c)] += r.pixels[(size_t(y) * size_t(o.width) + size_t(x)) * 4 + size_t(c)];
    for (double& v : m) v /= double((y1 - y0) * o.width);
    return m;
  };
  const auto below = mean(o.height * 4 / 5, o.height), above = mean(0, o.height / 10);
  std::printf("below the horizon %.0f %.0f %.0f, above %.0f %.0f %.0f\n", below[0], below[1], below[2], above[0],
              above[1], above[2]);
  EXPECT_GT(below[1], below[2] + 10);  // ground: green over blue
  EXPECT_GT(above[2], above[0] + 10);  // sky: blue over red
}

// Water in shade loses the sun's glint (issue #29: water took no shadows): a world under water
// (a river layer within the water distance everywhere), a low sun from the east behind the
// ridge, the camera west of it looking toward the sun where the glint would be. With shadows
// the glint's pixels are far darker than without; the sky's reflection stays.
TEST(RenderLook, WaterInTheShadeLosesTheSunsGlint) {
  if (!fixtures::haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(0));
  world.sunAzimuthDeg = 90;
  world.sunElevationDeg = 15;
  const int w = world.heights.width, h = world.heights.height;
  world.layers = {SceneLayer{.name = "river_distance", .kind = "river", .species = "", .unit = "m", .width = w,
                             .height = h, .bytesPerCode = 1, .codeMax = 255, .valueMin = 0, .valueMax = 100,
                             .waterDistance = 4,
                             .data = std::vector<uint8_t>(size_t(w) * size_t(h), 0)}};  // 0 m: water everywhere
  world.riverLayer = 0;
  ViewerOptions o;
  o.width = 160;
  o.height = 90;
  o.validation = true;
  o.view.fog = false;
  o.camera = camera(200, float(heightAt(world, 200, 512)) + 40, 512, 90, -15);
  o.renderer.shadows.distance = 3000;
  ViewerOptions off = o;
  off.view.shadows = false;
  ASSERT_LT(sunClearance(world, 350, 512, 90, 15), -20) << "the glint's water lies in the ridge's shadow";
  const HeadlessResult on = runHeadless(world, o), lit = runHeadless(world, off);
  EXPECT_EQ(on.validationErrors, 0);
  auto brightest = [&](const HeadlessResult& r) {
    double best = 0;
    for (int y = o.height / 2 - 10; y < o.height / 2 + 10; ++y)
      for (int x = o.width / 2 - 20; x < o.width / 2 + 20; ++x) {
        const size_t i = (size_t(y) * size_t(o.width) + size_t(x)) * 4;
        best = std::max(best, 0.2126 * r.pixels[i] + 0.7152 * r.pixels[i + 1] + 0.0722 * r.pixels[i + 2]);
      }
    return best;
  };
  const double shaded = brightest(on), sunlit = brightest(lit);
  std::printf("glint: %.0f in the shade, %.0f without shadows\n", shaded, sunlit);
  EXPECT_GT(sunlit, 150);
  EXPECT_LT(shaded, 0.6 * sunlit);
}

// Hiding a species empties its draw records and leaves every other record as it was.
TEST(RenderLook, HiddenSpeciesDrawsNothingAndTheOthersTheSame) {
  if (!fixtures::haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(30000));
  ViewerOptions o;
  o.width = 192;
  o.height = 108;
  o.validation = true;
  o.camera = camera(512, 400, 1100, 0, -30);
  o.renderer.stream.loadRadius = o.renderer.stream.unloadRadius = 5000;
  HeadlessResult all = runHeadless(world, o);
  for (size_t hidden = 0; hidden < world.species.size(); ++hidden) {
    ViewerOptions h = o;
    h.view.hiddenSpecies.set(hidden);
    HeadlessResult r = runHeadless(world, h);
    EXPECT_EQ(r.validationErrors, 0);
    const FrameStats &a = all.frames.back(), &b = r.frames.back();
    ASSERT_EQ(a.speciesInstances.size(), world.species.size() * gpu::LOD_COUNT);
    ASSERT_EQ(b.speciesInstances.size(), a.speciesInstances.size());
    uint64_t hiddenCount = 0;
    for (size_t d = 0; d < a.speciesInstances.size(); ++d) {
      if (d / gpu::LOD_COUNT == hidden) {
        EXPECT_EQ(b.speciesInstances[d], 0u) << "hidden species " << hidden << " draw " << d;
        hiddenCount += a.speciesInstances[d];
      } else {
        EXPECT_EQ(b.speciesInstances[d], a.speciesInstances[d]) << "hidden species " << hidden << " draw " << d;
      }
    }
    EXPECT_GT(hiddenCount, 0u) << "species " << hidden << " was in view to begin with";
    EXPECT_EQ(b.afterOcclusion, a.afterOcclusion - hiddenCount);
  }
}

}  // namespace
