#include "ui_panels.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "core/species_kind.h"
#include "shaders/overlay_ramp.h"

namespace ecoview {

using eco::render::FrameStats;

namespace {

// Label and value pairs, two per row of a four-column table: the statistics stay short
// enough to leave room for the species and the legend below them.
class StatTable {
 public:
  explicit StatTable(const char* id) {
    ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(6, 1));  // a gap between value and next label
    open_ = ImGui::BeginTable(id, 4, ImGuiTableFlags_SizingStretchProp);
  }
  ~StatTable() {
    if (open_) ImGui::EndTable();
    ImGui::PopStyleVar();
  }
  StatTable(const StatTable&) = delete;
  StatTable& operator=(const StatTable&) = delete;
  // "12.34 ms", or "n/a" where the device has no timestamps (-1)
  void ms(const char* label, double value) {
    char text[32];
    if (value < 0)
      std::snprintf(text, sizeof text, "n/a");
    else
      std::snprintf(text, sizeof text, "%.2f ms", value);
    cell(label, text);
  }
  void count(const char* label, uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "%" PRIu64, value);
    cell(label, text);
  }
  void mib(const char* label, uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
    cell(label, text);
  }
  void cell(const char* label, const char* value) {
    if (!open_) return;
    if (column_ == 0) ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(column_);
    ImGui::TextDisabled("%s", label);
    ImGui::TableSetColumnIndex(column_ + 1);
    ImGui::TextUnformatted(value);
    column_ = (column_ + 2) % 4;
  }

 private:
  bool open_ = false;
  int column_ = 0;
};

void frameSection(const FrameStats& s) {
  if (!ImGui::CollapsingHeader("Frame", ImGuiTreeNodeFlags_DefaultOpen)) return;
  StatTable t("frame");
  t.ms("CPU", s.cpuMs);  // the thread's CPU time
  t.ms("CPU wall", s.submitMs);
  t.ms("GPU wait", s.waitMs);
  t.ms("GPU", s.gpuMs);
  t.ms("depth pre-pass", s.terrainMs);
  t.ms("Hi-Z", s.pyramidMs);
  t.ms("culling", s.cullMs);
  t.ms("shadows", s.shadowMs);
  t.ms("colour", s.colorMs);
  t.count("resident", s.resident);
  t.count("tested", s.tested);
  t.count("frustum", s.afterFrustum);
  t.count("occlusion", s.afterOcclusion);
  t.count("draw calls", s.drawCalls);
  char records[48];
  std::snprintf(records, sizeof records, "%u of %u", s.nonEmptyDraws, s.drawCommands);
  t.cell("records used", records);
  t.count("terrain tris", s.terrainTriangles);
  t.count("plant tris", s.vegetationTriangles);
  t.count("shadow casters", s.shadowInstances);
  t.count("tiles", s.tilesResident);
  t.count("tile loads", s.tileLoads);
  t.count("unloads", s.tileUnloads);
  t.mib("uploaded", s.uploadedBytes);
  t.mib("memory", s.residentBytes);
  t.mib("far field", s.farFieldBytes);
  t.count("far trees", s.farTrees);
  t.count("as cards", s.farCards);
  t.cell("uploads", s.staged ? "staged" : "direct");
  char exposure[48];
  std::snprintf(exposure, sizeof exposure, s.metered ? "%.2f (metered)" : "%.2f", double(s.exposure));
  t.cell("exposure", exposure);
  t.count("frame", s.frame);
}

