// Frustum culling never changes the picture: frames with it on and off are pixel-identical at
// 4:3, 16:9, 21:9 and a portrait size and at narrow, default and wide fields of view. A plane
// formula that cuts into the view removes instances along the screen edges and fails here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "render/headless.h"
#include "render/renderer.h"
#include "render/shadows.h"
#include "render_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::smallWorld;

namespace {

size_t differingPixels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t n = 0;
  for (size_t i = 0; i + 4 <= a.size(); i += 4) n += std::memcmp(&a[i], &b[i], 4) != 0;
  return n;
}

// Frustum culling of the camera's instances and of the shadow casters against what the camera
// sees of each cascade: the same picture, fewer instances.
TEST(RenderFrustum, PictureIsTheSameWithAndWithoutFrustumCulling) {
  preferLavapipe();
  Context ctx;
  ContextOptions co;
  co.validation = true;
  std::string why;
  if (!createContext(ctx, co, &why)) GTEST_SKIP() << "no Vulkan device: " << why;
  {
    // dense enough that vegetation reaches every screen edge
    Scene world = makeSyntheticScene(smallWorld(60000));
    // low and looking across the slopes; aerial, tilted; looking down steeply
    const Camera cameras[] = {camera(150, 90, 850, 45, -12), camera(850, 420, 950, -30, -45),
                              camera(500, 700, 520, 10, -80)};
    for (auto [w, h] : {std::pair{240, 180}, {320, 180}, {420, 180}, {180, 320}}) {
      RendererOptions ro;
      ro.width = w;
      ro.height = h;
      ro.capture = true;
      ro.stream.loadRadius = ro.stream.unloadRadius = 5000;
      // one sample per pixel: see render_culling_test.cpp's options() (centroid under MSAA
      // on lavapipe depends on the order the instances arrive in)
      ro.samples = 1;
      Renderer renderer(ctx, world, ro);
      for (float fov : {35.f, 60.f, 95.f}) {
        for (Camera cam : cameras) {
          cam.fovYDeg = fov;
          renderer.settleStreaming(cam);
          CullSettings on, off;
          off.frustum = false;
          FrameStats a = renderer.render(cam, on);
          std::vector<uint8_t> culled = renderer.pixels();
          FrameStats b = renderer.render(cam, off);
          std::string where = std::to_string(w) + "x" + std::to_string(h) + " fov " + std::to_string(int(fov)) +
                              " camera " + std::to_string(int(cam.position.x)) + "," +
                              std::to_string(int(cam.position.z));
          EXPECT_EQ(differingPixels(culled, renderer.pixels()), 0u) << where;
          EXPECT_LT(a.afterFrustum, b.afterFrustum) << where << ": frustum culling removed nothing";
          // the shadow cascades keep only casters whose shadow can reach what the camera sees
          ASSERT_TRUE(a.shadows && b.shadows) << where;
          EXPECT_LT(a.shadowInstances, b.shadowInstances) << where << ": no caster culled against the view";
          EXPECT_GT(a.afterOcclusion, 0u) << where;
        }
      }
    }
  }
  destroyContext(ctx);
  EXPECT_EQ(ctx.validationErrors.load(), 0);
}

