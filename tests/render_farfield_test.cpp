// The far field: the survey's texel layout, the default camera's framing, and on an aerial
// view, the mean luminance per block of pixels with a small streaming radius (most of the view
// beyond the instances, drawn by the far field) against everything loaded and drawn as instances.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/far_field.h"
#include "render/headless.h"
#include "render_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::haveVulkan;
using eco::render::fixtures::smallWorld;

namespace {

Scene tileGrid(int tilesPerSide, float tileSize) {
  Scene w;
  w.tileSize = tileSize;
  for (int z = 0; z < tilesPerSide; ++z)
    for (int x = 0; x < tilesPerSide; ++x)
      w.tiles.push_back(
          {x, z, 0, float(x) * tileSize, float(z) * tileSize, float(x + 1) * tileSize, float(z + 1) * tileSize, {}});
  return w;
}

TEST(RenderFarField, LayoutTexelsDivideTilesAndTheImageStaysWithin2048) {
  FarFieldLayout small = farFieldLayout(makeSyntheticScene(smallWorld(0)));  // 4 x 4 tiles of 256 m
  EXPECT_EQ(small.texelsPerTile, 32u);
  EXPECT_FLOAT_EQ(small.texelSize, 8.0f);
  EXPECT_EQ(small.width, 128u);
  EXPECT_EQ(small.mips, 6u);  // 8 m .. 256 m (one texel per tile)
  FarFieldLayout sample = farFieldLayout(tileGrid(50, 128));
  EXPECT_EQ(sample.texelsPerTile, 16u);
  EXPECT_EQ(sample.width, 800u);
  FarFieldLayout big = farFieldLayout(tileGrid(1000, 128));  // 128 km: 64 m texels
  EXPECT_EQ(big.texelsPerTile, 2u);
  EXPECT_LE(big.width, kFarFieldMaxSize);
  EXPECT_EQ(farFieldLayout(tileGrid(2100, 128)).texelsPerTile, 0u) << "over 2048 tiles a side: no far field";
  EXPECT_EQ(farFieldLayout(Scene{}).texelsPerTile, 0u);
}

// Projection written from the camera definition (camera.h: basis, vertical field of view,
// x scaled by the aspect ratio), not from makeFrameData's matrix.
void expectCornersInside(const Scene& world, int width, int height) {
  Camera cam = defaultCamera(world, width, height);
  CameraBasis b = cameraBasis(cam);
  double t = std::tan(double(cam.fovYDeg) * 3.14159265358979 / 360.0), aspect = double(width) / height;
  double extent = 0;
  for (int i = 0; i < 4; ++i) {
    int gx = (i & 1) ? world.heights.width - 1 : 0, gz = (i & 2) ? world.heights.height - 1 : 0;
    Vec3 p{float(gx) * world.cellSize, world.heights.at(gx, gz), float(gz) * world.cellSize};
    Vec3 rel = p - cam.position;
    double z = double(dot(rel, b.forward));
    ASSERT_GT(z, cam.nearPlane) << "corner " << i << " behind the camera";
    double x = double(dot(rel, b.right)) / (z * t * aspect), y = double(dot(rel, b.up)) / (z * t);
    EXPECT_LT(std::abs(x), 1.0) << width << "x" << height << " corner " << i;
    EXPECT_LT(std::abs(y), 1.0) << width << "x" << height << " corner " << i;
    extent = std::max({extent, std::abs(x), std::abs(y)});
  }
  EXPECT_GT(extent, 0.6) << "the world fills the view rather than a speck of it";
  EXPECT_LT(cam.pitchDeg, -20.0f) << "looking down on it";
}

namespace {

// The far-field layout of one 128 m tile of 8 m texels: 16 a side, 5 mips.
FarFieldLayout oneTileLayout() {
  FarFieldLayout l;
  l.texelsPerTile = 16;
  l.texelSize = 8;
  l.width = l.height = 16;
  l.mips = 5;
  return l;
}

Instance plantAt(float x, float z, uint16_t species) {
  Instance in{};
  in.position = {x, 0, z};
  in.scale = 1;
  in.species = species;
  return in;
}

}  // namespace

// Coarser far-field mips keep the mean transmittance of the texels they stand for, not their
// mean crown density (the shader's cover 1 - exp(-a A s) is concave: averaged density filled a
// stand's gaps). One 128 m tile of 8 m texels, trees of crown radius 2 m on a 4 m grid over its
// west half: 0.785 crown area per ground area there, none east. The one-texel mip must hold
// the density d with exp(-0.7 d) = (exp(-0.7 * 0.785) + 1) / 2, i.e. 0.339, not the mean 0.393.
TEST(RenderFarField, CoarseMipsKeepTheMeanTransmittance) {
  SceneTile tile;
  tile.maxX = tile.maxZ = 128;
  SpeciesRecord tree;
  tree.kind = 0;
  tree.crownRadius = 2;
  std::vector<Instance> trees;
  for (float x = 2; x < 64; x += 4)
    for (float z = 2; z < 128; z += 4) trees.push_back(plantAt(x, z, 0));
  std::vector<double> crownArea(1, 0.0);
  const FarFieldBlock b = surveyTile(tile, trees, {tree}, oneTileLayout(), {}, crownArea);
  // levels of 5 layers (4 kinds, then their densities side by side) x side^2 RGBA8 texels: 16,
  // 8, 4, 2, 1 texels a side; the trees' density is channel 0 of the fifth
  size_t coarsest = 0;
  for (uint32_t side = 16; side > 1; side /= 2) coarsest += 5 * side * side * 4;
  ASSERT_EQ(b.texels.size(), coarsest + 5 * 4);
  const float coverMaxes[4] = {FAR_COVER_MAX};
  const double coverMax[1] = {double(coverMaxes[0])};
  const double west = 3.14159265358979 * 4 / 16;  // a crown of radius 2 per 4 x 4 m
  const size_t cover = 4 * 256 * 4;
  EXPECT_NEAR(b.texels[cover] / 255.0 * coverMax[0], west, 1.0 / 255 * coverMax[0]);  // level 0, west
  EXPECT_EQ(b.texels[cover + 15 * 4], 0);                                             // level 0, east
  const double expected = -std::log((std::exp(-0.7 * west) + 1) / 2) / 0.7;
  const double got = b.texels[coarsest + 4 * 4] / 255.0 * coverMax[0];
  EXPECT_NEAR(got, expected, 1.0 / 255 * coverMax[0]) << "mean density would be " << west / 2;
}

// Far trees: the survey hands the trees of sparse stands over as instances and keeps them in
// the layer too (render/far_field.h). One 128 m tile of 8 m texels: a closed stand (crowns of
// radius 3 m on a 4 m grid, 1.77 crown area per ground area) over x 0-32, z 0-32, and single
// trees of the same species on a 40 m grid elsewhere (0.02 in their 3 x 3 texels); a shrub
// among them stays in its layer. Hand-made cover figures, not the survey's formula: a tree
// whose 24 m neighbourhood holds under 0.3 of crown area is far, the stand's are not, not even
// at its corner (four of its texels in the 3 x 3: 0.79).
TEST(RenderFarField, SparseTreesAreFarTreesAndStayInTheLayer) {
  SceneTile tile;
  tile.maxX = tile.maxZ = 128;
  std::vector<SpeciesRecord> species(2);
  species[0].kind = 0;
  species[0].crownRadius = 3;
  species[1].kind = 1;
  species[1].crownRadius = 1;
  std::vector<Instance> plants;
  for (float x = 2; x < 32; x += 4)
    for (float z = 2; z < 32; z += 4) plants.push_back(plantAt(x, z, 0));
  const size_t stand = plants.size();
  std::vector<Instance> single;
  for (float x = 44; x < 128; x += 40)
    for (float z = 44; z < 128; z += 40) single.push_back(plantAt(x, z, 0));
  plants.insert(plants.end(), single.begin(), single.end());
  plants.push_back(plantAt(100, 4, 1));
  std::vector<double> crownArea(2, 0.0), none(2, 0.0);
  std::vector<Instance> far;
  const FarFieldBlock b = surveyTile(tile, plants, species, oneTileLayout(), {}, crownArea, &far);
  ASSERT_EQ(far.size(), single.size());
  for (size_t i = 0; i < far.size(); ++i) {
    EXPECT_EQ(far[i].position.x, single[i].position.x);
    EXPECT_EQ(far[i].position.z, single[i].position.z);
  }
  const float coverMax[4] = {FAR_COVER_MAX};
  auto alpha = [&](const FarFieldBlock& block, uint32_t kind, float x, float z) {  // FAR_COVER_LAYER, level 0
    const size_t t = size_t(z / 8) * 16 + size_t(x / 8);
    return block.texels[(4 * 256 + t) * 4 + kind] / 255.0 * double(coverMax[kind]);
  };
  EXPECT_NEAR(alpha(b, 0, 44, 44), 3.14159265 * 9 / 64, double(coverMax[0]) / 255) << "a far tree stays in the layer";
  EXPECT_NEAR(alpha(b, 0, 12, 12), std::min(3.14159265 * 9 / 16, double(coverMax[0])), double(coverMax[0]) / 255);
  EXPECT_GT(alpha(b, 1, 100, 4), 0.0) << "shrubs stay in their layer";
  EXPECT_NEAR(crownArea[0], 3.14159265358979 * 9 * double(stand + single.size()), 0.01) << "cover counts every tree";
  const FarFieldBlock d = surveyTile(tile, plants, species, oneTileLayout(), {}, none);
  EXPECT_EQ(b.texels, d.texels) << "the layer is the same with far trees or without";
}

// The fifth layer (FAR_COVER_LAYER) holds each kind's crown area per ground area in its own
// channel, the crowns spread over the texels they cover. Four kinds on one tile, each in a
// different band of rows and at a different spacing. Each channel's level 0 holds its kind's
// whole crown area (every crown lies inside the tile) and nothing in the rows its crowns do not
// reach; the kinds' own layers hold no second-look share (no conifers).
TEST(RenderFarField, CoverLayerHoldsEachKindsDensity) {
  SceneTile tile;
  tile.maxX = tile.maxZ = 128;
  std::vector<SpeciesRecord> species(4);
  std::vector<Instance> plants;
  std::vector<double> total(4, 0.0);
  for (uint32_t k = 0; k < 4; ++k) {
    species[k].kind = uint8_t(k);
    species[k].crownRadius = 0.5f + 0.5f * float(k);
    const float spacing = 3.0f + 2.0f * float(k);
    for (float x = 3; x < 125; x += spacing)
      for (float z = 8 + 24 * float(k); z < 56 + 24 * float(k); z += spacing) {
        plants.push_back(plantAt(x, z, uint16_t(k)));
        total[k] += 3.14159265358979 * double(species[k].crownRadius) * double(species[k].crownRadius);
      }
  }
  std::vector<double> crownArea(4, 0.0);
  const FarFieldBlock b = surveyTile(tile, plants, species, oneTileLayout(), {}, crownArea);
  const float coverMax[4] = {FAR_COVER_MAX};
  size_t start = 0;
  for (size_t side = 16; side >= 1; side /= 2) start += 5 * side * side * 4;
  ASSERT_EQ(start, b.texels.size());
  for (size_t k = 0; k < 4; ++k) {
    double sum = 0;
    for (size_t z = 0; z < 16; ++z)
      for (size_t x = 0; x < 16; ++x) {
        const double density = b.texels[(4 * 256 + z * 16 + x) * 4 + k] / 255.0 * double(coverMax[k]);
        sum += density * 64;
        // crowns of kind k reach rows z 8 + 24 k - 2 to 56 + 24 k + 2 at most
        if (double(z + 1) * 8 <= 6 + 24 * double(k) || double(z) * 8 >= 58 + 24 * double(k) + 2) {
          EXPECT_EQ(b.texels[(4 * 256 + z * 16 + x) * 4 + k], 0) << "kind " << k << " texel " << x << "," << z;
        }
        EXPECT_EQ(b.texels[(k * 256 + z * 16 + x) * 4 + 3], 0) << "no second look, kind " << k;
      }
    // 8-bit densities: half a step per texel at most
    EXPECT_NEAR(sum, total[k], 256 * 64 * 0.5 / 255 * double(coverMax[k])) << "kind " << k;
    EXPECT_NEAR(crownArea[k], total[k], 1e-3 * total[k]);
  }
}

// A texel's trees of two looks (far_look.h farLookOf): the kind's alpha is the share of their
// crown area that is conifer, on every level; the tint weighs each crown's colour by its
// species' tint weight (far_look.h farLookTable's sideArea). One tile: broadleaves of crown
// radius 2 (area 4 pi) and conifers of radius 1 (pi), alternating on a 4 m grid over the west
// half: conifer share 1 / 5 there, the tile's share (its empty texels') too; red broadleaves
// weighing 1 and blue conifers weighing 3: the tint (4 pi red + 3 pi blue) / 7 pi.
TEST(RenderFarField, ConiferShareAndWeightedTint) {
  SceneTile tile;
  tile.maxX = tile.maxZ = 128;
  std::vector<SpeciesRecord> species(2);
  species[0].kind = species[1].kind = 0;
  species[0].crownRadius = 2;
  species[1].crownRadius = 1;
  species[1].meshForm = MeshForm::Conifer;
  std::vector<Instance> trees;
  for (float x = 2; x < 64; x += 4)
    for (float z = 2; z < 128; z += 4) {
      Instance p = plantAt(x, z, int(x + z) % 8 == 0 ? 0 : 1);
      p.color = p.species == 0 ? 0xff0000ffu : 0xffff0000u;  // R low byte
      trees.push_back(p);
    }
  // the grid's alternation: (x + z) / 4 even -> broadleaf; both on every other point
  std::vector<double> crownArea(2, 0.0);
  const FarFieldBlock b = surveyTile(tile, trees, species, oneTileLayout(), {}, crownArea, nullptr, {1.0f, 3.0f});
  const double share = crownArea[1] / (crownArea[0] + crownArea[1]);
  ASSERT_NEAR(share, 0.2, 1e-6);
  size_t level = 0;
  for (size_t side = 16; side >= 1; level += 5 * side * side * 4, side /= 2)
    for (size_t t = 0; t < side * side; ++t) {
      const uint8_t* texel = &b.texels[level + t * 4];  // layer 0: the trees
      EXPECT_NEAR(texel[3] / 255.0, share, 0.5 / 255 + 1e-9) << "side " << side << " texel " << t;
      EXPECT_NEAR(texel[0] / 255.0, 4.0 / 7, 0.5 / 255 + 1e-9) << "side " << side << " texel " << t;
      EXPECT_EQ(texel[1], 0);
      EXPECT_NEAR(texel[2] / 255.0, 3.0 / 7, 0.5 / 255 + 1e-9) << "side " << side << " texel " << t;
    }
}

TEST(RenderFarField, DefaultCameraFramesTheWholeWorld) {
  Scene square = makeSyntheticScene(smallWorld(0));
  Scene wide;
  wide.cellSize = 10;
  wide.heights = Grid(400, 90);  // 4 km x 0.9 km, a slope rising to the north-east
  for (int j = 0; j < 90; ++j)
    for (int i = 0; i < 400; ++i) wide.heights.at(i, j) = 300.0f + float(i) * 0.5f - float(j) * 2.0f;
  for (const Scene* w : {&square, &wide})
    for (auto [width, height] : {std::pair{1280, 720}, {640, 640}, {360, 640}, {2560, 720}})
      expectCornersInside(*w, width, height);
}

// The far-field tests' view: 480 x 270 (the 960 x 540 at half size), validation on.
ViewerOptions farFieldView(const Camera& c) {
  ViewerOptions o;
  o.width = 480;
  o.height = 270;
  o.validation = true;
  o.camera = c;
  return o;
}

// Issue #29's measure of the far field: the frame with ecoview's defaults (instances near, the
// far field beyond) against the frame with every instance drawn, per square block of pixels:
// the mean luminance (Rec. 709 weights on the 8-bit values) of each, judged over the blocks that
// are at least half ground in the terrain-only frame (sky has nothing to compare).
struct BlockComparison {
  double worst = 0, median = 0;
  double mean = 0;  // signed: frame - reference, over the judged blocks
  int judged = 0;
};

double luminance(const std::vector<uint8_t>& rgba, size_t pixel) {
  return 0.2126 * rgba[pixel * 4] + 0.7152 * rgba[pixel * 4 + 1] + 0.0722 * rgba[pixel * 4 + 2];
}

// Judged: blocks at least half ground in `terrain`, and (with `bare`) where at least 95 % of
// the pixels of `bare` equal `terrain`'s (no instance drawn there: the far field's zone).
BlockComparison compareBlocks(const HeadlessResult& frame, const HeadlessResult& reference, const HeadlessResult& terrain,
                              const HeadlessResult* bare, int width, int height, int block, const char* name) {
  const uint8_t* sky = &terrain.pixels[0];  // a flat background (view.sky off): the top-left pixel
  BlockComparison c;
  std::vector<double> errors;
  std::printf("%s: block luminance difference (frame - reference), . = sky\n", name);
  for (int by = 0; by + block <= height; by += block) {
    for (int bx = 0; bx + block <= width; bx += block) {
      double f = 0, r = 0;
      int ground = 0, empty = 0;
      for (int y = by; y < by + block; ++y)
        for (int x = bx; x < bx + block; ++x) {
          size_t i = size_t(y) * size_t(width) + size_t(x);
          f += luminance(frame.pixels, i);
          r += luminance(reference.pixels, i);
          ground += !std::equal(&terrain.pixels[i * 4], &terrain.pixels[i * 4 + 3], sky);
          empty += bare && std::equal(&terrain.pixels[i * 4], &terrain.pixels[i * 4 + 3], &bare->pixels[i * 4]);
        }
      if (2 * ground < block * block || (bare && 100 * empty < 95 * block * block)) {
        std::printf("     .");
        continue;
      }
      double e = (f - r) / double(block * block);
      std::printf(" %5.1f", e);
      errors.push_back(std::abs(e));
      c.worst = std::max(c.worst, std::abs(e));
      c.mean += e;
    }
    std::printf("\n");
  }
  std::sort(errors.begin(), errors.end());
  c.judged = int(errors.size());
  c.median = errors.empty() ? 0 : errors[errors.size() / 2];
  if (c.judged > 0) c.mean /= c.judged;
  std::printf("%s: %d blocks judged, worst %.2f, median %.2f\n", name, c.judged, c.worst, c.median);
  return c;
}

// The pixel-scale contrast of a picture over a block: the spread (standard deviation) of each
// pixel's luminance about the mean of the 5 x 5 pixels around it. A forest drawn with every
// instance has it (a pixel's samples each land on a crown's lit or shaded side, a trunk or the
// ground); a far field drawn as a smooth mean has next to none and reads as paint.
double pixelContrast(const HeadlessResult& r, int width, int bx, int by, int block) {
  double sum = 0, sum2 = 0;
  int n = 0;
  for (int y = by; y < by + block; ++y)
    for (int x = bx; x < bx + block; ++x) {
      double box = 0;
      int m = 0;
      for (int v = std::max(y - 2, by); v <= std::min(y + 2, by + block - 1); ++v)
        for (int u = std::max(x - 2, bx); u <= std::min(x + 2, bx + block - 1); ++u, ++m)
          box += luminance(r.pixels, size_t(v) * size_t(width) + size_t(u));
      const double d = luminance(r.pixels, size_t(y) * size_t(width) + size_t(x)) - box / m;
      sum += d, sum2 += d * d, ++n;
    }
  return std::sqrt(std::max(sum2 / n - (sum / n) * (sum / n), 0.0));
}

// Over the far field's own zone (blocks where at least 95 % of `bare`'s pixels equal
// `terrain`'s: no instance drawn) that the reference shows plants in (its contrast at least a
// level above the bare terrain's): the median over those blocks of frame's contrast over
// reference's.
double contrastRatio(const HeadlessResult& frame, const HeadlessResult& reference, const HeadlessResult& terrain,
                     const HeadlessResult& bare, int width, int height, int block, int* judged) {
  std::vector<double> ratios;
  for (int by = 0; by + block <= height; by += block)
    for (int bx = 0; bx + block <= width; bx += block) {
      int empty = 0;
      for (int y = by; y < by + block; ++y)
        for (int x = bx; x < bx + block; ++x) {
          const size_t i = size_t(y) * size_t(width) + size_t(x);
          empty += std::equal(&terrain.pixels[i * 4], &terrain.pixels[i * 4 + 3], &bare.pixels[i * 4]);
        }
      if (100 * empty < 95 * block * block) continue;
      const double r = pixelContrast(reference, width, bx, by, block);
      if (!(r > pixelContrast(terrain, width, bx, by, block) + 1.0)) continue;
      ratios.push_back(pixelContrast(frame, width, bx, by, block) / r);
    }
  std::sort(ratios.begin(), ratios.end());
  *judged = int(ratios.size());
  return ratios.empty() ? 0.0 : ratios[ratios.size() / 2];
}

// The four pictures the measures above compare, of one camera (options `o`): every instance
// resident and drawn however far (all), ecoview's defaults with the load radius given (the far
// field beyond it: streaming), the same without the far field (without), and the bare terrain.
struct FarFieldPictures {
  HeadlessResult all, streaming, without, terrain;
};
// The bare terrain of view `o` (no plant drawn, no far field): which blocks are ground.
ViewerOptions terrainOnly(const ViewerOptions& o) {
  ViewerOptions terrain = o;
  terrain.cull.fade = true;
  terrain.cull.drawDistance.fill(0);
  terrain.cull.farField = false;
  return terrain;
}

FarFieldPictures renderFarFieldPictures(const Scene& world, const ViewerOptions& o, float loadRadius, float unloadRadius) {
  ViewerOptions all = o;
  all.renderer.stream.loadRadius = all.renderer.stream.unloadRadius = 6000;  // past the 1 km world
  all.cull.fade = false;
  ViewerOptions streaming = o;
  streaming.renderer.stream.loadRadius = loadRadius;
  streaming.renderer.stream.unloadRadius = unloadRadius;
  ViewerOptions without = streaming;
  without.cull.farField = false;
  FarFieldPictures p{runHeadless(world, all), runHeadless(world, streaming), runHeadless(world, without),
                     runHeadless(world, terrainOnly(all))};
  for (const HeadlessResult* r : {&p.all, &p.streaming, &p.without, &p.terrain}) EXPECT_EQ(r->validationErrors, 0);
  return p;
}

TEST(RenderFarField, StreamingPictureKeepsTheToneOfTheAllInstancePicture) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(200000));
  // pale bare ground under the plants (no green sward, sand-coloured soil): without a far
  // field the ground then reads much lighter than the forest drawn over it, so the measure
  // tells the two apart (dark soil is about as bright as lit crowns)
  for (int c = 0; c < 3; ++c)
    world.ground.color[kGroundGrass][c] = world.ground.color[kGroundSoil][c] = world.ground.color[kGroundSand][c];
  ViewerOptions o = farFieldView(camera(200, 260, 1100, 25, -28));  // south-west of the map, looking north-east over it
  o.view.sky = false;  // a flat background: sky pixels equal the top-left one
  // a 450 m load radius: beyond it (most of the view) the far field
  const FarFieldPictures p = renderFarFieldPictures(world, o, 450, 550);
  const HeadlessResult &rAll = p.all, &rStreaming = p.streaming, &rWithout = p.without, &rTerrain = p.terrain;
  EXPECT_EQ(rTerrain.frames.back().afterFrustum, 0u);
  EXPECT_LT(rStreaming.frames.back().resident, rAll.frames.back().resident / 2) << "most of the world not loaded";
  if (const char* dir = std::getenv("ECO_FARFIELD_PICTURES")) {
    std::string d = dir;
    writeScreenshot(d + "/all.png", o.width, o.height, rAll.pixels);
    writeScreenshot(d + "/streaming.png", o.width, o.height, rStreaming.pixels);
    writeScreenshot(d + "/without.png", o.width, o.height, rWithout.pixels);
    writeScreenshot(d + "/terrain.png", o.width, o.height, rTerrain.pixels);
  }
  // 20 px blocks at 480 x 270: the 40 px blocks at 960 x 540
  BlockComparison with = compareBlocks(rStreaming, rAll, rTerrain, nullptr, o.width, o.height, 20, "far field");
  EXPECT_GT(with.judged, 150);
  EXPECT_LE(with.median, 3.0);  // 2.0 measured; 2.7 without the crowns' neighbour shading (CROWN_SHADE)
  // the worst blocks are on the ridge and the world's edge, where the drawn trees stand
  // against the sky and the far field's canopy (the ground raised under dense crowns) draws
  // them as one smooth line; over this pale ground 19.7 measured (issue #29 asks 8 everywhere:
  // docs/viewer-far-field.md)
  EXPECT_LE(with.worst, 25.0);
  // the far field's own zone, where no instance is drawn
  BlockComparison farWith = compareBlocks(rStreaming, rAll, rTerrain, &rWithout, o.width, o.height, 20, "far zone, far field");
  BlockComparison farNo = compareBlocks(rWithout, rAll, rTerrain, &rWithout, o.width, o.height, 20, "far zone, none");
  EXPECT_GT(farWith.judged, 40);
  EXPECT_LE(farWith.median, 3.3);  // 2.7 measured; 3.6 without the crowns' neighbour shading
  EXPECT_GT(farNo.median, farWith.median + 20) << "the test tells a picture without the far field apart";  // 35.7
}

