// GPU culling against a CPU reference, and occlusion culling that never changes the picture.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <tuple>

#include "render/cull_reference.h"
#include "render/headless.h"
#include "render_support.h"
#include "render/renderer.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::smallWorld;

namespace {

struct RenderCulling : ::testing::Test {
  Context ctx;
  void SetUp() override {
    preferLavapipe();
    ContextOptions o;
    o.validation = true;
    std::string why;
    if (!createContext(ctx, o, &why)) GTEST_SKIP() << "no Vulkan device: " << why;
  }
  void TearDown() override {
    if (!ctx.device) return;
    destroyContext(ctx);
    EXPECT_EQ(ctx.validationErrors.load(), 0) << "Vulkan validation errors (see log)";
  }
  RendererOptions options() const {
    RendererOptions r;
    r.width = 192;
    r.height = 108;
    r.capture = true;
    r.stream.loadRadius = 5000;
    r.stream.unloadRadius = 5000;
    return r;
  }
};

TEST_F(RenderCulling, GpuFrustumCullingMatchesCpuReference) {
  World world = makeSyntheticWorld(smallWorld(40000));
  RendererOptions ro = options();
  Renderer renderer(ctx, world, ro);
  CullSettings cull;
  cull.occlusion = false;
  cull.lodFactor = 30;
  cull.drawFactor = 400;  // grass (r ~ 0.5 m) disappears beyond ~200 m
  const Camera cameras[] = {camera(200, 80, 900, 30, -10), camera(512, 600, 512, 0, -60),
                            camera(100, 45, 100, 135, 0), camera(900, 300, 200, 250, -25)};
  for (const Camera& cam : cameras) {
    renderer.settleStreaming(cam);
    FrameStats s = renderer.render(cam, cull);
    ASSERT_EQ(s.resident, 40000u);
    ASSERT_EQ(s.tested, 40000u);

    std::set<std::tuple<size_t, uint32_t, uint32_t>> gpu;
    for (const VisibleRef& v : renderer.visibleInstances()) gpu.insert({v.tile, v.index, v.draw});
    EXPECT_EQ(gpu.size(), s.afterFrustum) << "each visible instance drawn once";
    EXPECT_EQ(s.afterFrustum, s.afterOcclusion);

    gpu::FrameData frame = makeFrameData(cam, ro.width, ro.height, cull);
    std::set<std::tuple<size_t, uint32_t, uint32_t>> cpu;
    std::set<std::tuple<size_t, uint32_t>> ambiguous;
    for (size_t t : renderer.residentTiles()) {
      LoadedTile tile = world.loadTile(t);
      for (uint32_t i = 0; i < tile.instances.size(); ++i) {
        float margin = 0;
        int draw = referenceCull(tile.instances[i], frame, &margin);
        if (draw >= 0) cpu.insert({t, i, uint32_t(draw)});
        if (margin < 1e-3f) ambiguous.insert({t, i});
      }
    }
    EXPECT_GT(cpu.size(), 100u);
    EXPECT_LT(cpu.size(), 40000u) << "camera sees everything: the test would prove nothing";
    EXPECT_LE(ambiguous.size(), 2u);
    size_t mismatches = 0;
    for (auto& v : gpu)
      if (!cpu.count(v) && !ambiguous.count({std::get<0>(v), std::get<1>(v)})) ++mismatches;
    for (auto& v : cpu)
      if (!gpu.count(v) && !ambiguous.count({std::get<0>(v), std::get<1>(v)})) ++mismatches;
    EXPECT_EQ(mismatches, 0u) << "camera " << cam.position.x << "," << cam.position.y << "," << cam.position.z
                              << ": gpu " << gpu.size() << " cpu " << cpu.size();
  }
}

TEST_F(RenderCulling, OcclusionKeepsThePictureAndDropsInstancesBehindTheRidge) {
  World world = makeSyntheticWorld(smallWorld(40000));
  Renderer renderer(ctx, world, options());
  struct Case {
    const char* name;
    Camera cam;
    bool behindRidge;
  };
  // west of the ridge near the ground looking east; aerial views of the open slopes
  const Case cases[] = {{"behind ridge", camera(300, 50, 520, 90, 2), true},
                        {"behind ridge, oblique", camera(250, 60, 300, 60, 0), true},
                        {"open, aerial", camera(800, 500, 1000, -20, -40), false},
                        {"open, low", camera(700, 90, 900, 10, -10), false}};
  for (const Case& c : cases) {
    renderer.settleStreaming(c.cam);
    CullSettings off, on;
    off.occlusion = false;
    on.occlusion = true;
    FrameStats a = renderer.render(c.cam, off);
    std::vector<uint8_t> pictureOff = renderer.pixels();
    FrameStats b = renderer.render(c.cam, on);
    std::vector<uint8_t> pictureOn = renderer.pixels();
    ASSERT_EQ(pictureOff.size(), pictureOn.size());
    size_t differing = 0;
    for (size_t i = 0; i < pictureOn.size(); i += 4)
      differing += std::memcmp(&pictureOn[i], &pictureOff[i], 4) != 0;
    EXPECT_EQ(differing, 0u) << c.name << ": occlusion culling changed " << differing << " pixels";
    EXPECT_EQ(a.afterFrustum, b.afterFrustum) << c.name;
    EXPECT_EQ(a.afterOcclusion, a.afterFrustum) << c.name;
    EXPECT_LE(b.afterOcclusion, b.afterFrustum) << c.name;
    if (c.behindRidge) {
      EXPECT_LT(double(b.afterOcclusion), 0.7 * double(b.afterFrustum))
          << c.name << ": frustum " << b.afterFrustum << " occlusion " << b.afterOcclusion;
    }
    // vegetation is in the picture at all
    EXPECT_GT(b.afterOcclusion, 0u) << c.name;
  }
}

TEST_F(RenderCulling, DrawCommandCountDoesNotGrowWithInstances) {
  for (uint64_t n : {2000ull, 60000ull}) {
    World world = makeSyntheticWorld(smallWorld(n));
    Renderer renderer(ctx, world, options());
    Camera cam = camera(512, 400, 1100, 0, -30);
    renderer.settleStreaming(cam);
    FrameStats s = renderer.render(cam, CullSettings{});
    EXPECT_EQ(s.resident, n);
    EXPECT_EQ(s.drawCalls, 1u);
    EXPECT_EQ(s.drawCommands, gpu::DRAW_COUNT);
    uint64_t drawn = 0;
    for (uint32_t d : s.drawInstances) drawn += d;
    EXPECT_EQ(drawn, s.afterOcclusion);
  }
}

}  // namespace
