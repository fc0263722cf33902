// Issue #14 items 2, 3, 6 and 7: frames in flight under synchronisation validation, the memory
// path chosen by heap size (and the staged path giving the same pictures as direct writes),
// resident bytes per instance, the per-frame upload budget, resizing, and SIGINT/SIGTERM.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "render/headless.h"
#include "render/renderer.h"
#include "render_support.h"
#include "test_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::smallWorld;

namespace {

struct RenderFrames : fixtures::ValidatedContext {
  static RendererOptions options(int width = 160, int height = 90) {
    RendererOptions r;
    r.width = width;
    r.height = height;
    r.capture = true;
    r.stream.loadRadius = 5000;
    r.stream.unloadRadius = 5000;
    return r;
  }
};

size_t differingPixels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) return SIZE_MAX;
  size_t n = 0;
  for (size_t i = 0; i < a.size(); i += 4) n += std::memcmp(&a[i], &b[i], 4) != 0;
  return n;
}

VkPhysicalDeviceMemoryProperties memory(std::initializer_list<std::pair<VkMemoryPropertyFlags, uint32_t>> types,
                                        std::initializer_list<std::pair<VkDeviceSize, VkMemoryHeapFlags>> heaps) {
  VkPhysicalDeviceMemoryProperties m{};
  for (auto [flags, heap] : types) m.memoryTypes[m.memoryTypeCount++] = {flags, heap};
  for (auto [size, flags] : heaps) m.memoryHeaps[m.memoryHeapCount++] = {size, flags};
  return m;
}

constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkDeviceSize GiB = 1ull << 30, MiB = 1ull << 20;

}  // namespace

// Memory layouts as real drivers report them (vulkan.gpuinfo.org): a discrete GPU without
// resizable BAR exposes its video memory to the CPU only through a 256 MiB window.
TEST(RenderMemory, StagingOnlyWhereHostVisibleVideoMemoryIsSmall) {
  const VkMemoryHeapFlags L = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
  // discrete, 24 GiB, 256 MiB BAR: staging
  EXPECT_FALSE(hostWritesVideoMemory(memory({{kLocal, 0}, {kHost, 1}, {kLocal | kHost, 2}},
                                            {{24 * GiB, L}, {64 * GiB, 0}, {256 * MiB, L}})));
  // discrete with resizable BAR: the whole of video memory is mappable
  EXPECT_TRUE(hostWritesVideoMemory(memory({{kLocal, 0}, {kHost, 1}, {kLocal | kHost, 0}}, {{24 * GiB, L}, {64 * GiB, 0}})));
  // integrated / unified memory and lavapipe: one device-local, host-visible heap
  EXPECT_TRUE(hostWritesVideoMemory(memory({{kLocal | kHost, 0}}, {{2 * GiB, L}})));
  // no device-local host-visible type at all: staging
  EXPECT_FALSE(hostWritesVideoMemory(memory({{kLocal, 0}, {kHost, 1}}, {{8 * GiB, L}, {32 * GiB, 0}})));
  EXPECT_EQ(largestDeviceHeap(memory({{kLocal, 0}, {kHost, 1}}, {{8 * GiB, L}, {32 * GiB, 0}})), 8 * GiB);
}

// The staging path (device-local pages filled by copies recorded in the frame) gives the same
// pictures and counts as direct writes, through streaming, eviction and re-upload.
TEST_F(RenderFrames, StagedUploadsDrawWhatDirectWritesDraw) {
  Scene world = makeSyntheticScene(smallWorld(60000));
  RendererOptions direct = options(), staged = options();
  direct.upload = UploadPath::Direct;
  staged.upload = UploadPath::Staged;
  staged.uploadBytesPerFrame = 64 << 10;  // several steps per tile
  for (RendererOptions* o : {&direct, &staged}) o->stream.loadRadius = o->stream.unloadRadius = 300;
  Renderer a(ctx, world, direct), b(ctx, world, staged);
  EXPECT_FALSE(a.stagedUploads());
  EXPECT_TRUE(b.stagedUploads());
  const Camera path[] = {camera(100, 120, 100, 135, -20), camera(900, 120, 900, 315, -20), camera(100, 120, 100, 135, -20)};
  for (const Camera& cam : path) {
    a.settleStreaming(cam);
    b.settleStreaming(cam);
    FrameStats sa = a.render(cam, CullSettings{}), sb = b.render(cam, CullSettings{});
    EXPECT_GT(sa.afterOcclusion, 100u);
    EXPECT_EQ(sa.resident, sb.resident);
    EXPECT_EQ(sa.afterOcclusion, sb.afterOcclusion);
    EXPECT_EQ(sa.speciesInstances, sb.speciesInstances);
    EXPECT_EQ(differingPixels(a.pixels(), b.pixels()), 0u);
  }
}