// The hand-over band keeps the tone of the frame drawn with every instance. Over the trees'
// fade (here 337-450 m) cull.comp drops a share t of them at random and the layer stands for
// them; the shadow cascades hold only the drawn trees. The blocks whose ground (picked through
// the heightfield at the block's centre, not from the renderer) lies inside the band, at t 0.1
// to 0.9, against that frame: their mean signed difference, -0.24 levels over a dense synthetic
// forest. Darkening the drawn trees' sun in the band for the dropped ones' shade, as the layer's
// crowns are (exp(-CROWN_SHADE t x the stand's optical depth toward the sun)), read -1.48: the
// cascades' shadows among the drawn trees already give the band its tone (tried, not kept).
TEST(RenderFarField, HandOverBandKeepsTheToneOfTheAllInstanceFrame) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(600000));
  ViewerOptions o = farFieldView(camera(200, 260, 1100, 25, -28));
  o.view.sky = false;
  const FarFieldPictures p = renderFarFieldPictures(world, o, 450, 550);
  const double end = 450, start = (1.0 - double(CullSettings{}.fadeBand)) * end;  // the trees fade over the load radius's last quarter
  const int block = 20;
  double sum = 0;
  int blocks = 0;
  for (int by = 0; by + block <= o.height; by += block)
    for (int bx = 0; bx + block <= o.width; bx += block) {
      Vec3 hit;
      if (!pickTerrain(world, o.camera, o.width, o.height, float(bx) + 0.5f * block, float(by) + 0.5f * block, hit)) continue;
      const double d = double(length(hit - o.camera.position));
      const double t = (d - start) / (end - start);
      if (t < 0.1 || t > 0.9) continue;
      double f = 0, r = 0;
      for (int y = by; y < by + block; ++y)
        for (int x = bx; x < bx + block; ++x) {
          const size_t i = size_t(y) * size_t(o.width) + size_t(x);
          f += luminance(p.streaming.pixels, i), r += luminance(p.all.pixels, i);
        }
      sum += (f - r) / double(block * block);
      ++blocks;
    }
  const double bias = sum / std::max(blocks, 1);
  std::printf("hand-over band: %d blocks, mean difference from the all-instance frame %+.2f levels\n", blocks, bias);
  EXPECT_GT(blocks, 10);
  EXPECT_LT(std::abs(bias), 1.0) << "the hand-over band's tone";
}

