#pragma once
// The viewer's on-screen panels (Dear ImGui, no Vulkan): frame and culling statistics,
// per-species visibility and counts, culling and LOD settings, lighting switches, the mask
// overlay with its legend, and camera bookmarks. Drawn between ImGui::NewFrame and
// ImGui::Render by the window and by `ecoview --headless --ui`; they edit PanelState, which
// the caller applies to the next frame.
#include <string>
#include <vector>

#include "bookmarks.h"
#include "render/camera.h"
#include "render/renderer.h"
#include "render/scene.h"
#include "render/view_settings.h"

namespace ecoview {

// A layer the overlay can show (the bake's masks and suitabilities): the legend's range and unit.
struct LayerInfo {
  std::string name, unit;
  float valueMin = 0, valueMax = 1;
};

struct PanelState {
  // shown
  const eco::render::Scene* scene = nullptr;
  eco::render::FrameStats stats;             // the last finished frame's
  std::vector<LayerInfo> layers;             // ViewSettings::overlay indexes this list
  std::vector<uint64_t> speciesResident;     // by species id, when known (empty: column omitted)
  std::string status;                        // one line at the bottom (a bookmark warning)
  // The terrain point under the cursor (the window) or the screen's centre (headless), when
  // the ray meets the ground: the panel lists every layer's value there.
  bool probed = false;
  eco::Vec3 probe;
  // edited
  eco::render::CullSettings cull;
  eco::render::ViewSettings view;
  BookmarkFile* bookmarks = nullptr;
  eco::render::Camera camera;  // the current camera; a recalled bookmark replaces it
  bool cameraRecalled = false; // set when the panel recalled a bookmark this frame
};

// Where the panel window starts and how wide it is (display units): a column on the left.
constexpr float kPanelX = 8, kPanelY = 8, kPanelWidth = 430;

void drawPanels(PanelState& state);

// The legend entries of a bake's raster layers, in Scene::layers order (ViewSettings::overlay).
std::vector<LayerInfo> layerInfos(const eco::render::Scene& scene);

// The legend's colour of a normalised value, as the terrain shader colours it
// (shaders/overlay_ramp.h), packed as ImGui's RGBA8.
unsigned legendColor(float t);

}  // namespace ecoview
