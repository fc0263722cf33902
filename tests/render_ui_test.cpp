// The viewer's UI: the ImGui renderer (render/ui.h) against pixels computed here, the panels in
// headless pictures, and the camera bookmarks file (apps/ecoview/bookmarks.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include <imgui.h>
#include <nlohmann/json.hpp>

#include "bookmarks.h"
#include "render/headless.h"
#include "render/ui.h"
#include "render_support.h"
#include "test_support.h"
#include "ui_panels.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::haveVulkan;
using eco::render::fixtures::smallWorld;
using eco::render::fixtures::ValidatedContext;

namespace {

// A private ImGui context for one test.
struct ImGuiContextScope {
  ImGuiContext* context = ImGui::CreateContext();
  ImGuiContextScope() {
    ImGui::SetCurrentContext(context);
    ImGui::GetIO().IniFilename = nullptr;
  }
  ~ImGuiContextScope() { ImGui::DestroyContext(context); }
};

struct Rgba {
  int r, g, b, a;
};

// Clears a w x h RGBA8 image to `clear`, hands it to UiRenderer::record in TRANSFER_SRC_OPTIMAL
// (as the renderer's overlay hook does) and copies it out in that layout: a layout left wrong
// by record is a validation error of the copy.
std::vector<uint8_t> drawUi(Context& ctx, UiRenderer& ui, const ImDrawData* data, uint32_t w, uint32_t h, Rgba clear,
                            uint32_t slot) {
  GpuImage target = createImage(ctx, w, h, 1, VK_FORMAT_R8G8B8A8_UNORM,
                                VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_DST_BIT);
  Buffer readback = createBuffer(ctx, VkDeviceSize(w) * h * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::Readback);
  VkCommandBuffer cmd = beginOneShot(ctx);
  imageBarrier(cmd, target.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  VkClearColorValue c{};
  c.float32[0] = float(clear.r) / 255.0f;
  c.float32[1] = float(clear.g) / 255.0f;
  c.float32[2] = float(clear.b) / 255.0f;
  c.float32[3] = float(clear.a) / 255.0f;
  VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdClearColorImage(cmd, target.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c, 1, &range);
  imageBarrier(cmd, target.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_CLEAR_BIT,
               VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
               VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  ui.record(cmd, target, data, slot);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {w, h, 1};
  vkCmdCopyImageToBuffer(cmd, target.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
  memoryBarrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                VK_ACCESS_2_HOST_READ_BIT);
  endOneShot(ctx, cmd);
  std::vector<uint8_t> pixels(static_cast<const uint8_t*>(readback.data),
                              static_cast<const uint8_t*>(readback.data) + size_t(w) * h * 4);
  destroyBuffer(ctx, readback);
  destroyImage(ctx, target);
  return pixels;
}

Rgba pixelAt(const std::vector<uint8_t>& p, uint32_t w, uint32_t x, uint32_t y) {
  const uint8_t* q = &p[(size_t(y) * w + x) * 4];
  return {q[0], q[1], q[2], q[3]};
}

bool near(Rgba a, Rgba b, int tolerance = 1) {
  return std::abs(a.r - b.r) <= tolerance && std::abs(a.g - b.g) <= tolerance && std::abs(a.b - b.b) <= tolerance &&
         std::abs(a.a - b.a) <= tolerance;
}

std::string show(Rgba c) {
  return std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + "," + std::to_string(c.a);
}

using RenderUi = ValidatedContext;

// Solid rectangles (ImGui draws them as two triangles over its white atlas texel, no
// anti-aliased fringe), one behind a clip rectangle and one half transparent: the expected
// pixels follow from the rectangles, the scissor and the blend equation alone.
TEST_F(RenderUi, DrawsRectanglesClippedAndBlendedOverTheTarget) {
  ImGuiContextScope imgui;
  UiRenderer ui(ctx, VK_FORMAT_R8G8B8A8_UNORM);
  constexpr uint32_t W = 64, H = 48;
  ImGui::GetIO().DisplaySize = ImVec2(W, H);
  ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
  ImGui::NewFrame();
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  draw->AddRectFilled(ImVec2(8, 8), ImVec2(24, 20), IM_COL32(200, 100, 50, 255));
  draw->PushClipRect(ImVec2(40, 8), ImVec2(48, 40));
  draw->AddRectFilled(ImVec2(32, 4), ImVec2(56, 44), IM_COL32(0, 255, 0, 255));
  draw->PopClipRect();
  draw->AddRectFilled(ImVec2(8, 30), ImVec2(24, 40), IM_COL32(255, 255, 255, 128));
  ImGui::Render();
  const Rgba clear{10, 20, 30, 255};
  std::vector<uint8_t> p = drawUi(ctx, ui, ImGui::GetDrawData(), W, H, clear, 0);

  // white at alpha 128/255 over the clear colour: 255 a + dst (1 - a); alpha: a + 1 (1 - a)
  const double a = 128.0 / 255.0;
  const Rgba blended{int(std::lround(255 * a + 10 * (1 - a))), int(std::lround(255 * a + 20 * (1 - a))),
                     int(std::lround(255 * a + 30 * (1 - a))), 255};
  int wrong = 0;
  for (uint32_t y = 0; y < H; ++y) {
    for (uint32_t x = 0; x < W; ++x) {
      Rgba want = clear;
      if (x >= 8 && x < 24 && y >= 8 && y < 20) want = {200, 100, 50, 255};
      if (x >= 40 && x < 48 && y >= 8 && y < 40) want = {0, 255, 0, 255};  // the clip, not the rectangle
      if (x >= 8 && x < 24 && y >= 30 && y < 40) want = blended;
      Rgba got = pixelAt(p, W, x, y);
      if (!near(got, want) && ++wrong <= 5)
        ADD_FAILURE() << "pixel " << x << "," << y << ": " << show(got) << ", expected " << show(want);
    }
  }
  EXPECT_EQ(wrong, 0);

  // where the UI drew: the union of the three rectangles, the clipped one at its clip
  UiRect r = uiBounds(ImGui::GetDrawData());
  EXPECT_EQ(r.x0, 8);
  EXPECT_EQ(r.y0, 8);
  EXPECT_EQ(r.x1, 48);
  EXPECT_EQ(r.y1, 40);

  // Nothing drawn: the target is left as it was.
  ImGui::NewFrame();
  ImGui::Render();
  EXPECT_TRUE(uiBounds(ImGui::GetDrawData()).empty());
  std::vector<uint8_t> untouched = drawUi(ctx, ui, ImGui::GetDrawData(), W, H, clear, 1);
  for (uint32_t y = 0; y < H; ++y)
    for (uint32_t x = 0; x < W; ++x) ASSERT_TRUE(near(pixelAt(untouched, W, x, y), clear, 0));
}

// More vertices than the first buffers hold (64 KiB, about 3300 vertices): the slot's buffers
// grow and every rectangle still lands, in both frame slots.
TEST_F(RenderUi, GrowsItsBuffersForLargeFrames) {
  ImGuiContextScope imgui;
  UiRenderer ui(ctx, VK_FORMAT_R8G8B8A8_UNORM);
  constexpr uint32_t W = 128, H = 128;
  ImGui::GetIO().DisplaySize = ImVec2(W, H);
  ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
  for (uint32_t slot = 0; slot < kFramesInFlight; ++slot) {
    ImGui::NewFrame();
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    for (int y = 0; y < 128; ++y)  // 128 x 64 one-pixel squares on every other column: 32768 vertices
      for (int x = 0; x < 128; x += 2)
        draw->AddRectFilled(ImVec2(float(x), float(y)), ImVec2(float(x + 1), float(y + 1)),
                            IM_COL32(255, slot ? 255 : 0, 0, 255));
    ImGui::Render();
    ASSERT_GT(ImGui::GetDrawData()->TotalVtxCount, 30000);
    std::vector<uint8_t> p = drawUi(ctx, ui, ImGui::GetDrawData(), W, H, {0, 0, 0, 255}, slot);
    int wrong = 0;
    for (uint32_t y = 0; y < H; ++y)
      for (uint32_t x = 0; x < W; ++x) {
        Rgba want = x % 2 == 0 ? Rgba{255, slot ? 255 : 0, 0, 255} : Rgba{0, 0, 0, 255};
        wrong += !near(pixelAt(p, W, x, y), want);
      }
    EXPECT_EQ(wrong, 0) << "slot " << slot;
  }
}

ViewerOptions uiShot(const Scene& world) {
  ViewerOptions o;
  o.width = 480;
  o.height = 320;
  o.frames = 2;
  o.validation = true;
  o.camera = defaultCamera(world, o.width, o.height);
  o.renderer.stream.loadRadius = 5000;
  o.renderer.stream.unloadRadius = 5000;
  return o;
}

// `ecoview --headless --ui`: the picture with the panels differs from the one without only
// inside the rectangle the UI drew into, which is the panel column; inside it the panel
// shows text and widgets, not one flat colour.
TEST(RenderUiHeadless, PanelsChangeOnlyTheirRectangle) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(20000));
  ViewerOptions plain = uiShot(world);
  HeadlessResult without = runHeadless(world, plain);

  ecoview::PanelState panel;
  panel.scene = &world;
  panel.layers = {{"moisture", "", 0, 1}, {"elevation", "m", 120, 480}};
  panel.view.overlay = 1;  // the legend shows too
  ViewerOptions o = plain;
  o.ui = true;
  o.uiPanels = [&panel](const FrameStats& previous) {
    panel.stats = previous;
    ecoview::drawPanels(panel);
  };
  HeadlessResult with = runHeadless(world, o);
  EXPECT_EQ(with.validationErrors, 0);
  EXPECT_EQ(without.validationErrors, 0);
  ASSERT_EQ(with.pixels.size(), without.pixels.size());

  const UiRect r = with.uiRect;
  ASSERT_FALSE(r.empty());
  // the panel's place, give or take the anti-aliased fringe of its border (ImGui feathers
  // outlines by a pixel on each side)
  EXPECT_GE(r.x0, int(ecoview::kPanelX) - 3);
  EXPECT_GE(r.y0, int(ecoview::kPanelY) - 3);
  EXPECT_LE(r.x1, int(ecoview::kPanelX + ecoview::kPanelWidth) + 3);
  EXPECT_LE(r.y1, o.height);
  EXPECT_GT(r.y1 - r.y0, o.height / 2) << "the panel runs down the left side";

  size_t outside = 0, inside = 0;
  std::set<uint32_t> colours;
  for (int y = 0; y < o.height; ++y) {
    for (int x = 0; x < o.width; ++x) {
      size_t i = (size_t(y) * size_t(o.width) + size_t(x)) * 4;
      bool differs = std::memcmp(&with.pixels[i], &without.pixels[i], 4) != 0;
      bool in = x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1;
      if (in) {
        inside += differs;
        uint32_t c;
        std::memcpy(&c, &with.pixels[i], 4);
        colours.insert(c);
      } else {
        outside += differs;
      }
    }
  }
  EXPECT_EQ(outside, 0u) << "pixels changed outside the UI's rectangle";
  const size_t area = size_t(r.x1 - r.x0) * size_t(r.y1 - r.y0);
  EXPECT_GT(inside, area / 2) << "the panel's background covers its rectangle";
  EXPECT_GT(colours.size(), 32u) << "text, widgets and the legend, not one colour";

  // the same run without panels to draw: nothing drawn, the picture as without the UI
  o.uiPanels = nullptr;
  HeadlessResult empty = runHeadless(world, o);
  EXPECT_TRUE(empty.uiRect.empty());
  EXPECT_EQ(empty.pixels, without.pixels);
}

// --- bookmarks -------------------------------------------------------------------------------

Camera awkwardCamera(float seed) {
  Camera c;
  c.position = {1000.0f / 3.0f * seed, -1234.567f + seed, 1e-7f * seed};  // none a short decimal
  c.yawDeg = 359.99f - seed;
  c.pitchDeg = -89.9f + seed;
  return c;
}

void expectSameView(const Camera& a, const Camera& b) {
  EXPECT_EQ(a.position.x, b.position.x);
  EXPECT_EQ(a.position.y, b.position.y);
  EXPECT_EQ(a.position.z, b.position.z);
  EXPECT_EQ(a.yawDeg, b.yawDeg);
  EXPECT_EQ(a.pitchDeg, b.pitchDeg);
}

TEST(Bookmarks, StoredBookmarksComeBackFromTheFile) {
  test::TempDir dir;
  const std::string path = dir.file("views/marks.json");  // its folder does not exist yet
  Camera base;
  ecoview::BookmarkFile f = ecoview::openBookmarks(path, base);
  EXPECT_TRUE(f.warning.empty());
  EXPECT_TRUE(f.writable);
  EXPECT_FALSE(std::filesystem::exists(path)) << "opening writes nothing";
  EXPECT_TRUE(ecoview::storeBookmark(f, 3, awkwardCamera(1)));
  EXPECT_TRUE(ecoview::storeBookmark(f, 9, awkwardCamera(7)));
  EXPECT_TRUE(ecoview::storeBookmark(f, 3, awkwardCamera(2)));  // replaces key 3
  ASSERT_TRUE(std::filesystem::exists(path));

  // the file as documented: one entry per key, in key order
  nlohmann::json j = nlohmann::json::parse(test::readBytes(path));
  ASSERT_EQ(j["bookmarks"].size(), 2u);
  EXPECT_EQ(j["bookmarks"][0]["key"], 3);
  EXPECT_EQ(j["bookmarks"][1]["key"], 9);
  EXPECT_EQ(j["bookmarks"][1]["position"].size(), 3u);

  ecoview::BookmarkFile g = ecoview::openBookmarks(path, base);
  EXPECT_TRUE(g.warning.empty()) << g.warning;
  for (int k = 1; k <= ecoview::kBookmarkSlots; ++k)
    EXPECT_EQ(g.marks.slots[size_t(k - 1)].has_value(), k == 3 || k == 9) << "key " << k;
  ASSERT_TRUE(g.marks.slots[2] && g.marks.slots[8]);
  expectSameView(*g.marks.slots[2], awkwardCamera(2));
  expectSameView(*g.marks.slots[8], awkwardCamera(7));

  // without a file: kept in memory, nothing written
  ecoview::BookmarkFile memory = ecoview::openBookmarks("", base);
  EXPECT_TRUE(ecoview::storeBookmark(memory, 1, awkwardCamera(3)));
  ASSERT_TRUE(memory.marks.slots[0]);
  expectSameView(*memory.marks.slots[0], awkwardCamera(3));
  EXPECT_FALSE(ecoview::storeBookmark(memory, 10, awkwardCamera(3))) << "key out of range";
}

TEST(Bookmarks, MalformedFilesAreOneLineWarningsNamingTheField) {
  const std::string entry = R"("position": [1, 2, 3], "yaw_deg": 10, "pitch_deg": -20)";
  auto item = [&](const std::string& key) { return "{\"key\": " + key + ", " + entry + "}"; };
  std::string ten;
  for (int k = 1; k <= 10; ++k) ten += (k > 1 ? ", " : "") + item(std::to_string(k % 9 + 1));
  struct Case {
    std::string text, field;
  };
  const std::vector<Case> cases = {
      {"bookmarks!", "not JSON"},
      {"", "not JSON"},
      {"[1, 2]", "top level"},
      {R"({"bookmarks": {}})", "/bookmarks"},
      {R"({"bookmark": []})", "/bookmark"},
      {R"({"bookmarks": [5]})", "/bookmarks/0"},
      {"{\"bookmarks\": [" + item("\"one\"") + "]}", "/bookmarks/0/key"},
      {"{\"bookmarks\": [" + item("0") + "]}", "/bookmarks/0/key"},
      {"{\"bookmarks\": [" + item("10") + "]}", "/bookmarks/0/key"},
      {"{\"bookmarks\": [" + item("2.5") + "]}", "/bookmarks/0/key"},
      {"{\"bookmarks\": [" + item("1") + ", " + item("1") + "]}", "/bookmarks/1/key"},
      {"{\"bookmarks\": [" + ten + "]}", "/bookmarks: at most 9"},
      {R"({"bookmarks": [{"key": 1, "position": [1, NaN, 3], "yaw_deg": 0, "pitch_deg": 0}]})", "not JSON"},
      {R"({"bookmarks": [{"key": 1, "position": [1, "2", 3], "yaw_deg": 0, "pitch_deg": 0}]})",
       "/bookmarks/0/position/1"},
      {R"({"bookmarks": [{"key": 1, "position": [1, 2, 1e9], "yaw_deg": 0, "pitch_deg": 0}]})",
       "/bookmarks/0/position/2"},
      {R"({"bookmarks": [{"key": 1, "position": [1, 2], "yaw_deg": 0, "pitch_deg": 0}]})", "/bookmarks/0/position"},
      {R"({"bookmarks": [{"key": 1, "position": [1, 2, 3], "yaw_deg": 1e999, "pitch_deg": 0}]})", "too large"},
      {R"({"bookmarks": [{"key": 1, "position": [1, 2, 3], "yaw_deg": 0, "pitch_deg": 90}]})",
       "/bookmarks/0/pitch_deg"},
      {R"({"bookmarks": [{"key": 1, "position": [1, 2, 3], "yaw_deg": null, "pitch_deg": 0}]})",
       "/bookmarks/0/yaw_deg"},
      {R"({"bookmarks": [{"key": 1, "position": [1, 2, 3], "pitch_deg": 0}]})", "/bookmarks/0/yaw_deg"},
      {R"({"bookmarks": [{"key": 1, "position": [1, 2, 3], "yaw_deg": 0, "pitch_deg": 0, "fov": 60}]})",
       "/bookmarks/0/fov"},
      {std::string("{\"bookmarks\": []}\0{}", 20), "NUL"},
      {R"({"bookmarks": [{"key": 1, "position": [1, 2, 3], "yaw_deg": 0, "yaw_deg": 5, "pitch_deg": 0}]})",
       "/bookmarks/0/yaw_deg: duplicate key"},
      {std::string(100000, ' ') + "{\"bookmarks\": []}", "bookmarks file"},  // over the size limit
  };
  test::TempDir dir;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = dir.file("marks" + std::to_string(i) + ".json");
    test::writeBytes(path, cases[i].text);
    ecoview::BookmarkFile f = ecoview::openBookmarks(path, Camera{});
    SCOPED_TRACE("case " + std::to_string(i) + ": " + cases[i].text.substr(0, 120));
    EXPECT_NE(f.warning.find(path), std::string::npos) << f.warning;
    EXPECT_NE(f.warning.find(cases[i].field), std::string::npos) << f.warning;
    EXPECT_EQ(f.warning.find('\n'), std::string::npos) << "one line";
    EXPECT_FALSE(f.writable);
    for (const auto& slot : f.marks.slots) EXPECT_FALSE(slot.has_value()) << "nothing half-loaded";
    // the viewer goes on with bookmarks in memory and leaves the file as it was
    EXPECT_FALSE(ecoview::storeBookmark(f, 1, awkwardCamera(1)));
    EXPECT_TRUE(f.marks.slots[0].has_value());
    EXPECT_EQ(test::readBytes(path), cases[i].text);
  }
  // a folder where the file should be: a warning, not an exception
  ecoview::BookmarkFile folder = ecoview::openBookmarks(dir.path.string(), Camera{});
  EXPECT_FALSE(folder.writable);
  EXPECT_NE(folder.warning.find(dir.path.string()), std::string::npos) << folder.warning;
}

