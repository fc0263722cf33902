// ecoview: streaming, GPU-culled viewer for ecobake output.
//   ecoview BAKE_DIR                       window (GLFW): fly / orbit camera
//   ecoview BAKE_DIR --headless ...        offscreen frames, --screenshot PNG, --stats JSON
//   ecoview --synthetic N ...              a procedural world of N instances instead of a bake
//   --ui (headless: draw the panels into the pictures), --bookmarks FILE (camera bookmarks)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/file_io.h"
#include "core/parse_number.h"
#include "render/headless.h"
#include "bookmarks.h"
#include "ui_panels.h"
#include "viewer_window.h"

using namespace eco;
using namespace eco::render;

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (;;) {
    size_t at = text.find(separator, begin);
    parts.push_back(text.substr(begin, at == std::string::npos ? std::string::npos : at - begin));
    if (at == std::string::npos) return parts;
    begin = at + 1;
  }
}

// Positions beyond this are no terrain a bake can describe and lose all float precision.
constexpr double kMaxCoordinate = 1e8;  // metres

Camera parseCamera(const std::string& text, const char* option) {
  std::vector<std::string> v = split(text, ',');
  if (v.size() != 5) throw InputError(std::string(option) + ": expected x,y,z,yaw,pitch (5 comma-separated numbers)");
  const std::string o = option;
  Camera c;
  c.position = {float(parseReal(v[0], o + " x", -kMaxCoordinate, kMaxCoordinate)),
                float(parseReal(v[1], o + " y", -kMaxCoordinate, kMaxCoordinate)),
                float(parseReal(v[2], o + " z", -kMaxCoordinate, kMaxCoordinate))};
  c.yawDeg = float(parseReal(v[3], o + " yaw", -3600, 3600));
  // +-90 exactly would look along the up axis, where the camera basis has no right vector
  c.pitchDeg = float(parseReal(v[4], o + " pitch", -89.9, 89.9));
  return c;
}