// Where instances turn LOD 1 (CullSettings::lodFactor bounding radii from the eye: 350-420 m for
// these trees, 65 m for the shrubs) the stand keeps its tone: the frame with LOD selection
// against the same frame drawn at LOD 0 throughout, every instance resident and drawn (no fade),
// per 20 px block over the forest from 150 m to 1 km. A LOD 1 that thins or darkens the stand
// is a ring that follows the camera. Measured here: the lumpy hull (procedural.cpp) mean -0.67,
// worst 4.1; the five-lobe LOD 1 before it -0.77, 3.0; the three-lobe one before that, which
// kept 0.74-0.80 of LOD 0's area, -3.5 and 9.8. (On the sample's beech forest the five lobes
// read a band 2-4 levels dark past 600 m and the hull does not: bench/lod_step_bench.sh.)
TEST(RenderFarField, LodStepKeepsTheStandsTone) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(200000));
  ViewerOptions o = farFieldView(camera(200, 260, 1100, 25, -28));
  o.view.sky = false;
  o.renderer.stream.loadRadius = o.renderer.stream.unloadRadius = 6000;  // past the 1 km world
  o.cull.fade = false;
  ViewerOptions lod0 = o;
  lod0.cull.distance = false;
  const HeadlessResult rLod = runHeadless(world, o), rLod0 = runHeadless(world, lod0), rTerrain = runHeadless(world, terrainOnly(o));
  for (const HeadlessResult* r : {&rLod, &rLod0, &rTerrain}) EXPECT_EQ(r->validationErrors, 0);
  ASSERT_GT(rLod.frames.back().vegetationTriangles, 0u);
  EXPECT_LT(rLod.frames.back().vegetationTriangles, rLod0.frames.back().vegetationTriangles / 2)
      << "the frame under test draws LOD 1";
  const BlockComparison c = compareBlocks(rLod, rLod0, rTerrain, nullptr, o.width, o.height, 20, "LOD step");
  EXPECT_GT(c.judged, 150);
  std::printf("LOD step: mean block difference %.2f levels\n", c.mean);
  EXPECT_LT(std::abs(c.mean), 1.5);
  EXPECT_LE(c.worst, 6.0);
}

