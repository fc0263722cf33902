#pragma once
// Offscreen rendering without any window system: N frames along a camera path, then a PNG
// screenshot and per-frame statistics as JSON.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/renderer.h"
#include "render/scene.h"
#include "render/ui.h"
#include "render/viewer_options.h"

namespace eco::render {

struct HeadlessResult {
  std::vector<FrameStats> frames;
  std::vector<uint8_t> pixels;  // last frame, RGBA8
  int validationErrors = 0;
  std::string device;
  UiRect uiRect;  // where the last frame's UI drew (ui only)
  bool cameraLifted = false;  // some frame's camera was below kMinEyeHeight above the ground (raised, warned)
};

// Throws std::runtime_error when no Vulkan device is available.
HeadlessResult runHeadless(const Scene& world, const ViewerOptions& options);

std::string statsJson(const HeadlessResult& result, const ViewerOptions& options);
// PNG, or JPEG (quality 90) when the path ends in .jpg or .jpeg. Written through core/file_io
// writeFileAtomic: InputError naming the path on failure.
void writeScreenshot(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba);

}  // namespace eco::render

namespace eco::render {
// SIGINT and SIGTERM ask the frame loops (headless and window) to stop after the current
// frame; the renderer and the Vulkan device are then torn down normally. Another signal two
// or more seconds later ends the process at once. stopSignal() is the signal received, 0 if none.
void installStopHandlers();
bool stopRequested();
int stopSignal();

}  // namespace eco::render
