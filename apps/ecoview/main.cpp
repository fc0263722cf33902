// ecoview: streaming, GPU-culled viewer for ecobake output.
//   ecoview BAKE_DIR                       window (GLFW): fly / orbit camera
//   ecoview BAKE_DIR --headless ...        offscreen frames, --screenshot PNG, --stats JSON
//   ecoview --synthetic N ...              a procedural world of N instances instead of a bake
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "render/headless.h"
#include "viewer_window.h"

using namespace eco;
using namespace eco::render;

namespace {

std::vector<float> parseFloats(const std::string& text, size_t count, const char* what) {
  std::vector<float> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      v.push_back(std::stof(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw InputError(std::string(what) + ": '" + item + "' is not a number");
    }
  }
  if (v.size() != count)
    throw InputError(std::string(what) + ": expected " + std::to_string(count) + " comma-separated numbers");
  return v;
}

Camera parseCamera(const std::string& text, const char* what) {
  auto v = parseFloats(text, 5, what);
  Camera c;
  c.position = {v[0], v[1], v[2]};
  c.yawDeg = v[3];
  c.pitchDeg = v[4];
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ecoview: streaming, GPU-culled vegetation viewer"};
  std::string bakeDir, size = "1280x720", camera, cameraEnd, screenshot, statsFile;
  bool headless = false, noOcclusion = false, noFrustum = false, noLod = false, noSettle = false;
  bool validation = false, bench = false, noDrawDistance = false;
  int syntheticGrid = 257;
  int frames = 1;
  uint64_t synthetic = 0;
  float loadRadius = 1500, unloadRadius = 2000;
  double budgetM = 8;
  app.add_option("bake", bakeDir, "bake folder (manifest.json, terrain.r32f, tiles/)");
  app.add_flag("--headless", headless, "render offscreen, no window system");
  app.add_option("--frames", frames, "frames to render (headless)")->check(CLI::PositiveNumber);
  app.add_option("--size", size, "WxH");
  app.add_option("--camera", camera, "x,y,z,yaw,pitch (degrees; yaw 0 = north, 90 = east)");
  app.add_option("--camera-to", cameraEnd, "headless: move linearly to this camera over the frames");
  app.add_option("--screenshot", screenshot, "PNG of the last frame (headless)");
  app.add_option("--stats", statsFile, "per-frame statistics JSON (headless)");
  app.add_flag("--no-occlusion", noOcclusion, "disable Hi-Z occlusion culling");
  app.add_flag("--no-frustum", noFrustum, "disable frustum culling");
  app.add_flag("--no-lod", noLod, "disable LOD selection and draw distance (draw everything at LOD 0)");
  app.add_flag("--no-draw-distance", noDrawDistance, "draw every instance however far (LOD still by distance)");
  app.add_flag("--no-settle", noSettle, "headless: do not wait for streaming before each frame");
  app.add_option("--load-radius", loadRadius, "metres");
  app.add_option("--unload-radius", unloadRadius, "metres");
  app.add_option("--budget", budgetM, "resident instance budget, millions");
  app.add_flag("--validation", validation, "enable Vulkan validation layers");
  app.add_option("--synthetic", synthetic, "render a procedural world with this many instances");
  app.add_option("--synthetic-grid", syntheticGrid, "procedural world: heightmap samples per side (4 m cells)")
      ->check(CLI::Range(16, 16385));
  app.add_flag("--bench", bench, "headless benchmark mode: print one JSON line per frame");
  CLI11_PARSE(app, argc, argv);

  try {
    if (bakeDir.empty() && synthetic == 0) throw InputError("give a bake folder or --synthetic N");
    HeadlessOptions o;
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384)
      throw InputError("--size: expected WxH, got '" + size + "'");
    o.width = w;
    o.height = h;
    o.frames = frames;
    o.cull.occlusion = !noOcclusion;
    o.cull.frustum = !noFrustum;
    o.cull.distance = !noLod;
    if (noDrawDistance) o.cull.drawFactor = 1e9f;
    o.settle = !noSettle;
    o.validation = validation;
    o.screenshot = screenshot;
    o.statsFile = statsFile;
    o.stream.loadRadius = loadRadius;
    o.stream.unloadRadius = std::max(unloadRadius, loadRadius);
    o.stream.budgetInstances = uint64_t(budgetM * 1e6);

    World world;
    if (synthetic > 0) {
      SyntheticOptions so;
      so.instances = synthetic;
      so.gridSize = syntheticGrid;
      world = makeSyntheticWorld(so);
    } else {
      world = openBake(bakeDir);
    }
    float sizeX = float(world.heights.width - 1) * world.cellSize;
    float sizeZ = float(world.heights.height - 1) * world.cellSize;
    if (camera.empty()) {
      o.camera.position = {sizeX * 0.5f, world.heights.at(world.heights.width / 2, world.heights.height - 1) + 250.0f,
                           sizeZ * 0.95f};
      o.camera.pitchDeg = -20;
    } else {
      o.camera = parseCamera(camera, "--camera");
    }
    if (!cameraEnd.empty()) o.cameraEnd = parseCamera(cameraEnd, "--camera-to");

    if (!headless && !bench) return runWindow(world, o, app.count("--frames") ? frames : 0);
    HeadlessResult r = runHeadless(world, o);
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
    std::fprintf(stderr, "ecoview: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ecoview: %s\n", e.what());
    return 1;
  }
}
