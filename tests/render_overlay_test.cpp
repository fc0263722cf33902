// The viewer over real bakes (#20): a mask overlay paints the terrain in the legend's colours
// of the layer's values at known pixels, and a species with a glTF mesh draws that mesh: its
// draw records carry the file's own triangle count (read here from the GLB's JSON) per LOD.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "bake/bake.h"
#include "bake_world.h"
#include "render/headless.h"
#include "render/renderer.h"
#include "render_support.h"
#include "shaders/overlay_ramp.h"
#include "test_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::test::TempDir;

namespace {

// Where world point p lands on the screen (the frame's own matrix; Vulkan ndc y points down).
bool project(const gpu::FrameData& f, Vec3 p, int width, int height, int& x, int& y) {
  auto row = [&](int i) { return double(f.clip[i].x * p.x + f.clip[i].y * p.y + f.clip[i].z * p.z + f.clip[i].w); };
  double w = row(3);
  if (w <= 0) return false;
  x = int(std::floor((row(0) / w * 0.5 + 0.5) * width));
  y = int(std::floor((row(1) / w * 0.5 + 0.5) * height));
  return x >= 0 && y >= 0 && x < width && y < height;
}

std::string bakeRidge(const TempDir& dir, const std::string& config) {
  World world = loadWorld(config);
  BakeOptions o;
  o.outDir = dir.file("bake");
  o.threads = 2;
  o.maskLayers = true;
  bake(world, o);
  return o.outDir;
}

TEST(RenderOverlay, TerrainTakesTheLegendColourOfTheLayersValue) {
  if (!fixtures::haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  TempDir dir;
  Scene world = openBake(bakeRidge(dir, test::writeRiverRidgeWorld(dir)));
  int elevation = -1;
  for (size_t i = 0; i < world.layers.size(); ++i)
    if (world.layers[i].name == "elevation") elevation = int(i);
  ASSERT_GE(elevation, 0);
  const SceneLayer& layer = world.layers[size_t(elevation)];

  ViewerOptions o;
  o.width = o.height = 256;
  o.validation = true;
  o.camera = camera(512, 1600, 512, 0, -89.9f);
  o.cull.drawDistance.fill(0);  // the terrain alone
  o.cull.farField = false;
  o.view.fog = false;
  o.view.water = false;
  o.view.overlay = elevation;
  o.view.overlayOpacity = 1;
  ViewerOptions plain = o;
  plain.view.overlay = -1;
  HeadlessResult shown = runHeadless(world, o), lit = runHeadless(world, plain);
  EXPECT_EQ(shown.validationErrors, 0);

  gpu::FrameData f = makeFrameData(o.camera, o.width, o.height, o.cull);
  int judged = 0, matching = 0, matchingPlain = 0;
  for (int j = 4; j < layer.height - 4; j += 6)
    for (int i = 4; i < layer.width - 4; i += 6) {
      Vec3 p{float(i) * world.cellSize, world.heights.at(i, j), float(j) * world.cellSize};
      int x, y;
      if (!project(f, p, o.width, o.height, x, y)) continue;
      // the legend's colour of the layer's value here: (value - min) / (max - min) through the ramp
      float t = (layer.value(i, j) - layer.valueMin) / (layer.valueMax - layer.valueMin);
      gpu::vec3 c = gpu::overlayRamp(t);
      const float expected[3] = {c.x * 255, c.y * 255, c.z * 255};
      auto near = [&](const std::vector<uint8_t>& pixels) {
        const uint8_t* px = &pixels[(size_t(y) * size_t(o.width) + size_t(x)) * 4];
        for (int k = 0; k < 3; ++k)
          if (std::abs(float(px[k]) - expected[k]) > 6) return false;
        return true;
      };
      ++judged;
      matching += near(shown.pixels);
      matchingPlain += near(lit.pixels);
    }
  ASSERT_GT(judged, 500);
  EXPECT_GE(matching, judged * 97 / 100) << matching << " of " << judged << " pixels in the legend's colour";
  EXPECT_LT(matchingPlain, judged / 10) << "without the overlay the terrain is not in the ramp's colours";
}

// The triangles of a GLB's triangle primitives, from its JSON chunk (indexed: the index
// accessor's count / 3).
uint32_t glbTriangles(const std::string& path) {
  std::string bytes = test::readBytes(path);
  uint32_t jsonLength;
  std::memcpy(&jsonLength, bytes.data() + 12, 4);
  nlohmann::json j = nlohmann::json::parse(bytes.substr(20, jsonLength));
  uint32_t triangles = 0;
  for (const auto& mesh : j["meshes"])
    for (const auto& prim : mesh["primitives"]) triangles += j["accessors"][prim["indices"].get<size_t>()]["count"].get<uint32_t>() / 3;
  return triangles;
}

TEST(RenderOverlay, AGltfSpeciesDrawsItsOwnTrianglesPerLod) {
  if (!fixtures::haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  TempDir dir;
  std::string config = test::writeRidgeWorld(dir);
  std::string text = test::readBytes(config);
  const std::string pine = R"("mesh": {"height": 20, "crown_radius": 3})";
  const std::string glb = test::sourceDir() + "/samples/world/meshes/cottonwood.glb";
  ASSERT_NE(text.find(pine), std::string::npos);
  // a conifer's form: its procedural fallback (134 triangles) differs from the file's mesh
  text.replace(text.find(pine), pine.size(),
               R"("mesh": {"height": 20, "crown_radius": 3, "form": "conifer", "file": ")" + glb + "\"}");
  std::ofstream(config) << text;
  const std::string bakeDir = bakeRidge(dir, config);
  Scene world = openBake(bakeDir);
  ASSERT_FALSE(world.species[0].meshFile.empty());
  const uint32_t fileTriangles = glbTriangles(bakeDir + "/" + world.species[0].meshFile);
  ASSERT_GT(fileTriangles, 100u);

  Context ctx;
  ContextOptions co;
  co.validation = true;
  ASSERT_TRUE(createContext(ctx, co, nullptr));
  {
    RendererOptions ro;
    ro.width = 192;
    ro.height = 108;
    ro.stream.loadRadius = ro.stream.unloadRadius = 5000;
    Renderer renderer(ctx, world, ro);
    Camera cam = camera(512, 600, 1300, 0, -30);
    renderer.settleStreaming(cam);
    CullSettings cull;
    cull.lodFactor = 60;  // both LODs of the trees in view
    FrameStats s = renderer.render(cam, cull);
    std::vector<gpu::DrawCommand> cmds = renderer.drawCommands();
    const gpu::DrawCommand &lod0 = cmds[0], &lod1 = cmds[1];  // species 0, the camera's records
    EXPECT_EQ(lod0.indexCount, 3 * fileTriangles) << "LOD 0 is the file's mesh";
    EXPECT_LT(lod1.indexCount, lod0.indexCount) << "LOD 1 is simplified";
    EXPECT_GT(lod1.indexCount, 0u);
    EXPECT_EQ(renderer.speciesMeshes()[0].triangles[0], fileTriangles);
    EXPECT_NE(renderer.speciesMeshes()[0].source.find("0.glb"), std::string::npos) << renderer.speciesMeshes()[0].source;
    // the other species keep their procedural meshes: a different triangle count
    EXPECT_NE(cmds[2].indexCount, lod0.indexCount);
    EXPECT_GT(lod0.instanceCount, 0u);
    EXPECT_GT(lod1.instanceCount, 0u);
    // the statistics count each record's instances times its own mesh's triangles
    uint64_t triangles = 0;
    for (size_t d = 0; d < s.speciesInstances.size(); ++d) triangles += uint64_t(s.speciesInstances[d]) * cmds[d].indexCount / 3;
    EXPECT_EQ(s.vegetationTriangles, triangles);
  }
  destroyContext(ctx);
  EXPECT_EQ(ctx.validationErrors.load(), 0);
}

}  // namespace