// A forest seen from 0.8-1.8 km, its crowns about a pixel: the far field keeps the all-instance
// picture's grain (pixelContrast), not only its tone.
TEST(RenderFarField, FarForestKeepsThePixelScaleContrastOfItsPlants) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(200000));
  // 0.8-1.8 km south of the 1 km map, looking north over it
  ViewerOptions o = farFieldView(camera(512, 380, 1850, 0, -13));
  o.view.sky = false;
  // nothing within the 300 m load radius: the far field alone
  const FarFieldPictures p = renderFarFieldPictures(world, o, 300, 400);
  const HeadlessResult &rAll = p.all, &rStreaming = p.streaming, &rWithout = p.without, &rTerrain = p.terrain;
  if (const char* dir = std::getenv("ECO_FARFIELD_PICTURES")) {
    std::string d = dir;
    writeScreenshot(d + "/grain_all.png", o.width, o.height, rAll.pixels);
    writeScreenshot(d + "/grain_streaming.png", o.width, o.height, rStreaming.pixels);
  }
  int judged = 0;
  const double grain = contrastRatio(rStreaming, rAll, rTerrain, rWithout, o.width, o.height, 20, &judged);
  std::printf("far zone: pixel-scale contrast %.2f of the all-instance picture's over %d blocks\n", grain, judged);
  EXPECT_GT(judged, 20);
  EXPECT_GE(grain, 0.6);
  EXPECT_LE(grain, 1.5);
}