// The command line: a malformed bookmarks file warns (file and field) and the run goes on.
TEST(Bookmarks, EcoviewWarnsAndGoesOn) {
  if (!std::filesystem::exists(test::tool("ecoview"))) GTEST_SKIP() << "ecoview not built";
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  test::TempDir dir;
  const std::string marks = dir.file("marks.json");
  test::writeBytes(marks, R"({"bookmarks": [{"key": 1, "position": [1, 2, 3], "yaw_deg": "east", "pitch_deg": 0}]})");
  const std::string shot = dir.file("shot.png");
  test::CommandResult r = test::runTool(
      "ecoview", "--synthetic 2000 --headless --ui --size 160x120 --bookmarks " + marks + " --screenshot " + shot);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find(marks + ": /bookmarks/0/yaw_deg"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(shot));
  EXPECT_EQ(test::readBytes(marks).find("east") != std::string::npos, true) << "the file is left alone";

  test::CommandResult folder =
      test::runTool("ecoview", "--synthetic 2000 --headless --size 16x16 --bookmarks " + dir.path.string());
  EXPECT_EQ(folder.code, 2) << folder.output;
  EXPECT_EQ(test::lineCount(folder.output), 1u) << folder.output;
}

}  // namespace

namespace {

// The window with its panels, under Xvfb with validation: Ctrl+3 (a tap, shorter than a frame
// on a CPU rasteriser) stores the current camera as bookmark 3 in the --bookmarks file.
TEST(Bookmarks, CtrlDigitStoresInTheWindow) {
  if (!std::filesystem::exists(test::tool("ecoview"))) GTEST_SKIP() << "ecoview not built";
  if (test::runCommand("sh -c \"command -v xvfb-run && command -v xdotool\"", 10).code != 0)
    GTEST_SKIP() << "xvfb-run or xdotool not installed";
  test::TempDir dir;
  const std::string marks = dir.file("marks.json");
  const std::string view = test::tool("ecoview") +
                           " --synthetic 20000 --size 320x180 --validation --camera 100,300,900,45,-30 --bookmarks " +
                           marks;
  test::CommandResult r = test::runCommand(
      "xvfb-run -a -s '-screen 0 640x480x24' sh -c '" + view +
          " & pid=$!; sleep 4; xdotool search --name ^ecoview windowfocus --sync; xdotool key ctrl+3; sleep 2;"
          " kill -TERM $pid; wait $pid; echo status=$?'",
      120);
  if (r.output.find("cannot create a window") != std::string::npos ||
      r.output.find("GLFW could not initialise") != std::string::npos)
    GTEST_SKIP() << "no window system under Xvfb here: " << r.output;
  EXPECT_NE(r.output.find("status=143"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Validation Error"), std::string::npos) << r.output;
  ASSERT_TRUE(std::filesystem::exists(marks)) << r.output;
  ecoview::BookmarkFile f = ecoview::openBookmarks(marks, Camera{});
  EXPECT_TRUE(f.warning.empty()) << f.warning;
  ASSERT_TRUE(f.marks.slots[2].has_value());
  expectSameView(*f.marks.slots[2], camera(100, 300, 900, 45, -30));
}

}  // namespace