// Where the camera is, and the ground under it (the eye is never below kMinEyeHeight over it).
void cameraSection(const PanelState& st) {
  if (!ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const eco::render::Camera& c = st.camera;
  ImGui::Text("x %.1f  y %.1f  z %.1f m", double(c.position.x), double(c.position.y), double(c.position.z));
  ImGui::Text("yaw %.1f  pitch %.1f deg", double(c.yawDeg), double(c.pitchDeg));
  if (st.scene) {
    const float ground = eco::render::groundHeight(*st.scene, c.position.x, c.position.z);
    ImGui::Text("ground %.1f m, eye %.1f m above it", double(ground), double(c.position.y - ground));
  }
}

// The ground under the cursor and every layer's value there (the bake's masks, suitabilities
// and river distance), read from the layers as the terrain shader filters them.
void probeSection(const PanelState& st) {
  if (!ImGui::CollapsingHeader("Under the cursor", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!st.probed || !st.scene) {
    ImGui::TextDisabled("sky or past the world's edge");
    return;
  }
  ImGui::Text("x %.1f  z %.1f m, ground %.1f m", double(st.probe.x), double(st.probe.z), double(st.probe.y));
  if (st.scene->layers.empty()) ImGui::TextDisabled("no layers (ecobake bake --layers masks)");
  if (!ImGui::BeginTable("probe", 2, ImGuiTableFlags_SizingStretchProp)) return;
  for (const eco::render::SceneLayer& l : st.scene->layers) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextDisabled("%s", l.name.c_str());
    ImGui::TableSetColumnIndex(1);
    const float v = l.valueAt(st.scene->cellSize, st.probe.x, st.probe.z);
    ImGui::Text("%.3g %s%s", double(v), l.unit.c_str(), l.waterDistance >= 0 && v <= l.waterDistance ? " (water)" : "");
  }
  ImGui::EndTable();
}

void speciesSection(PanelState& st) {
  if (!ImGui::CollapsingHeader("Species", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!st.scene || st.scene->species.empty()) {
    ImGui::TextDisabled("no species");
    return;
  }
  const std::vector<eco::SpeciesRecord>& species = st.scene->species;
  if (ImGui::SmallButton("show all")) st.view.hiddenSpecies.reset();
  ImGui::SameLine();
  if (ImGui::SmallButton("hide all"))
    for (const eco::SpeciesRecord& sp : species)
      if (sp.id < st.view.hiddenSpecies.size()) st.view.hiddenSpecies.set(sp.id);
  const bool resident = !st.speciesResident.empty(), covers = !st.stats.speciesCover.empty();
  const int columns = 3 + int(resident) + int(covers);
  // columns sized to their contents (stretched ones pushed the last past the panel)
  if (!ImGui::BeginTable("species", columns, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) return;
  ImGui::TableSetupColumn("species");
  ImGui::TableSetupColumn("kind");
  if (covers) ImGui::TableSetupColumn("cover");  // crown area over the world's, overlaps twice
  if (resident) ImGui::TableSetupColumn("resident");
  ImGui::TableSetupColumn("visible");
  ImGui::TableHeadersRow();
  for (const eco::SpeciesRecord& sp : species) {
    if (sp.id >= st.view.hiddenSpecies.size()) continue;
    ImGui::PushID(int(sp.id));
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    bool shown = !st.view.hiddenSpecies.test(sp.id);
    if (ImGui::Checkbox(sp.name.empty() ? "(unnamed)" : sp.name.c_str(), &shown)) st.view.hiddenSpecies.set(sp.id, !shown);
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(eco::speciesKindName(sp.kind));
    int column = 2;
    if (covers) {
      ImGui::TableSetColumnIndex(column++);
      if (sp.id < st.stats.speciesCover.size())
        ImGui::Text("%.2g %%", 100.0 * st.stats.speciesCover[sp.id]);
      else
        ImGui::TextDisabled("-");
    }
    if (resident) {
      ImGui::TableSetColumnIndex(column++);
      if (sp.id < st.speciesResident.size())
        ImGui::Text("%" PRIu64, st.speciesResident[sp.id]);
      else
        ImGui::TextDisabled("-");
    }
    ImGui::TableSetColumnIndex(column);
    // the GPU's count per species and LOD: one number per species, all LODs together
    const size_t first = size_t(sp.id) * eco::gpu::LOD_COUNT;
    if (first + eco::gpu::LOD_COUNT <= st.stats.speciesInstances.size()) {
      uint64_t visible = 0;
      for (uint32_t lod = 0; lod < eco::gpu::LOD_COUNT; ++lod) visible += st.stats.speciesInstances[first + lod];
      ImGui::Text("%" PRIu64, visible);
    } else {
      ImGui::TextDisabled("-");
    }
    ImGui::PopID();
  }
  ImGui::EndTable();
}

void cullingSection(eco::render::CullSettings& c) {
  if (!ImGui::CollapsingHeader("Culling and LOD")) return;
  ImGui::Checkbox("frustum culling", &c.frustum);
  ImGui::Checkbox("occlusion culling (Hi-Z)", &c.occlusion);
  ImGui::Checkbox("LOD by distance", &c.distance);
  ImGui::Checkbox("draw distance", &c.fade);
  ImGui::Checkbox("far field", &c.farField);
  ImGui::SliderFloat("LOD factor", &c.lodFactor, 1.0f, 400.0f, "%.0f x radius", ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("fade band", &c.fadeBand, 0.0f, 1.0f, "%.2f");
  for (uint32_t k = 0; k < eco::gpu::KIND_COUNT; ++k) {
    std::string label = std::string(eco::speciesKindName(uint8_t(k))) + " distance";
    // 1e9 m is the "no limit" of trees; the renderer caps every kind at the load radius
    ImGui::SliderFloat(label.c_str(), &c.drawDistance[k], 1.0f, 1e9f, "%.0f m", ImGuiSliderFlags_Logarithmic);
  }
}

void lightingSection(eco::render::ViewSettings& v) {
  if (!ImGui::CollapsingHeader("Lighting")) return;
  ImGui::Checkbox("sun shadows", &v.shadows);
  ImGui::Checkbox("water", &v.water);
  ImGui::Checkbox("fog", &v.fog);
  ImGui::Checkbox("auto exposure", &v.autoExposure);
  ImGui::SliderFloat(v.autoExposure ? "exposure bias" : "exposure", &v.exposure, 0.125f, 8.0f, "%.2f",
                     ImGuiSliderFlags_Logarithmic);
}

void legend(const LayerInfo& layer) {
  const float width = ImGui::GetContentRegionAvail().x, height = 14;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  constexpr int kSteps = 64;  // flat steps, each the ramp's colour at its centre
  for (int i = 0; i < kSteps; ++i) {
    float x0 = at.x + width * float(i) / kSteps, x1 = at.x + width * float(i + 1) / kSteps;
    draw->AddRectFilled(ImVec2(x0, at.y), ImVec2(x1, at.y + height), legendColor((float(i) + 0.5f) / kSteps));
  }
  ImGui::Dummy(ImVec2(width, height));
  ImGui::Text("%g %s", double(layer.valueMin), layer.unit.c_str());
  char text[64];
  std::snprintf(text, sizeof text, "%g %s", double(layer.valueMax), layer.unit.c_str());
  ImGui::SameLine(std::max(0.0f, width - ImGui::CalcTextSize(text).x));
  ImGui::TextUnformatted(text);
}

void overlaySection(PanelState& st) {
  if (!ImGui::CollapsingHeader("Mask overlay", ImGuiTreeNodeFlags_DefaultOpen)) return;
  int& overlay = st.view.overlay;
  if (overlay >= int(st.layers.size())) overlay = -1;
  const char* current = overlay < 0 ? "none" : st.layers[size_t(overlay)].name.c_str();
  if (ImGui::BeginCombo("layer", current)) {
    if (ImGui::Selectable("none", overlay < 0)) overlay = -1;
    for (size_t i = 0; i < st.layers.size(); ++i) {
      ImGui::PushID(int(i));
      if (ImGui::Selectable(st.layers[i].name.c_str(), overlay == int(i))) overlay = int(i);
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  if (st.layers.empty()) ImGui::TextDisabled("this bake has no mask layers");
  if (overlay < 0) return;
  ImGui::SliderFloat("opacity", &st.view.overlayOpacity, 0.0f, 1.0f, "%.2f");
  legend(st.layers[size_t(overlay)]);
}

void bookmarkSection(PanelState& st) {
  if (!ImGui::CollapsingHeader("Bookmarks")) return;
  ImGui::TextDisabled("keys 1-9 recall, Ctrl+1-9 store");
  if (!st.bookmarks) return;
  BookmarkFile& f = *st.bookmarks;
  ImGui::TextDisabled("%s", f.path.empty() ? "in memory only (--bookmarks FILE keeps them)" : f.path.c_str());
  for (int k = 1; k <= kBookmarkSlots; ++k) {
    ImGui::PushID(k);
    const std::optional<eco::render::Camera>& slot = f.marks.slots[size_t(k - 1)];
    if (ImGui::SmallButton("store")) storeBookmark(f, k, st.camera);
    ImGui::SameLine();
    if (slot) {
      if (ImGui::SmallButton("go")) {
        st.camera = *slot;
        st.cameraRecalled = true;
      }
      ImGui::SameLine();
      ImGui::Text("%d: %.0f, %.0f, %.0f  yaw %.0f  pitch %.0f", k, double(slot->position.x), double(slot->position.y),
                  double(slot->position.z), double(slot->yawDeg), double(slot->pitchDeg));
    } else {
      ImGui::TextDisabled("%d: empty", k);
    }
    ImGui::PopID();
  }
}

}  // namespace

unsigned legendColor(float t) {
  const eco::gpu::vec3 c = eco::gpu::overlayRamp(t);
  auto byte = [](float v) { return unsigned(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  return IM_COL32(byte(c.x), byte(c.y), byte(c.z), 255);
}

void drawPanels(PanelState& st) {
  st.cameraRecalled = false;
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(kPanelX, kPanelY), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(kPanelWidth, std::max(100.0f, display.y - 2 * kPanelY)), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.85f);
  if (ImGui::Begin("ecoview (F1 hides)")) {
    cameraSection(st);
    probeSection(st);
    speciesSection(st);
    overlaySection(st);
    frameSection(st.stats);
    cullingSection(st.cull);
    lightingSection(st.view);
    bookmarkSection(st);
    if (!st.status.empty()) {
      ImGui::Separator();
      ImGui::TextWrapped("%s", st.status.c_str());
    }
  }
  ImGui::End();
}

std::vector<LayerInfo> layerInfos(const eco::render::Scene& scene) {
  std::vector<LayerInfo> out;
  for (const eco::render::SceneLayer& l : scene.layers) out.push_back({l.name, l.unit, l.valueMin, l.valueMax});
  return out;
}

}  // namespace ecoview
