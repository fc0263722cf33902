// GPU culling against a CPU reference built independently of the shader's plane formula
// (cull_reference.h: planes from the inverse view-projection's corners, double precision), at
// several aspect ratios and fields of view; the indirect buffer as the GPU wrote it; and
// occlusion culling that never changes the picture.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "cull_reference.h"
#include "render/headless.h"
#include "meshes/meshes.h"
#include "render/renderer.h"
#include "render_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::smallWorld;

namespace {

struct RenderCulling : fixtures::ValidatedContext {
  RendererOptions options(int width = 192, int height = 108) const {
    RendererOptions r;
    r.width = width;
    r.height = height;
    r.capture = true;
    r.stream.loadRadius = 5000;
    r.stream.unloadRadius = 5000;
    r.farTrees = 0;  // the world's instances alone (far trees' copies: RenderFarField)
    // One sample per pixel: the pictures are compared exactly, and on lavapipe centroid
    // interpolation under MSAA (vegetation.vert) shades 1-4 pixels of a frame a level apart
    // when the same instances arrive in another order; culling is the subject here, not MSAA.
    r.samples = 1;
    return r;
  }
};

using Key = std::tuple<size_t, uint32_t, uint32_t>;  // tile, instance, draw

struct Reference {
  std::set<Key> visible;
  std::set<std::pair<size_t, uint32_t>> ambiguous;  // within 2 mm of a decision boundary
  std::vector<uint32_t> perDraw;  // species * LOD_COUNT + lod
  std::vector<uint64_t> resident;  // by species
  std::vector<uint64_t> reachable;  // by species: within the kind's draw distance, in view or not
};

Reference reference(const Scene& world, const Renderer& renderer, const Camera& cam, const CullSettings& cull) {
  gpu::FrameData frame = makeFrameData(cam, renderer.width(), renderer.height(), cull);
  test::Frustum frustum = test::frustumFromCorners(frame);
  Reference ref;
  ref.perDraw.assign(world.species.size() * gpu::LOD_COUNT, 0);
  ref.resident.assign(world.species.size(), 0);
  ref.reachable.assign(world.species.size(), 0);
  gpu::FrameData everywhere = frame;  // the same cut by distance, no frustum
  everywhere.cull.y &= ~gpu::CULL_FRUSTUM;
  for (size_t t : renderer.residentTiles()) {
    // the tile as a file stores and tileio decodes it: quantized, in the renderer's order
    std::vector<Instance> decoded = fixtures::decodedTile(world, t);
    for (uint32_t i = 0; i < decoded.size(); ++i) {
      double margin = 0;
      const uint16_t sp = decoded[i].species;
      ++ref.resident[sp];
      int draw = test::referenceCull(decoded[i], world.species[sp], renderer.speciesMeshes()[sp].sphere, frame, frustum,
                                     &margin);
      if (test::referenceCull(decoded[i], world.species[sp], renderer.speciesMeshes()[sp].sphere, everywhere, frustum) >= 0)
        ++ref.reachable[sp];
      if (draw >= 0) {
        ref.visible.insert({t, i, uint32_t(draw)});
        ++ref.perDraw[size_t(draw)];
      }
      if (margin < 2e-3) ref.ambiguous.insert({t, i});
    }
  }
  return ref;
}

// The planes the renderer hands the shader agree with the corner-built ones.
TEST(RenderCullingPlanes, CameraPlanesMatchTheInverseMatrixCorners) {
  for (auto [w, h] : {std::pair{320, 240}, {320, 180}, {420, 180}, {180, 320}}) {
    for (float fov : {20.f, 60.f, 100.f}) {
      Camera cam = camera(300, 120, 700, 37, -23);
      cam.fovYDeg = fov;
      gpu::FrameData f = makeFrameData(cam, w, h, CullSettings{});
      test::Frustum ref = test::frustumFromCorners(f);
      for (uint32_t i = 0; i < gpu::FRUSTUM_FAR; ++i) {  // the reference's far plane is finite
        const gpu::vec4& p = f.frustum[i];
        EXPECT_NEAR(p.x, ref.planes[i][0], 1e-5) << w << "x" << h << " fov " << fov << " plane " << i;
        EXPECT_NEAR(p.y, ref.planes[i][1], 1e-5) << w << "x" << h << " fov " << fov << " plane " << i;
        EXPECT_NEAR(p.z, ref.planes[i][2], 1e-5) << w << "x" << h << " fov " << fov << " plane " << i;
        EXPECT_NEAR(p.w, ref.planes[i][3], 1e-2) << w << "x" << h << " fov " << fov << " plane " << i;
      }
      EXPECT_EQ(f.frustum[gpu::FRUSTUM_FAR].w, 1.0f);
    }
  }
}

TEST_F(RenderCulling, GpuFrustumCullingMatchesCornerReferenceAtEveryAspectAndFov) {
  Scene world = makeSyntheticScene(smallWorld(40000));
  CullSettings cull;
  cull.occlusion = false;
  cull.lodFactor = 30;
  cull.drawDistance = {1e9f, 700, 250, 150};  // grass and ground cover end in view
  cull.fadeBand = 0;  // a hard edge: every decision is the reference's
  const Camera cameras[] = {camera(200, 80, 900, 30, -10), camera(512, 600, 512, 0, -60),
                            camera(900, 300, 200, 250, -25)};
  // 4:3, 16:9, 21:9, portrait
  for (auto [w, h] : {std::pair{160, 120}, {192, 108}, {252, 108}, {108, 192}}) {
    Renderer renderer(ctx, world, options(w, h));
    for (float fov : {35.f, 60.f, 95.f}) {
      for (Camera cam : cameras) {
        cam.fovYDeg = fov;
        std::string where = std::to_string(w) + "x" + std::to_string(h) + " fov " + std::to_string(int(fov)) +
                            " camera " + std::to_string(int(cam.position.x)) + "," + std::to_string(int(cam.position.z));
        renderer.settleStreaming(cam);
        FrameStats s = renderer.render(cam, cull);
        ASSERT_EQ(s.tested, 40000u);

        std::set<Key> gpu;
        for (const VisibleRef& v : RendererProbe::visibleInstances(renderer)) gpu.insert({v.tile, v.index, v.draw});
        EXPECT_EQ(gpu.size(), s.afterFrustum) << where << ": each visible instance drawn once";
        EXPECT_EQ(s.afterFrustum, s.afterOcclusion) << where;

        Reference ref = reference(world, renderer, cam, cull);
        EXPECT_GT(ref.visible.size(), 50u) << where;
        EXPECT_LT(ref.visible.size(), 40000u) << where << ": camera sees everything, the test would prove nothing";
        EXPECT_LE(ref.ambiguous.size(), 10u) << where << ": too many near-boundary instances to prove anything";
        size_t extra = 0, missing = 0;
        for (auto& v : gpu)
          if (!ref.visible.count(v) && !ref.ambiguous.count({std::get<0>(v), std::get<1>(v)})) ++extra;
        for (auto& v : ref.visible)
          if (!gpu.count(v) && !ref.ambiguous.count({std::get<0>(v), std::get<1>(v)})) ++missing;
        EXPECT_EQ(missing, 0u) << where << ": in view but culled (gpu " << gpu.size() << ", reference "
                               << ref.visible.size() << ")";
        EXPECT_EQ(extra, 0u) << where << ": out of view but drawn (gpu " << gpu.size() << ", reference "
                             << ref.visible.size() << ")";
        // per draw, as the GPU wrote the indirect records
        std::vector<gpu::DrawCommand> cmds = renderer.drawCommands();
        for (uint32_t d = 0; d < ref.perDraw.size(); ++d)
          EXPECT_NEAR(double(cmds[d].instanceCount), double(ref.perDraw[d]), double(ref.ambiguous.size()))
              << where << " draw " << d;
      }
    }
  }
}

TEST_F(RenderCulling, OcclusionKeepsThePictureAndDropsInstancesBehindTheRidge) {
  Scene world = makeSyntheticScene(smallWorld(40000));
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

// The indirect buffer read back after the frame: one record per (view, species, LOD) however
// many instances are resident; the camera's species regions of the visible list follow each
// other in species order, each holding at least the species' instances within its draw
// distance and at most its resident ones (both counted here from the decoded tiles), grass
// and ground cover fewer than resident; each record's instance range inside its species' region, LOD 0 and
// LOD 1 ranges disjoint, counts equal to the reference's (occlusion off) and never above them
// (occlusion on).
TEST_F(RenderCulling, IndirectBufferAsWrittenByTheGpu) {
  // 32 m tiles as well: a region a few metres short of the draw distance misses instances
  for (auto [n, tileSize] : {std::pair{2000ull, 256.0f}, {60000ull, 256.0f}, {60000ull, 32.0f}}) {
    SyntheticOptions so = smallWorld(n);
    so.tileSize = tileSize;
    Scene world = makeSyntheticScene(so);
    Renderer renderer(ctx, world, options());
    // low over the small tiles: the draw distance's horizontal reach is within 2 m of its own
    Camera cam = tileSize < 100 ? camera(300, 60, 900, 0, -10) : camera(512, 400, 1100, 0, -30);
    renderer.settleStreaming(cam);
    for (bool occlusion : {false, true}) {
      CullSettings cull;
      cull.occlusion = occlusion;
      FrameStats s = renderer.render(cam, cull);
      EXPECT_EQ(s.resident, n);
      std::vector<gpu::DrawCommand> cmds = renderer.drawCommands();
      Reference ref = reference(world, renderer, cam, cull);
      const size_t species = world.species.size();
      ASSERT_EQ(renderer.speciesCount(), species);
      ASSERT_EQ(cmds.size(), gpu::VIEW_COUNT * species * gpu::LOD_COUNT);
      const std::vector<SpeciesMesh>& meshes = renderer.speciesMeshes();
      uint64_t drawn = 0;
      uint32_t nonEmpty = 0, refNonEmpty = 0;
      uint64_t regionStart = 0;
      for (uint32_t d = 0; d < species * gpu::LOD_COUNT; ++d) {
        const gpu::DrawCommand& c = cmds[d];
        const uint32_t sp = d / gpu::LOD_COUNT;
        std::string where = "n " + std::to_string(n) + " tiles " + std::to_string(int(tileSize)) +
                            (occlusion ? " occlusion" : "") + " draw " + std::to_string(d);
        EXPECT_EQ(c.indexCount, meshes[sp].lods[d % gpu::LOD_COUNT].indexCount) << where;
        EXPECT_EQ(c.firstIndex, meshes[sp].lods[d % gpu::LOD_COUNT].firstIndex) << where;
        EXPECT_EQ(c.vertexOffset, meshes[sp].lods[d % gpu::LOD_COUNT].vertexOffset) << where;
        // the species' region ends where its LOD 1 record says; it holds every instance the
        // draw distance reaches and no more than are resident
        const uint64_t regionEnd = cmds[sp * gpu::LOD_COUNT + 1].regionEnd;
        if (d % gpu::LOD_COUNT == 0) {
          EXPECT_EQ(c.regionEnd, regionEnd) << where;
          EXPECT_GE(regionEnd - regionStart, ref.reachable[sp]) << where;
          EXPECT_LE(regionEnd - regionStart, ref.resident[sp]) << where;
          if (world.species[sp].kind >= 2) {  // grass and ground cover, drawn to 600 and 300 m
            EXPECT_LT(regionEnd - regionStart, ref.resident[sp]) << where << ": the far tiles' instances take no slots";
          }
        }
        if (d % gpu::LOD_COUNT == 0 && c.instanceCount > 0) {
          EXPECT_EQ(c.firstInstance, regionStart) << where;
        }
        EXPECT_GE(c.firstInstance, regionStart) << where;
        EXPECT_LE(uint64_t(c.firstInstance) + c.instanceCount, regionEnd) << where;
        if (d % gpu::LOD_COUNT == gpu::LOD_COUNT - 1) regionStart = regionEnd;
        if (occlusion)
          EXPECT_LE(c.instanceCount, ref.perDraw[d] + ref.ambiguous.size()) << where;
        else
          EXPECT_NEAR(double(c.instanceCount), double(ref.perDraw[d]), double(ref.ambiguous.size())) << where;
        drawn += c.instanceCount;
        nonEmpty += c.instanceCount > 0;
        refNonEmpty += ref.perDraw[d] > 0;
      }
      for (uint32_t k = 0; k < species; ++k) {
        const gpu::DrawCommand &lod0 = cmds[k * gpu::LOD_COUNT], &lod1 = cmds[k * gpu::LOD_COUNT + 1];
        EXPECT_LE(uint64_t(lod0.firstInstance) + lod0.instanceCount, lod1.firstInstance) << "species " << k;
      }
      EXPECT_EQ(drawn, s.afterOcclusion);
      EXPECT_EQ(s.nonEmptyDraws, nonEmpty);
      if (!occlusion) {
        EXPECT_EQ(nonEmpty, refNonEmpty);
      }
      EXPECT_GE(nonEmpty, 2u) << "several kinds and LODs in view";
      EXPECT_LT(s.afterFrustum, n) << "part of the world out of view";
    }
  }
}

}  // namespace