// 16-byte records, page tails and tables, and the visible list: 4 bytes per instance a view
// can draw, not per resident one. On a 4 km world (tiles of 7812 instances: 62 pages of 128,
// 1.6 % tail) trees are drawn to the load radius but shrubs, grass and ground cover only to 1200,
// 600 and 300 m, so most resident instances (the far grass streamed in around the camera) take
// no slot; with shadows each cascade lists the trees and shrubs in reach and in its region of
// the world (17.56 B without shadows, 18.57 with: 19.38 when every cascade had room for every
// caster in reach). Against 64 bytes per instance before the records stayed packed.
TEST_F(RenderFrames, ResidentBytesPerInstanceUnderTwenty) {
  const uint64_t n = 2'000'000;
  SyntheticOptions so = fixtures::smallWorld(n);
  so.gridSize = 513;  // 4096 m
  Scene world = makeSyntheticScene(so);
  const double records = 256.0 * 62 * 128 * 16 / double(n);  // whole pages: 16.25 B
  for (bool shadows : {false, true}) {
    RendererOptions o = options(64, 36);
    o.stream.budgetInstances = n;
    o.shadows.enabled = shadows;
    Renderer r(ctx, world, o);
    Camera cam = camera(2048, 400, 2048, 0, -30);
    r.settleStreaming(cam);
    FrameStats s = r.render(cam, CullSettings{});
    ASSERT_EQ(s.resident, n);
    const double perInstance = double(s.residentBytes) / double(n);
    EXPECT_GT(perInstance, records) << (shadows ? "shadows" : "no shadows");
    // the visible list: 4 B for each of the 8 % trees, and less than all the rest
    EXPECT_GT(perInstance - records, 4 * 0.08) << (shadows ? "shadows" : "no shadows");
    EXPECT_LE(perInstance, shadows ? 19.0 : 18.0) << s.residentBytes << " bytes" << (shadows ? ", shadows" : "");
    if (!shadows) {
      EXPECT_GE(64.0 / perInstance, 3.4) << "the same memory holds 3.4x the instances of 64-byte ones";
    }
  }
}