// The shadow casters a cascade keeps (frame.shadowReceivers, as cull.comp tests them) include
// every sphere that a point the camera sees in that cascade's depth slice, above the lowest
// ground, looks through toward the sun, and leave out trees on low ground far behind the eye.
// The reference builds each caster on the receiver's ray to the sun, not from the planes.
TEST(RenderFrustum, ShadowCastersKeptForEveryPointTheCascadeShades) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  int kept = 0, checked = 0, behindRejected = 0, behind = 0;
  for (int trial = 0; trial < 36; ++trial) {  // every sixth with the sun 1.5-3.5 degrees up
    Camera cam = camera(float(1000 * u(rng)), float(50 + 500 * u(rng)), float(1000 * u(rng)), float(360 * u(rng)),
                        float(-80 + 90 * u(rng)));
    cam.fovYDeg = float(30 + 70 * u(rng));
    const int w = trial % 2 ? 960 : 400, h = 540;
    gpu::FrameData f = makeFrameData(cam, w, h, CullSettings{});
    const Vec3 sun = sunDirection(float(360 * u(rng)), trial % 6 == 5 ? float(1.5 + 2 * u(rng)) : float(10 + 75 * u(rng)));
    f.sun = {sun.x, sun.y, sun.z, 1};
    ShadowSettings settings;
    settings.distance = float(300 + 2000 * u(rng));
    // the lowest ground: somewhere below the eye, or above it (a camera over a lake under hills)
    const float minY = cam.position.y - float(400 * u(rng)) + (trial % 4 == 3 ? 60.f : 0.f);
    // every other trial, ground that rises 0.2 m per metre toward +x from minY at x = 0 (below
    // it nothing receives), given to the cascades as its lowest height in a region: over the
    // x-range of the region's part within 4 km of the eye (the slices end well before)
    const bool ramp = trial % 2 == 0;
    auto groundAt = [&](double x) { return ramp ? double(minY) + 0.2 * std::max(x, 0.0) : double(minY); };
    // the least x of the region: of the slice's eight corners (its near and far planes give
    // the depths)
    auto lowestX = [&](const gpu::vec4* planes) {
      const Vec3 e = cam.position;
      const gpu::vec4 fw = f.forward, rt = f.right, upv = f.up;
      const double eyeDepth = double(fw.x * e.x + fw.y * e.y + fw.z * e.z);
      const double depths[2] = {-(double(planes[gpu::FRUSTUM_NEAR].w) + eyeDepth),
                                double(planes[gpu::FRUSTUM_FAR].w) - eyeDepth};
      double lo = std::numeric_limits<double>::infinity();
      for (double d : depths)
        for (double sx : {-1.0, 1.0})
          for (double sy : {-1.0, 1.0})
            lo = std::min(lo, double(e.x) + double(fw.x) * d + double(rt.x) * sx * d / double(f.proj.x) +
                                  double(upv.x) * sy * d / double(f.proj.y));
      return lo;
    };
    setShadowCascades(f, settings, minY, 800,
                      ramp ? LowestGround([&](const gpu::vec4* planes) { return float(groundAt(lowestX(planes))); })
                           : LowestGround());
    const double ex = double(f.eye.x), ey = double(f.eye.y), ez = double(f.eye.z);
    auto axis = [](const gpu::vec4& v) { return std::array<double, 3>{double(v.x), double(v.y), double(v.z)}; };
    const auto right = axis(f.right), up = axis(f.up), fwd = axis(f.forward);
    const double tx = 1.0 / double(f.proj.x), ty = 1.0 / double(f.proj.y);
    double begin = double(f.eye.w);
    for (uint32_t c = 0; c < gpu::CASCADE_COUNT; ++c) {
      const double end = double((&f.shadowSplits.x)[c]);
      const gpu::vec4* planes = &f.shadowReceivers[c * gpu::FRUSTUM_PLANES];
      auto keeps = [&](double x, double y, double z, double r) {
        for (uint32_t k = 0; k < gpu::FRUSTUM_PLANES; ++k)
          if (double(planes[k].x) * x + double(planes[k].y) * y + double(planes[k].z) * z + double(planes[k].w) < -r)
            return false;
        return true;
      };
      for (int i = 0; i < 400; ++i) {
        // a point the camera sees at depth d in the slice, anywhere on the screen
        const double d = begin + (end - begin) * u(rng), sx = 2 * u(rng) - 1, sy = 2 * u(rng) - 1;
        double p[3];
        const double eye[3] = {ex, ey, ez};
        for (int a = 0; a < 3; ++a) p[a] = eye[a] + fwd[size_t(a)] * d + right[size_t(a)] * sx * d * tx + up[size_t(a)] * sy * d * ty;
        if (p[1] < groundAt(p[0])) continue;  // under the ground: no receiver
        // a sphere of radius r holding a point of that point's ray to the sun
        const double t = 3000 * u(rng) * u(rng), r = 0.3 + 25 * u(rng);
        double dir[3] = {2 * u(rng) - 1, 2 * u(rng) - 1, 2 * u(rng) - 1};
        const double len = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]) + 1e-9, off = r * u(rng);
        const double toSun[3] = {double(sun.x), double(sun.y), double(sun.z)};
        double centre[3];
        for (int a = 0; a < 3; ++a) centre[a] = p[a] + toSun[a] * t + dir[a] / len * off;
        ++checked;
        kept += keeps(centre[0], centre[1], centre[2], r);
        // a tree on the lowest ground well behind the eye, 100 m or more below it: its shadow
        // ends on that ground before it reaches the view, unless the view looks down steeply
        // on it or the sun is low behind the camera
        const double back = 200 + 400 * u(rng);
        double q[3];
        for (int a = 0; a < 3; ++a) q[a] = eye[a] - fwd[size_t(a)] * back;
        q[1] = std::min(double(minY), ey - 100) + 10;
        ++behind;
        behindRejected += !keeps(q[0], q[1], q[2], 10);
      }
      begin = end;
    }
  }
  EXPECT_EQ(kept, checked) << checked - kept << " casters whose shadow reaches a point the camera sees were culled";
  EXPECT_GT(behindRejected, behind / 4) << behindRejected << " of " << behind << " spheres behind and below the eye culled";
}

}  // namespace