// Plants stand above the far field's surface where the canopy lift does not raise it (a
// sparse stand: crown cover 0.04, no lift): a line of sight meets the crowns over a run of
// height x cot(elevation) toward the eye, so the stand darkens the ground up to that run beyond
// its far edge, as the drawn trees' images reach up past their footprints. A band of 16 m
// trees 700-850 m away seen from 150 m up (11 degrees: runs of about 75 m) past a 300 m draw
// distance: per screen row, the darkening by the far field against the drawn trees'. The
// darkening's centre row: 1.5 px nearer the eye than the drawn trees' (2.7 px with the run
// left out); its sum 0.65 of theirs (0.41 from 70 m up, where the far field also sits 2.5 px
// low: docs/viewer-far-field.md).
TEST(RenderFarField, StandingPlantsDarkenTheRowsTheDrawnTreesCover) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(12500));
  std::fill(world.heights.values.begin(), world.heights.values.end(), 20.0f);
  auto source = std::make_shared<Scene>(world);  // flat, with the generator's tile counts
  auto stand = [source](size_t i) {
    std::vector<Instance> v = syntheticTileInstances(*source, 1, i);
    std::erase_if(v, [](const Instance& p) { return p.species != 0 || p.position.z < 300 || p.position.z > 450; });
    return v;
  };
  for (size_t i = 0; i < world.tiles.size(); ++i) {
    world.tiles[i].instances = stand(i).size();
    world.tiles[i].speciesCounts = {uint32_t(world.tiles[i].instances), 0, 0, 0};
  }
  world.placedInstances = stand;
  world.loadTile = fixtures::tileLoader(source, stand);
  for (int c = 0; c < 3; ++c)  // pale ground: the trees darken it
    world.ground.color[kGroundGrass][c] = world.ground.color[kGroundSoil][c] = world.ground.color[kGroundSand][c];

  ViewerOptions o = farFieldView(camera(512, 170, 1150, 0, -12));  // looking north over the band
  o.view.sky = false;
  o.renderer.stream.loadRadius = o.renderer.stream.unloadRadius = 5000;
  o.renderer.farTrees = 0;  // the layer alone stands for the trees past the draw distance
  ViewerOptions all = o, far = o;
  all.cull.fade = false;
  far.cull.drawDistance[0] = 300;
  HeadlessResult rAll = runHeadless(world, all), rFar = runHeadless(world, far), rBare = runHeadless(world, terrainOnly(o));
  for (const HeadlessResult* r : {&rAll, &rFar, &rBare}) EXPECT_EQ(r->validationErrors, 0);
  EXPECT_GT(rAll.frames.back().afterFrustum, 100u);
  EXPECT_EQ(rFar.frames.back().afterFrustum, 0u) << "every tree past the draw distance";
  if (const char* dir = std::getenv("ECO_FARFIELD_PICTURES")) {
    std::string d = dir;
    writeScreenshot(d + "/stand_all.png", o.width, o.height, rAll.pixels);
    writeScreenshot(d + "/stand_far.png", o.width, o.height, rFar.pixels);
    writeScreenshot(d + "/stand_bare.png", o.width, o.height, rBare.pixels);
  }
  // per row, how much the plants darken the ground (middle 80 % of the columns)
  auto darkening = [&](const HeadlessResult& r) {
    std::vector<double> rows(size_t(o.height), 0.0);
    for (int y = 0; y < o.height; ++y)
      for (int x = o.width / 10; x < o.width * 9 / 10; ++x) {
        const size_t i = size_t(y) * size_t(o.width) + size_t(x);
        rows[size_t(y)] += (luminance(rBare.pixels, i) - luminance(r.pixels, i)) / (0.8 * o.width);
      }
    return rows;
  };
  const std::vector<double> dAll = darkening(rAll), dFar = darkening(rFar);
  double sumAll = 0, sumFar = 0, rowAll = 0, rowFar = 0;
  for (size_t y = 0; y < dAll.size(); ++y) {
    sumAll += dAll[y], sumFar += dFar[y];
    rowAll += double(y) * dAll[y], rowFar += double(y) * dFar[y];
  }
  rowAll /= sumAll, rowFar /= sumFar;
  std::printf("darkening: drawn %.1f, far field %.1f level-rows; centre row %.2f, %.2f\n", sumAll, sumFar, rowAll, rowFar);
  EXPECT_GT(sumAll, 20.0) << "the stand darkens the ground";
  EXPECT_NEAR(sumFar / sumAll, 1.0, 0.5);
  EXPECT_NEAR(rowFar, rowAll, 2.0) << "the far field's stand sits where the drawn one does";
}

