#pragma once
// One run of the viewer, headless or in a window: what to show (camera path, culling, view),
// the renderer's own options (streaming, uploads, shadows, multisampling: one definition for
// both paths; the renderer's width, height and capture follow from the fields here and the
// path), and what to write. ecoview's command line fills one; runHeadless and runWindow read it.
#include <functional>
#include <optional>
#include <string>

#include "render/camera.h"
#include "render/renderer.h"
#include "render/view_settings.h"

namespace eco::render {

struct ViewerOptions {
  int frames = 1;
  int width = 640, height = 360;
  Camera camera;
  std::optional<Camera> cameraEnd;  // moves linearly from camera to cameraEnd over the frames
  CullSettings cull;
  ViewSettings view;
  RendererOptions renderer;  // its width, height and capture are set from the fields here
  bool settle = true;               // wait for streaming before each frame (reproducible pictures)
  bool validation = false;
  std::string screenshot;           // PNG of the last frame, if set
  std::string statsFile;            // JSON, if set
  // Dear ImGui drawn over each frame (render/ui.h), without input: a fixed display size (the
  // frame's) and time step. uiPanels draws the windows between ImGui::NewFrame and
  // ImGui::Render, given the statistics of the frame before (empty for the first).
  bool ui = false;
  std::function<void(const FrameStats& previous)> uiPanels;
};

}  // namespace eco::render
