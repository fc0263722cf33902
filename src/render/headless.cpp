#include "render/headless.h"

#include <cctype>
#include <csignal>
#include <cstdlib>
#include <filesystem>

#include <time.h>

#include <spdlog/spdlog.h>
#include <unistd.h>
#include <stdexcept>

#include <imgui.h>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include <stb/stb_image_write.h>

namespace eco::render {

namespace {
// The terrain nodes drawn per shading key (render/terrain_draw.h), the keys in use only: an
// object of key (decimal) to count.
nlohmann::json shadingCounts(const FrameStats& s) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [key, nodes] : s.terrainShadings) o[std::to_string(key)] = nodes;
  return o;
}

Camera lerpCamera(const Camera& a, const Camera& b, float t) {
  Camera c = a;
  c.position = a.position + (b.position - a.position) * t;
  c.yawDeg = a.yawDeg + (b.yawDeg - a.yawDeg) * t;
  c.pitchDeg = a.pitchDeg + (b.pitchDeg - a.pitchDeg) * t;
  return c;
}

// A private ImGui context for the run, the caller's (if any) current again afterwards.
class ImGuiScope {
 public:
  ImGuiScope() : previous_(ImGui::GetCurrentContext()), mine_(ImGui::CreateContext()) {
    ImGui::SetCurrentContext(mine_);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini: the viewer writes no files it was not asked for
    io.LogFilename = nullptr;
  }
  ~ImGuiScope() {
    ImGui::DestroyContext(mine_);
    ImGui::SetCurrentContext(previous_);
  }
  ImGuiScope(const ImGuiScope&) = delete;
  ImGuiScope& operator=(const ImGuiScope&) = delete;

 private:
  ImGuiContext* previous_;
  ImGuiContext* mine_;
};
}  // namespace

HeadlessResult runHeadless(const Scene& world, const ViewerOptions& o) {
  Context ctx;
  std::string why;
  ContextOptions co;
  co.validation = o.validation;
  if (!createContext(ctx, co, &why)) throw std::runtime_error("no Vulkan device: " + why);
  HeadlessResult result;
  result.device = ctx.properties.deviceName;
  {
    RendererOptions ro = o.renderer;
    ro.width = o.width;
    ro.height = o.height;
    ro.capture = true;
    Renderer renderer(ctx, world, ro);
    renderer.setView(o.view);
    std::optional<ImGuiScope> imgui;
    std::optional<UiRenderer> ui;
    if (o.ui) {
      imgui.emplace();
      ui.emplace(ctx, VK_FORMAT_R8G8B8A8_UNORM);
    }
    // The UI of frame f, recorded by the overlay hook: no input, the frame's size, 60 Hz.
    auto uiHooks = [&](int f) {
      FrameHooks hooks;
      if (!ui) return hooks;
      ImGuiIO& io = ImGui::GetIO();
      io.DisplaySize = ImVec2(float(o.width), float(o.height));
      io.DeltaTime = 1.0f / 60.0f;
      FrameStats previous = result.frames.empty() ? FrameStats{} : result.frames.back();
      // auto-sized windows measure themselves in their first frame and draw from the second
      for (int pass = f == 0 ? 0 : 1; pass < 2; ++pass) {
        ImGui::NewFrame();
        if (o.uiPanels) o.uiPanels(previous);
        ImGui::Render();
      }
      result.uiRect = uiBounds(ImGui::GetDrawData());
      // the renderer's slot of this frame: frame f is the renderer's f-th submission
      hooks.overlay = [&ui, f](VkCommandBuffer cmd, const GpuImage& color) {
        ui->record(cmd, color, ImGui::GetDrawData(), uint32_t(f) % kFramesInFlight);
      };
      return hooks;
    };
    for (int f = 0; f < o.frames; ++f) {
      float t = o.frames > 1 ? float(f) / float(o.frames - 1) : 0.0f;
      Camera cam = o.cameraEnd ? lerpCamera(o.camera, *o.cameraEnd, t) : o.camera;
      if (const float raised = keepAboveGround(world, cam); raised > 0 && !result.cameraLifted) {
        result.cameraLifted = true;
        spdlog::warn("frame {}: the camera at ({:.1f}, {:.1f}, {:.1f}) is less than {:.0f} m above the ground ({:.1f} m "
                     "there); raised to {:.1f} m",
                     f, cam.position.x, cam.position.y - raised, cam.position.z, kMinEyeHeight,
                     cam.position.y - kMinEyeHeight, cam.position.y);
      }
      if (o.settle) {
        // reproducible pictures: everything around the camera resident, each frame waited for
        renderer.settleStreaming(cam);
        // the first frame's exposure settled; each later one takes the previous frame's
        // metering at once (reproducible, one render per frame)
        renderer.setExposureAtOnce(true);
        if (f == 0) renderer.settleExposure(cam, o.cull);
        FrameHooks hooks = uiHooks(f);
        result.frames.push_back(renderer.render(cam, o.cull, &hooks));
      } else {
        // as the window runs: frames in flight, streaming and uploads within their budgets
        for (FrameStats& s : renderer.beginFrame()) result.frames.push_back(s);
        FrameHooks hooks = uiHooks(f);
        renderer.submitFrame(cam, o.cull, &hooks);
      }
      if (stopRequested()) break;
    }
    for (FrameStats& s : renderer.drain()) result.frames.push_back(s);
    result.pixels = renderer.pixels();
  }
  result.validationErrors = ctx.validationErrors;
  destroyContext(ctx);
  // an interrupted run writes nothing: its outputs would pass for a complete run's
  if (stopRequested()) return result;
  if (!o.screenshot.empty()) writeScreenshot(o.screenshot, o.width, o.height, result.pixels);
  if (!o.statsFile.empty()) {
    std::string text = statsJson(result, o) + "\n";
    writeFileAtomic(o.statsFile, text.data(), text.size());
  }
  return result;
}