namespace {

// Single trees `spacing` apart (every one a far tree, up to 15 m apart) over a 1 km world of
// 256 m tiles: flat at 20 m, or with the synthetic world's 150 m north-south ridge through its
// middle; `trees` their count
Scene singleTreesWorld(uint64_t& trees, float spacing = 40, bool ridge = false) {
  Scene world = makeSyntheticScene(smallWorld(16));
  if (!ridge) std::fill(world.heights.values.begin(), world.heights.values.end(), 20.0f);
  auto source = std::make_shared<Scene>(world);
  auto single = [source, spacing](size_t i) {
    std::vector<Instance> v;
    const SceneTile& t = source->tiles[i];
    for (float x = t.minX + spacing / 2; x < t.maxX; x += spacing)
      for (float z = t.minZ + spacing / 2; z < t.maxZ; z += spacing) {
        Instance p = plantAt(x, z, 0);
        p.position.y = groundHeight(*source, x, z);
        p.up = {0, 1, 0};
        v.push_back(p);
      }
    return v;
  };
  trees = 0;
  for (size_t i = 0; i < world.tiles.size(); ++i) {
    world.tiles[i].instances = single(i).size();
    world.tiles[i].speciesCounts = {uint32_t(world.tiles[i].instances), 0, 0, 0};
    trees += world.tiles[i].instances;
  }
  world.speciesInstances = {trees, 0, 0, 0};
  world.placedInstances = single;
  world.loadTile = fixtures::tileLoader(source, single);
  return world;
}

// The far trees' views: flat sky and no fog (the sky's pixels one colour), the trees' fade
// from 300 to 400 m, every far tree kept
ViewerOptions farTreesView(int width, int height) {
  ViewerOptions o;
  o.width = width;
  o.height = height;
  o.validation = true;
  o.view.sky = o.view.fog = false;
  o.renderer.stream.loadRadius = o.renderer.stream.unloadRadius = 400;
  o.renderer.farTrees = 1u << 18;
  return o;
}

}  // namespace

// Far trees are drawn only against the sky (cull.comp skyBehind): the layer holds them too and
// stands for them everywhere else. Single trees 40 m apart over a flat 1 km world (all far
// trees), their fade from 300 to 400 m, flat sky and no fog so the sky's pixels are one colour.
// Looking down on the world's middle no sky shows: the frame is the frame without far trees,
// byte for byte. Looking north over the world from its south edge, the far edge meets the sky:
// far trees are drawn there, and every pixel they change lies in a column within a tree's
// height of the sky of the frame without them (a far tree drawn against the ground, where the
// layer already stands for it, would change pixels far below).
TEST(RenderFarField, FarTreesAreDrawnOnlyAgainstTheSky) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  uint64_t trees = 0;
  const Scene world = singleTreesWorld(trees);
  ViewerOptions o = farTreesView(320, 180);
  auto drawn = [](const FrameStats& s) {
    uint64_t n = 0;
    for (uint32_t c : s.speciesInstances) n += c;
    return n;
  };
  // looking down: no sky
  o.camera = camera(512, 270, 512, 0, -60);
  ViewerOptions none = o;
  none.renderer.farTrees = 0;
  const HeadlessResult down = runHeadless(world, o), downWithout = runHeadless(world, none);
  EXPECT_EQ(down.validationErrors, 0);
  EXPECT_EQ(down.frames.back().farTrees, trees) << "every tree stands alone";
  EXPECT_EQ(down.frames.back().farCards, 0u);
  EXPECT_EQ(drawn(down.frames.back()), drawn(downWithout.frames.back()));
  EXPECT_TRUE(down.pixels == downWithout.pixels) << "far trees changed a frame with no sky in it";

  // looking north over the world to the sky, from 150 m up: the trees past the fade's end lie
  // from some 40 px below the sky up to it
  o.camera = none.camera = camera(512, 170, 1010, 0, -10);
  const HeadlessResult r = runHeadless(world, o), without = runHeadless(world, none);
  EXPECT_EQ(r.validationErrors, 0);
  const FrameStats& s = r.frames.back();
  const uint64_t meshesWithout = drawn(without.frames.back());
  std::printf("%s trees: %s far, %s cards and %s meshes against the sky (%s meshes without far trees)\n",
              std::to_string(trees).c_str(), std::to_string(s.farTrees).c_str(), std::to_string(s.farCards).c_str(),
              std::to_string(drawn(s) - meshesWithout).c_str(), std::to_string(meshesWithout).c_str());
  EXPECT_GT(s.farCards + drawn(s), meshesWithout) << "far trees stand against the sky";
  const int w = o.width, h = o.height;
  const uint8_t* sky = &without.pixels[0];  // the top-left pixel: the flat background
  auto isSky = [&](const std::vector<uint8_t>& px, int x, int y) {
    return std::equal(sky, sky + 3, &px[(size_t(y) * size_t(w) + size_t(x)) * 4]);
  };
  // a tree's height on the screen at the fade's end, where the tallest far tree stands nearest
  // (the crown's sphere at 400 m: radius over distance, in pixels of a 60-degree view)
  const double treePx = 2 * double(world.species[0].boundingRadius) / 400.0 * (h / 2) / std::tan(0.5236);
  int changed = 0, overSky = 0, belowReach = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 4;
      if (std::equal(&r.pixels[i], &r.pixels[i + 3], &without.pixels[i])) continue;
      ++changed;
      overSky += isSky(without.pixels, x, y);
      // the nearest sky above this pixel in its column, within reach of a tree's height
      bool near = false;
      for (int up = 0; up <= int(std::ceil(2 * treePx)) + 2 && y - up >= 0; ++up) near = near || isSky(without.pixels, x, y - up);
      belowReach += !near;
    }
  std::printf("pixels changed %d, %d of them sky before; %d farther below the sky than %.1f px\n", changed, overSky,
              belowReach, 2 * treePx + 2);
  EXPECT_GT(overSky, 0) << "tips against the sky";
  EXPECT_EQ(belowReach, 0) << "far trees drawn over the ground";
}