// One line on stderr whatever the message holds (a path may contain a newline).
void printError(const std::string& message) {
  std::fprintf(stderr, "ecoview: %s\n", printableLine(message).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  installStopHandlers();
  // log lines on stderr: stdout carries --bench's JSON
  spdlog::set_default_logger(spdlog::stderr_color_mt("ecoview"));
  spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
  CLI::App app{"ecoview: streaming, GPU-culled vegetation viewer"};
  std::string bakeDir, size = "1280x720", camera, cameraEnd, screenshot, statsFile;
  bool headless = false, noOcclusion = false, noFrustum = false, noLod = false, noSettle = false;
  bool validation = false, bench = false, noDrawDistance = false, noFarField = false;
  std::string frames = "1", synthetic, syntheticGrid = "257", loadRadius = "1500", unloadRadius = "2000", budget = "8", uploadBudget = "2", uploadMs = "0.5";
  std::string farTrees = std::to_string(render::kDefaultFarTrees);
  bool stagedUploads = false, noShadows = false, noFog = false, noWater = false, ui = false, noAutoExposure = false;
  std::string exposure = "1", msaa = "4", shadowMap = "1024", shadowDistance = "1500", overlay, hide, bookmarksPath;
  app.add_option("bake", bakeDir, "bake folder (manifest.json, terrain.r32f, tiles/)");
  app.add_flag("--headless", headless, "render offscreen, no window system");
  app.add_option("--frames", frames, "frames to render (headless), 1 to 1000000");
  app.add_option("--size", size, "WxH, each 1 to 16384");
  app.add_option("--camera", camera, "x,y,z,yaw,pitch (degrees; yaw 0 = north, 90 = east; pitch -89.9 to 89.9)");
  app.add_option("--camera-to", cameraEnd, "headless: move linearly to this camera over the frames");
  app.add_option("--screenshot", screenshot, "PNG (or JPEG for .jpg/.jpeg) of the last frame (headless)");
  app.add_option("--stats", statsFile, "per-frame statistics JSON (headless)");
  app.add_flag("--no-occlusion", noOcclusion, "disable Hi-Z occlusion culling");
  app.add_flag("--no-frustum", noFrustum, "disable frustum culling");
  app.add_flag("--no-lod", noLod, "disable LOD selection and draw distance (draw everything at LOD 0)");
  app.add_flag("--no-draw-distance", noDrawDistance, "draw every resident instance however far (LOD still by distance; no far-field hand-over)");
  app.add_flag("--no-far-field", noFarField, "draw nothing for the vegetation beyond the instances' draw distance");
  app.add_flag("--no-settle", noSettle, "headless: do not wait for streaming before each frame");
  app.add_option("--load-radius", loadRadius, "metres, 0 to 1e8");
  app.add_option("--unload-radius", unloadRadius, "metres, 0 to 1e8 (at least the load radius)");
  app.add_option("--budget", budget, "resident instance budget, millions (1e-6 to 1000)");
  app.add_option("--far-trees", farTrees,
                 "trees of sparse stands kept resident past the load radius and drawn where the sky is behind "
                 "them (the far field's layer stands for them elsewhere), at most this many, thinned evenly "
                 "past it (0 to 1e8; 0: none; default 32768, 0.5 MiB at most)");
  app.add_option("--upload-budget", uploadBudget, "tile data uploaded per frame, MiB (0.02 to 4096); nearest tiles first");
  app.add_option("--upload-ms", uploadMs, "CPU time for uploads per frame, ms (0.01 to 1000; at least one 16 KiB page)");
  app.add_flag("--staged-uploads", stagedUploads,
               "upload through staging buffers even where video memory is host-visible (the discrete-GPU path)");
  app.add_flag("--validation", validation, "enable Vulkan validation layers");
  app.add_flag("--no-shadows", noShadows, "no sun shadows (cascaded shadow maps)");
  app.add_flag("--no-fog", noFog, "no distance fog or aerial perspective");
  app.add_flag("--no-water", noWater, "do not draw the bake's rivers as water");
  app.add_option("--exposure", exposure,
                 "scene brightness before tone mapping, 0.01 to 100: a bias on the auto-exposure (1: as metered)");
  app.add_flag("--no-auto-exposure", noAutoExposure,
               "do not meter the picture: --exposure alone sets the brightness (comparisons between frames)");
  app.add_option("--msaa", msaa, "samples per pixel of the colour pass: 1, 2, 4 or 8 (lowered to what the device offers)");
  app.add_option("--shadow-map", shadowMap, "texels per side of each shadow cascade, 64 to 4096");
  app.add_option("--shadow-distance", shadowDistance, "metres of view depth that receive shadows, 10 to 1e5");
  app.add_option("--overlay", overlay, "show this mask layer of the bake on the terrain (ecobake bake --layers; names: ecobake inspect)");
  app.add_option("--hide", hide, "species names to hide, comma-separated");
  app.add_option("--synthetic", synthetic, "render a procedural world with this many instances (1 to 1e9)");
  app.add_option("--synthetic-grid", syntheticGrid, "procedural world: heightmap samples per side (4 m cells), 16 to 16385");
  app.add_flag("--ui", ui, "headless: draw the on-screen panels into the frames (the window shows them; F1 hides)");
  app.add_option("--bookmarks", bookmarksPath,
                 "camera bookmarks JSON, read at start and rewritten on each store (Ctrl+1-9); default: in memory only");
  app.add_flag("--bench", bench, "headless benchmark mode: print one JSON line per frame");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    printError(std::string(e.what()) + " (see --help)");
    return 2;
  }

  try {
    ViewerOptions o;
    // Numeric options arrive as text and are parsed strictly (core/parse_number.h), every one
    // before any file is read: finite, decimal and within a range the viewer can honour.
    o.frames = int(parseInteger(frames, "--frames", 1, 1'000'000));
    std::vector<std::string> wh = split(size, 'x');
    if (wh.size() != 2) throw InputError("--size: expected WxH, got '" + size + "'");
    o.width = int(parseInteger(wh[0], "--size width", 1, 16384));
    o.height = int(parseInteger(wh[1], "--size height", 1, 16384));
    float load = float(parseReal(loadRadius, "--load-radius", 0, kMaxCoordinate));
    float unload = float(parseReal(unloadRadius, "--unload-radius", 0, kMaxCoordinate));
    // at least one instance, and no more than a GPU could index (the device clamps further)
    double budgetM = parseReal(budget, "--budget", 1e-6, 1000);
    double uploadMiB = parseReal(uploadBudget, "--upload-budget", 0.02, 4096);
    const uint64_t farTreeCount = uint64_t(parseInteger(farTrees, "--far-trees", 0, 100'000'000));
    double uploadMsPerFrame = parseReal(uploadMs, "--upload-ms", 0.01, 1000);
    uint64_t syntheticCount = synthetic.empty() ? 0 : uint64_t(parseInteger(synthetic, "--synthetic", 1, 1'000'000'000));
    int grid = int(parseInteger(syntheticGrid, "--synthetic-grid", 16, 16385));
    if (!camera.empty()) o.camera = parseCamera(camera, "--camera");
    if (!cameraEnd.empty()) o.cameraEnd = parseCamera(cameraEnd, "--camera-to");
    if (bakeDir.empty() && syntheticCount == 0) throw InputError("give a bake folder or --synthetic N");
    // outputs are written after the frames; a folder given as a file would only fail then
    for (auto [option, path] : {std::pair{"--screenshot", &screenshot}, std::pair{"--stats", &statsFile},
                                std::pair{"--bookmarks", &bookmarksPath}})
      if (!path->empty() && std::filesystem::is_directory(*path))
        throw InputError(std::string(option) + ": " + *path + " is a folder");
      else if (!path->empty() && !bakeDir.empty() && isInsideFolder(*path, bakeDir))
        throw InputError(std::string(option) + ": " + *path + " is inside the bake being viewed; write it elsewhere");

    o.cull.occlusion = !noOcclusion;
    o.cull.frustum = !noFrustum;
    o.cull.distance = !noLod;
    o.cull.fade = !noDrawDistance && !noLod;
    o.cull.farField = !noFarField;
    o.settle = !noSettle;
    o.validation = validation;
    o.screenshot = screenshot;
    o.statsFile = statsFile;
    o.renderer.stream.loadRadius = load;
    o.renderer.stream.unloadRadius = std::max(unload, load);
    o.renderer.stream.budgetInstances = std::max<uint64_t>(1, uint64_t(std::llround(budgetM * 1e6)));
    o.renderer.uploadBytesPerFrame = uint64_t(std::llround(uploadMiB * 1048576.0));
    o.renderer.farTrees = farTreeCount;
    o.renderer.uploadMsPerFrame = uploadMsPerFrame;
    if (stagedUploads) o.renderer.upload = UploadPath::Staged;
    o.view.shadows = !noShadows;
    o.view.fog = !noFog;
    o.view.water = !noWater;
    o.view.exposure = float(parseReal(exposure, "--exposure", 0.01, 100));
    o.view.autoExposure = !noAutoExposure;
    o.renderer.shadows.mapSize = uint32_t(parseInteger(shadowMap, "--shadow-map", 64, 4096));
    o.renderer.samples = uint32_t(parseInteger(msaa, "--msaa", 1, 8));
    if ((o.renderer.samples & (o.renderer.samples - 1)) != 0) throw InputError("--msaa: expected 1, 2, 4 or 8, got " + msaa);
    o.renderer.shadows.distance = float(parseReal(shadowDistance, "--shadow-distance", 10, 1e5));

    Scene world;
    if (syntheticCount > 0) {
      SyntheticOptions so;
      so.instances = syntheticCount;
      so.gridSize = grid;
      world = makeSyntheticScene(so);
    } else {
      world = openBake(bakeDir);
    }
    if (camera.empty()) o.camera = defaultCamera(world, o.width, o.height);  // the whole world in view
    for (const std::string& name : split(hide, ',')) {
      if (name.empty()) continue;
      auto it = std::find_if(world.species.begin(), world.species.end(), [&](const SpeciesRecord& s) { return s.name == name; });
      if (it == world.species.end()) throw InputError("--hide: no species '" + name + "' in this bake");
      o.view.hiddenSpecies.set(size_t(it - world.species.begin()));
    }
    if (!overlay.empty()) {
      auto it = std::find_if(world.layers.begin(), world.layers.end(), [&](const SceneLayer& l) { return l.name == overlay; });
      if (it == world.layers.end()) {
        std::string names;
        for (const SceneLayer& l : world.layers) names += (names.empty() ? "" : ", ") + l.name;
        throw InputError("--overlay: no layer '" + overlay + "' in this bake (" +
                         (names.empty() ? "it has none; bake with --layers masks" : "layers: " + names) + ")");
      }
      o.view.overlay = int(it - world.layers.begin());
    }

    if (!headless && !bench) {
      int rc = runWindow(world, o, app.count("--frames") ? o.frames : 0, bookmarksPath);
      return stopRequested() ? 128 + stopSignal() : rc;
    }
    // headless panels: as the window draws them, without input (so nothing changes); the
    // bookmarks are read for the list but never written (nothing stores them)
    ecoview::BookmarkFile bookmarks = ecoview::openBookmarks(bookmarksPath, o.camera);
    if (!bookmarks.warning.empty()) spdlog::warn("{}", bookmarks.warning);
    ecoview::PanelState panel;
    panel.scene = &world;
    panel.cull = o.cull;
    panel.view = o.view;
    panel.layers = ecoview::layerInfos(world);
    panel.camera = o.camera;
    // no cursor headless: the probe reads the ground at the screen's centre
    panel.probed = pickTerrain(world, o.camera, o.width, o.height, 0.5f * float(o.width), 0.5f * float(o.height), panel.probe);
    panel.bookmarks = &bookmarks;
    panel.status = bookmarks.warning;
    o.ui = ui;
    o.uiPanels = [&panel](const FrameStats& previous) {
      panel.stats = previous;
      ecoview::drawPanels(panel);
    };
    HeadlessResult r = runHeadless(world, o);
    if (stopRequested()) {
      printError("interrupted by signal " + std::to_string(stopSignal()) + " after " + std::to_string(r.frames.size()) +
                 " frames; no outputs written");
      return 128 + stopSignal();
    }
    if (bench) {
      std::puts(statsJson(r, o).c_str());
    } else {
      const FrameStats& s = r.frames.back();
      spdlog::info("{}: {} frames, last: resident {}, frustum {}, occlusion {}, tiles {}, gpu {:.2f} ms",
                   r.device, r.frames.size(), s.resident, s.afterFrustum, s.afterOcclusion, s.tilesResident, s.gpuMs);
    }
    if (r.validationErrors > 0) {
      spdlog::error("{} validation errors", r.validationErrors);
      return 1;
    }
    return 0;
  } catch (const InputError& e) {
    printError(e.what());
    return 2;
  } catch (const std::exception& e) {
    printError(e.what());
    return 1;
  }
}