std::string statsJson(const HeadlessResult& r, const ViewerOptions& o) {
  using nlohmann::json;
  auto ms = [](double v) { return v < 0 ? json(nullptr) : json(v); };
  json frames = json::array();
  for (const FrameStats& s : r.frames) {
    frames.push_back({{"frame", s.frame},
                      {"cpu_ms", s.cpuMs},
                      {"cpu_submit_wall_ms", s.submitMs},
                      {"cpu_wait_ms", s.waitMs},
                      {"gpu_ms", ms(s.gpuMs)},
                      {"gpu_terrain_ms", ms(s.terrainMs)},
                      {"gpu_pyramid_ms", ms(s.pyramidMs)},
                      {"gpu_cull_ms", ms(s.cullMs)},
                      {"gpu_shadow_ms", ms(s.shadowMs)},
                      {"gpu_color_ms", ms(s.colorMs)},
                      {"terrain_triangles", s.terrainTriangles},
                      {"terrain_nodes_by_shading", shadingCounts(s)},
                      {"terrain_fallback_nodes", s.terrainFallbackNodes},
                      {"instances_resident", s.resident},
                      {"instances_tested", s.tested},
                      {"visible_after_frustum", s.afterFrustum},
                      {"visible_after_occlusion", s.afterOcclusion},
                      {"vegetation_draw_calls", s.drawCalls},
                      {"vegetation_draw_commands", s.drawCommands},
                      {"vegetation_draw_commands_nonempty", s.nonEmptyDraws},
                      {"species_instances", s.speciesInstances},
                      {"vegetation_triangles", s.vegetationTriangles},
                      {"shadows", s.shadows},
                      {"shadow_instances", s.shadowInstances},
                      {"shadow_triangles", s.shadowTriangles},
                      {"tiles_resident", s.tilesResident},
                      {"tile_loads", s.tileLoads},
                      {"tile_unloads", s.tileUnloads},
                      {"uploaded_bytes", s.uploadedBytes},
                      {"resident_bytes", s.residentBytes},
                      // per record held: the far trees' copies count as instances
                      {"resident_bytes_per_instance", s.resident + s.farTrees > 0
                                                          ? json(double(s.residentBytes) / double(s.resident + s.farTrees))
                                                          : json(nullptr)},
                      {"staged_uploads", s.staged},
                      {"far_field_bytes", s.farFieldBytes},
                      {"far_trees_resident", s.farTrees},
                      {"far_trees_as_cards", s.farCards},
                      {"exposure", s.exposure},
                      {"auto_exposure", s.metered}});
  }
  json doc = {{"device", r.device},
              {"width", o.width},
              {"height", o.height},
              {"frustum_culling", o.cull.frustum},
              {"occlusion_culling", o.cull.occlusion},
              {"validation_errors", r.validationErrors},
              {"frames", frames}};
  return doc.dump(2);
}

void writeScreenshot(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba) {
  if (rgba.size() < size_t(width) * size_t(height) * 4)
    throw std::logic_error(path + ": fewer pixels than " + std::to_string(width) + "x" + std::to_string(height));
  std::vector<uint8_t> png;
  auto append = [](void* context, void* data, int size) {
    auto* out = static_cast<std::vector<uint8_t>*>(context);
    out->insert(out->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
  };
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".jpg" || ext == ".jpeg") {
    if (!stbi_write_jpg_to_func(append, &png, width, height, 4, rgba.data(), 90))
      throw std::runtime_error(path + ": JPEG encoding failed");
  } else if (!stbi_write_png_to_func(append, &png, width, height, 4, rgba.data(), width * 4)) {
    throw std::runtime_error(path + ": PNG encoding failed");
  }
  writeFileAtomic(path, png.data(), png.size());
}

}  // namespace eco::render

namespace eco::render {
namespace {
volatile std::sig_atomic_t gStopSignal = 0;
volatile std::sig_atomic_t gStopSecond = 0;  // CLOCK_MONOTONIC second of the first signal
extern "C" void onStopSignal(int sig) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  if (gStopSignal == 0) {
    gStopSignal = sig;
    gStopSecond = std::sig_atomic_t(now.tv_sec);
  } else if (now.tv_sec - gStopSecond >= 2) {
    // asked again after a while: the user wants out now. (Tools such as timeout(1) send one
    // signal to the process and one to its group at once; those must not kill it mid-frame.)
    _exit(128 + sig);
  }
}
}  // namespace

void installStopHandlers() {
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
}
bool stopRequested() { return gStopSignal != 0; }
int stopSignal() { return gStopSignal; }

}  // namespace eco::render