// Far trees' pages are skipped whole only where none of their trees would be drawn
// (CullSettings::farPages: Renderer::listPages leaves out the pages within the trees' fade or
// outside the frustum, far_pages.comp those with no sky behind their box). Over views from the
// world's edges and corners, turning, high and low, and across a ridge, each frame is the frame
// of the cull pass testing every far tree on its own: the same cards and meshes per species,
// the pictures within 4 pixels (the order cards meet at one depth), and the pages skipped
// leave fewer records tested.
TEST(RenderFarField, FarPagesAreSkippedOnlyWhereNoneOfTheirTreesIsDrawn) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  ViewerOptions o = farTreesView(240, 135);
  // (yaw 0 looks toward -z, 90 toward +x)
  const std::vector<Camera> flatViews = {
      camera(512, 170, 1010, 0, -10), camera(512, 60, -40, 180, -2), camera(-30, 45, -30, 135, -1),
      camera(1040, 80, 512, 270, -4), camera(900, 35, 120, 240, 0), camera(512, 400, 512, 30, -20),
      camera(100, 25, 900, 20, 1), camera(512, 25, 512, 200, 2),
      // pitched up until the frame's bottom edge passes over the trees' roots: only their
      // crowns are in the frustum
      camera(512, 22, -20, 180, 30.2f), camera(20, 22, 20, 135, 30.3f)};
  // across the ridge from either side, low: its crest is the skyline, and the pages on the
  // slopes below it have the ground behind them
  const std::vector<Camera> ridgeViews = {camera(60, 50, 512, 90, 4), camera(40, 35, 150, 70, 6),
                                          camera(980, 60, 800, 270, 3), camera(960, 40, 300, 300, 5)};
  for (bool ridge : {false, true}) {
    uint64_t trees = 0;
    const Scene world = ridge ? singleTreesWorld(trees, 15, true) : singleTreesWorld(trees);
    uint64_t cards = 0, meshes = 0, skippedViews = 0;
    for (const Camera& cam : ridge ? ridgeViews : flatViews) {
      o.camera = cam;
      ViewerOptions each = o;
      each.cull.farPages = false;
      const HeadlessResult r = runHeadless(world, o), ref = runHeadless(world, each);
      EXPECT_EQ(r.validationErrors, 0);
      const FrameStats &s = r.frames.back(), &t = ref.frames.back();
      const std::string view = std::to_string(int(cam.position.x)) + "," + std::to_string(int(cam.position.z)) +
                               (ridge ? " over the ridge" : " over the flat world");
      EXPECT_EQ(s.farCards, t.farCards) << view;
      EXPECT_EQ(s.speciesInstances, t.speciesInstances) << view;
      size_t differ = 0;
      for (size_t i = 0; i < r.pixels.size() && r.pixels.size() == ref.pixels.size(); i += 4)
        differ += std::memcmp(&r.pixels[i], &ref.pixels[i], 4) != 0;
      // the same trees in the same lists, appended in another order where pages were skipped: a
      // pixel where two cards meet at one depth may take the other's colour (1 in one view)
      EXPECT_LE(differ, 4u) << view;
      EXPECT_LE(s.tested, t.tested) << view;
      skippedViews += s.tested < t.tested;
      cards += s.farCards;
      for (uint32_t c : s.speciesInstances) meshes += c;
    }
    std::printf("%s far trees%s; over the views %s cards, %s meshes; pages skipped in %s views\n",
                std::to_string(trees).c_str(), ridge ? " over the ridge" : "", std::to_string(cards).c_str(),
                std::to_string(meshes).c_str(), std::to_string(skippedViews).c_str());
    EXPECT_GT(cards, 0u) << "far trees stand against the sky";
    EXPECT_GE(skippedViews, 2u) << "pages are skipped";
  }
}

// Past the budget the far trees are thinned evenly over the world (the budget's smallest keys
// of a hash of tile and place), not taken in tile order, which left a large world's later rows
// without a tree against the sky. 576 single trees on a flat 1 km world of 256 m tiles, a
// budget of a quarter:
// every quarter of the world keeps about its share, every row of tiles some; the pages hold
// one group's trees each, at most 128, in consecutive slots after the world's tiles, within
// the pages the renderer reserves; a second survey keeps the same records.
TEST(RenderFarField, FarTreesPastTheBudgetAreThinnedEvenlyOverTheWorld) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  uint64_t trees = 0;
  const Scene world = singleTreesWorld(trees);
  ASSERT_EQ(trees, 576u);
  const uint64_t budget = trees / 4;
  ContextOptions co;
  co.validation = true;
  Context ctx;
  std::string why;
  ASSERT_TRUE(createContext(ctx, co, &why)) << why;
  std::vector<std::vector<LoadedTile>> surveys;
  for (int run = 0; run < 2; ++run) {
    FarField far = createFarField(ctx, world, MeshSet{}, budget);
    finishFarField(ctx, far);
    surveys.push_back(takeFarTrees(far));
    EXPECT_TRUE(takeFarTrees(far).empty()) << "handed over once";
    EXPECT_EQ(farFieldStats(far).farTrees, budget);
    destroyFarField(ctx, far);
  }
  EXPECT_EQ(ctx.validationErrors.load(), 0);
  destroyContext(ctx);
  const std::vector<LoadedTile>& pages = surveys[0];
  ASSERT_FALSE(pages.empty());
  EXPECT_LE(pages.size(), budget / gpu::PAGE_SIZE + farTreeGroupCount(world.tiles));
  int quarter[2][2] = {{0, 0}, {0, 0}};
  const float tile = world.tileSize, group = tile * float(kFarTreeGroup);
  std::vector<int> rows(size_t(std::ceil(1024 / tile)), 0);
  uint64_t kept = 0;
  for (size_t p = 0; p < pages.size(); ++p) {
    const LoadedTile& t = pages[p];
    EXPECT_EQ(t.tile, world.tiles.size() + p);
    ASSERT_LE(t.instances.size(), gpu::PAGE_SIZE);
    std::set<std::pair<int, int>> groups;
    for (const gpu::PackedInstance& r : t.instances) {
      const float x = t.box.boundsMin.x + float(r.x & 0xffffu) / 65535.0f * (t.box.boundsMax.x - t.box.boundsMin.x);
      const float z = t.box.boundsMin.z + float(r.x >> 16) / 65535.0f * (t.box.boundsMax.z - t.box.boundsMin.z);
      ++quarter[x >= 512][z >= 512];
      ++rows[std::min(size_t(z / tile), rows.size() - 1)];
      groups.insert({int(x / group), int(z / group)});
      ++kept;
    }
    EXPECT_EQ(groups.size(), 1u) << "page " << p << " holds one group's trees";
    EXPECT_EQ(t.instances.size() * sizeof(gpu::PackedInstance), surveys[1][p].instances.size() * sizeof(gpu::PackedInstance));
    EXPECT_EQ(std::memcmp(t.instances.data(), surveys[1][p].instances.data(), t.instances.size() * sizeof(gpu::PackedInstance)), 0);
  }
  EXPECT_EQ(kept, budget);
  for (auto& q : quarter)
    for (int n : q) EXPECT_NEAR(n, int(budget / 4), 16) << "a quarter's share";
  for (int n : rows) EXPECT_GT(n, 0) << "every row of tiles keeps some";
}

// Far trees come in groups of 4 x 4 tiles, numbered as their first tile comes: two tiles a
// thousand tiles apart are two groups, not a million (a slot per group follows the world's
// tiles; numbered by grid position, the second tile's group lay past the table).
TEST(RenderFarField, FarTreeGroupsOfScatteredTilesStayInTheTable) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(16));
  auto source = std::make_shared<Scene>(world);
  auto single = [source](size_t i) {
    std::vector<Instance> v;
    if (i > 1) return v;
    Instance p = plantAt(100, 100, 0);
    p.position.y = 20;
    p.up = {0, 1, 0};
    v.push_back(p);
    return v;
  };
  world.tiles.resize(2);
  world.tiles[1].x = world.tiles[1].z = 1000;  // far off the heights: an odd manifest, not an error
  for (size_t i = 0; i < world.tiles.size(); ++i) {
    world.tiles[i].instances = 1;
    world.tiles[i].speciesCounts = {1, 0, 0, 0};
  }
  world.speciesInstances = {2, 0, 0, 0};
  world.placedInstances = single;
  world.loadTile = fixtures::tileLoader(source, single);
  ViewerOptions o;
  o.width = o.height = 64;
  o.validation = true;
  o.renderer.farTrees = 16;
  const HeadlessResult r = runHeadless(world, o);
  EXPECT_EQ(r.validationErrors, 0);
  EXPECT_EQ(r.frames.back().farTrees, 2u);
}