// The shadow cascades' regions of the visible list (render/visible_reach.h): each frame sizes a
// cascade's region by the casters of the tiles whose boxes pass its planes, and the list is
// allocated once for the regions around any eye. Turning and moving the camera over a 4 km
// world with a 150 m ridge, every cascade's draws fit their region (the GPU's own counts,
// read back: a region too small would spill into the next one) and the list never grows.
TEST_F(RenderFrames, CascadeRegionsHoldTheirCastersAndTheListNeverGrows) {
  SyntheticOptions so = fixtures::smallWorld(400'000);
  so.gridSize = 513;  // 4096 m in 128 m tiles
  so.cellSize = 8;
  so.tileSize = 128;
  Scene world = makeSyntheticScene(so);
  RendererOptions o = options(64, 36);
  o.stream.loadRadius = o.stream.unloadRadius = 1500;
  Renderer r(ctx, world, o);
  uint64_t bytes = 0, cascadeDrawn = 0;
  for (auto [x, z] : {std::pair{2048.f, 2048.f}, {600.f, 3500.f}, {3900.f, 300.f}}) {
    for (float yaw : {0.f, 90.f, 180.f, 270.f})
      for (float pitch : {-5.f, -60.f}) {
        const Camera cam = camera(x, 320, z, yaw, pitch);
        r.settleStreaming(cam);
        const FrameStats s = r.render(cam, CullSettings{});
        if (bytes == 0) bytes = s.residentBytes;
        EXPECT_EQ(s.residentBytes, bytes) << "the list grew at " << x << "," << z << " yaw " << yaw << " pitch " << pitch;
        const std::vector<gpu::DrawCommand> cmds = r.drawCommands();
        const uint32_t species = r.speciesCount();
        for (uint32_t v = 1; v < gpu::VIEW_COUNT; ++v)
          for (uint32_t k = 0; k < species; ++k) {
            const gpu::DrawCommand& lod0 = cmds[(v * species + k) * gpu::LOD_COUNT];
            const gpu::DrawCommand& lod1 = cmds[(v * species + k) * gpu::LOD_COUNT + 1];
            const uint64_t region = lod1.regionEnd - lod0.firstInstance, drawn = uint64_t(lod0.instanceCount) + lod1.instanceCount;
            EXPECT_LE(drawn, region) << "cascade " << v << " species " << k << " at " << x << "," << z << " yaw " << yaw
                                     << " pitch " << pitch;
            cascadeDrawn += drawn;
          }
      }
  }
  EXPECT_GT(cascadeDrawn, 10000u) << "the cascades drew casters";
}

// Pipelined frames: two in flight, statistics come back when a slot is reused, every frame's
// uploads stay within the byte budget on both paths, and the two paths draw the same final
// picture. (Synchronisation validation checks each command buffer; this layer version does
// not check hazards across submissions, which lavapipe would not show anyway.)
TEST_F(RenderFrames, FramesInFlightStayWithinTheUploadBudget) {
  Scene world = makeSyntheticScene(smallWorld(200000));
  std::vector<uint8_t> pictures[2];
  uint64_t drawn[2] = {0, 0};
  for (UploadPath path : {UploadPath::Direct, UploadPath::Staged}) {
    const int which = path == UploadPath::Staged;
    RendererOptions o = options();
    o.uploadBytesPerFrame = 96 << 10;  // 6144 records: a 12500-instance tile takes 3 frames
    o.upload = path;
    o.stream.loadRadius = o.stream.unloadRadius = 200;
    Renderer r(ctx, world, o);
    std::vector<FrameStats> done;
    const int frames = 40;
    Camera cam;
    for (int f = 0; f < frames; ++f) {
      float t = std::min(1.0f, float(f) / float(frames - 10));  // the last frames stand still
      cam = camera(60 + 900 * t, 100, 60 + 900 * t, 135, -25);
      std::vector<FrameStats> back = r.beginFrame();
      if (f < int(kFramesInFlight)) {
        EXPECT_TRUE(back.empty()) << f;
      } else {
        ASSERT_EQ(back.size(), 1u) << f;
        EXPECT_EQ(back[0].frame, uint64_t(f - int(kFramesInFlight)));
      }
      done.insert(done.end(), back.begin(), back.end());
      r.submitFrame(cam, CullSettings{});
    }
    std::vector<FrameStats> rest = r.drain();
    done.insert(done.end(), rest.begin(), rest.end());
    ASSERT_EQ(done.size(), size_t(frames));
    uint64_t total = 0;
    for (size_t i = 0; i < done.size(); ++i) {
      EXPECT_EQ(done[i].frame, i);
      EXPECT_EQ(done[i].staged, path == UploadPath::Staged);
      EXPECT_LE(done[i].uploadedBytes, o.uploadBytesPerFrame) << "frame " << i;
      total += done[i].uploadedBytes;
    }
    EXPECT_GT(total, 4 * o.uploadBytesPerFrame) << "tiles streamed in along the path";
    EXPECT_GT(done.back().afterOcclusion, 100u);
    pictures[which] = r.pixels();
    drawn[which] = done.back().afterOcclusion;
  }
  EXPECT_EQ(drawn[0], drawn[1]);
  EXPECT_EQ(differingPixels(pictures[0], pictures[1]), 0u);
}

// The nearest tile is uploaded first: with a budget of one tile per frame, the first
// resident tile is the one under the camera.
TEST_F(RenderFrames, NearestTileIsUploadedFirst) {
  Scene world = makeSyntheticScene(smallWorld(160000));  // 16 tiles of 10000
  RendererOptions o = options();
  o.uploadBytesPerFrame = 10000 * 16;
  Renderer r(ctx, world, o);
  Camera cam = camera(700, 200, 300, 0, -30);  // over tile (2, 1)
  for (int f = 0; f < 50 && r.residentTiles().empty(); ++f) {
    r.beginFrame();
    r.submitFrame(cam, CullSettings{});
  }
  r.drain();
  std::vector<size_t> tiles = r.residentTiles();
  ASSERT_FALSE(tiles.empty());
  EXPECT_EQ(world.tiles[tiles[0]].x, 2);
  EXPECT_EQ(world.tiles[tiles[0]].z, 1);
}

// A resized renderer draws what a renderer created at the new size draws.
TEST_F(RenderFrames, ResizeRecreatesTargetsAndProjection) {
  Scene world = makeSyntheticScene(smallWorld(40000));
  Camera cam = camera(300, 150, 900, 20, -20);
  Renderer resized(ctx, world, options(160, 90));
  resized.settleStreaming(cam);
  resized.render(cam, CullSettings{});
  resized.resize(90, 160);
  EXPECT_EQ(resized.width(), 90);
  FrameStats a = resized.render(cam, CullSettings{});
  Renderer fresh(ctx, world, options(90, 160));
  fresh.settleStreaming(cam);
  FrameStats b = fresh.render(cam, CullSettings{});
  ASSERT_EQ(resized.pixels().size(), size_t(90 * 160 * 4));
  // At most two of the 14,400 pixels: one pixel of this view, (6, 55), takes one of two
  // colours (G 130 or 137) from run to run of the same renderer when the machine is loaded
  // (ctest -j2 on two cores; either renderer, either colour); likely the order of the visible
  // list, which follows the cull threads' atomic appends (not confirmed). Exact equality failed
  // 1 run in 4 that way; a 0.2 m camera move differs in 7,438 pixels.
  EXPECT_LE(differingPixels(resized.pixels(), fresh.pixels()), 2u);
  EXPECT_EQ(a.afterOcclusion, b.afterOcclusion);
}

// SIGTERM and SIGINT stop the frame loop after the current frame: exit 128 + signal, one
// line saying so, no screenshot or statistics of an unfinished run.
TEST(RenderSignals, TermAndIntStopCleanlyWithoutOutputs) {
  test::TempDir dir;
  for (const char* sig : {"TERM", "INT"}) {
    std::string shot = dir.file(std::string(sig) + ".png"), stats = dir.file(std::string(sig) + ".json");
    test::CommandResult r = test::runCommand(
        std::string("timeout --preserve-status -s ") + sig + " 3 " + test::tool("ecoview") +
            " --synthetic 100000 --headless --no-settle --frames 1000000 --size 64x64 --screenshot " + shot +
            " --stats " + stats,
        60);
    EXPECT_EQ(r.code, std::string(sig) == "TERM" ? 143 : 130) << r.output;
    EXPECT_NE(r.output.find("interrupted by signal"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(shot));
    EXPECT_FALSE(std::filesystem::exists(stats));
  }
}

// The window path (swapchain, per-slot acquire semaphores, per-image render semaphores, the
// blit hook) under Xvfb with validation, synchronisation included: exit 0 after --frames; and
// SIGTERM in window mode stops it cleanly with 143; a resized window recreates its swapchain
// and render targets.
TEST(RenderWindow, RunsUnderXvfbWithValidationStopsOnSigtermAndFollowsResizes) {
  if (test::runCommand("sh -c \"command -v xvfb-run\"", 10).code != 0) GTEST_SKIP() << "xvfb-run not installed";
  const std::string view = test::tool("ecoview") + " --synthetic 20000 --size 320x180 --validation";
  test::CommandResult r = test::runCommand("xvfb-run -a -s '-screen 0 640x480x24' " + view + " --frames 12", 120);
  if (r.output.find("cannot create a window") != std::string::npos ||
      r.output.find("GLFW could not initialise") != std::string::npos)
    GTEST_SKIP() << "no window system under Xvfb here: " << r.output;
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find("Validation Error"), std::string::npos) << r.output;
  // the signal goes to ecoview alone, after it has been running for a while
  r = test::runCommand("xvfb-run -a -s '-screen 0 640x480x24' sh -c '" + view +
                           " & pid=$!; sleep 4; kill -TERM $pid; wait $pid; echo status=$?'",
                       120);
  EXPECT_NE(r.output.find("status=143"), std::string::npos) << r.output;

  // resized from outside (no window manager under Xvfb: the X server applies it): the
  // swapchain, targets and projection follow, still without validation errors
  if (test::runCommand("sh -c \"command -v xdotool\"", 10).code != 0) GTEST_SKIP() << "xdotool not installed";
  r = test::runCommand("xvfb-run -a -s '-screen 0 800x600x24' sh -c '" + view +
                           " & pid=$!; sleep 3; xdotool search --name ^ecoview windowsize %@ 500 240; sleep 3;"
                           " kill -TERM $pid; wait $pid; echo status=$?'",
                       120);
  EXPECT_NE(r.output.find("window 500x240: swapchain recreated, rendering at 500x240"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("Validation Error"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("status=143"), std::string::npos) << r.output;
}