// Far plants a pixel or less across keep their tone under multisampling: a multisampled pixel
// shades once for the samples a triangle covers, and without centroid interpolation at a
// point that can lie outside a sub-pixel triangle, where the normal is extrapolated; the drawn
// beech stands 3 km away read 7 levels darker at 4x than at one sample (the far field's
// reference then looked 10 levels darker than the far field).
// The far field's plants are drawn over the finished terrain afterwards (far_composite.frag),
// where the stencil marks terrain: a pixel a drawn plant covers keeps the plant's colour, and
// the far field still draws over the ground. One sample per pixel, so every pixel is plant or
// ground. The plant pixels are those where the frame without any far field differs from the
// same with every species hidden; of those, the ones the rest of the far field (the canopy's
// lift, its shadow) leaves alone must come out of the far field's pass unchanged.
TEST(RenderFarField, DrawnPlantsAreNotCoveredByTheFarField) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(200000));
  ViewerOptions o = farFieldView(camera(200, 260, 1100, 25, -28));
  o.renderer.samples = 1;
  o.view.shadows = false;  // the plants' shadows would mark ground as theirs
  o.renderer.stream.loadRadius = 450;  // plants drawn near, faded out over the band, far field beyond
  o.renderer.stream.unloadRadius = 550;
  ViewerOptions pass = o, none = o;
  pass.renderer.farFieldComposite = false;  // the far field but its pass
  none.cull.farField = false;
  ViewerOptions bare = none;
  bare.view.hiddenSpecies.set();
  const HeadlessResult with = runHeadless(world, o), without = runHeadless(world, pass);
  const HeadlessResult plain = runHeadless(world, none), ground = runHeadless(world, bare);
  for (const HeadlessResult* r : {&with, &without, &plain, &ground}) EXPECT_EQ(r->validationErrors, 0);
  ASSERT_EQ(with.pixels.size(), without.pixels.size());
  auto same = [](const HeadlessResult& a, const HeadlessResult& b, size_t i) { return std::memcmp(&a.pixels[i], &b.pixels[i], 3) == 0; };
  size_t plants = 0, judged = 0, plantsChanged = 0, groundChanged = 0;
  for (size_t i = 0; i < with.pixels.size(); i += 4) {
    const bool plant = !same(plain, ground, i), changed = !same(with, without, i);
    plants += plant;
    if (plant && same(without, plain, i)) ++judged, plantsChanged += changed;
    groundChanged += !plant && changed;
  }
  EXPECT_GT(plants, 5000u) << "plants drawn in view";
  EXPECT_GT(judged, plants * 9 / 10) << "plants the canopy's lift leaves in view";
  EXPECT_EQ(plantsChanged, 0u) << "pixels of drawn plants the far field's pass changed";
  // (at one sample per pixel the far field's grain leaves a pixel
  // whose draw lands between the plants as the ground it is: 25,597 pixels, 62,148 without it)
  EXPECT_GT(groundChanged, size_t(o.width) * size_t(o.height) / 8) << "the far field draws over the ground";
}

TEST(RenderFarField, MultisamplingKeepsTheToneOfSubPixelPlants) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  Scene world = makeSyntheticScene(smallWorld(200000));
  for (int c = 0; c < 3; ++c) world.ground.color[kGroundGrass][c] = world.ground.color[kGroundSoil][c];
  ViewerOptions o = farFieldView(camera(200, 260, 1100, 25, -28));
  o.view.sky = false;
  o.renderer.stream.loadRadius = o.renderer.stream.unloadRadius = 5000;
  o.cull.fade = false;
  ViewerOptions one = o, four = o;
  one.renderer.samples = 1;
  four.renderer.samples = 4;
  HeadlessResult rOne = runHeadless(world, one), rFour = runHeadless(world, four), rTerrain = runHeadless(world, terrainOnly(one));
  for (const HeadlessResult* r : {&rOne, &rFour, &rTerrain}) EXPECT_EQ(r->validationErrors, 0);
  BlockComparison c = compareBlocks(rFour, rOne, rTerrain, nullptr, o.width, o.height, 20, "4x against 1x");
  double signedSum = 0;
  for (size_t i = 0; i < size_t(o.width) * size_t(o.height); ++i) signedSum += luminance(rFour.pixels, i) - luminance(rOne.pixels, i);
  const double meanDifference = signedSum / double(o.width * o.height);
  std::printf("4x - 1x: mean luminance difference %.2f\n", meanDifference);
  EXPECT_GT(c.judged, 150);
  EXPECT_LE(c.median, 1.5);
  EXPECT_LE(std::abs(meanDifference), 1.0);
}

}  // namespace

namespace {

// The species' cover the panel shows: crown area over the world's area, from the survey, equal
// to the sum over every tile's instances written here (pi (crown radius x scale)^2).
TEST(RenderFarField, SpeciesCoverIsTheCrownAreaOverTheWorld) {
  if (!haveVulkan()) GTEST_SKIP() << "no Vulkan device";
  const SyntheticOptions so = smallWorld(40000);
  const Scene w = makeSyntheticScene(so);
  ViewerOptions o;
  o.width = 64;
  o.height = 36;
  o.camera = defaultCamera(w, o.width, o.height);
  const HeadlessResult r = runHeadless(w, o);
  ASSERT_EQ(r.frames.size(), 1u);
  // the far field's memory, by hand: 128^2 texels and 5 mips down to 4^2, 4 bytes, 5 layers;
  // the look table 8 x 8 texels of 8 bytes, 3 layers per look, 5 looks (the kinds' and the
  // conifer trees')
  const uint64_t texels = 128 * 128 + 64 * 64 + 32 * 32 + 16 * 16 + 8 * 8 + 4 * 4;
  EXPECT_EQ(r.frames[0].farFieldBytes, texels * 4 * 5 + 8 * 8 * 8 * 3 * 5);
  const std::vector<double>& cover = r.frames[0].speciesCover;
  ASSERT_EQ(cover.size(), w.species.size());
  std::vector<double> area(w.species.size(), 0.0);
  for (size_t t = 0; t < w.tiles.size(); ++t)
    for (const Instance& i : syntheticTileInstances(w, so.seed, t)) {
      const double radius = double(w.species[i.species].crownRadius) * double(i.scale);
      area[i.species] += 3.14159265358979 * radius * radius;
    }
  const double world = double(so.gridSize - 1) * double(so.cellSize) * double(so.gridSize - 1) * double(so.cellSize);
  for (size_t s = 0; s < cover.size(); ++s) {
    std::printf("species %zu: cover %.5f (reference %.5f)\n", s, cover[s], area[s] / world);
    EXPECT_GT(area[s], 0.0);
    EXPECT_NEAR(cover[s], area[s] / world, 1e-6 * area[s] / world + 1e-12) << s;
  }
}

}  // namespace
