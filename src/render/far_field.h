#pragma once
// Far field: what the vegetation looks like beyond the instance radius. One RGBA8 layer per
// species kind over the whole world (FAR_LAYERS in shaders/shared.h): rgb = the
// crown-area-weighted mean tint, straight, a = the share of that crown area in the kind's second
// look (conifer trees, render/far_look.h); and one layer of every kind's crown area per ground
// area over FAR_COVER_MAX (mips: docs/viewer-far-field.md). The terrain fragment shader blends each layer in where
// that kind's instances fade out (FrameData.fadeStart/fadeEnd), so the near field hands over
// to the far field without an edge.
//
// The layers come from a survey: a background thread of its own reads every tile once through
// Scene::placedInstances and turns each tile into a finished block of texels with its mip
// chain. Texels never straddle tiles (a tile is n x n texels, n a power of two), so a tile is
// final as soon as it is read, and mip levels up to one texel per tile are tile-local. Blocks
// are uploaded as they arrive (updateFarField, from the frame's command buffer).
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "render/vk_context.h"
#include "render/scene.h"
#include "meshes/meshes.h"
#include "shaders/shared.h"

namespace eco::render {

struct CullSettings;
struct FarFieldSurvey;  // the survey thread and its finished blocks (far_field.cpp)

// Texel layout of the far field for a world; pure arithmetic (tested on its own).
struct FarFieldLayout {
  uint32_t texelsPerTile = 0;  // n, a power of two; 0: no far field for this world
  float texelSize = 0;         // metres: tileSize / n
  uint32_t width = 0, height = 0, mips = 1;  // image texels: tiles per side * n; mips log2(n) + 1
};
// Texels of about kFarFieldTexel metres (the nearest power-of-two division of the tile), coarser
// when needed so the image is at most kFarFieldMaxSize texels a side.
constexpr float kFarFieldTexel = 8;
constexpr uint32_t kFarFieldMaxSize = 2048;
FarFieldLayout farFieldLayout(const Scene& world);

// Far trees: a smooth layer cannot draw a sparse stand's skyline (single trees' tips against
// the sky read as a flat line), so the survey hands the trees of sparse stands to the renderer
// as instances that stay resident over the whole world: a tree whose 3 x 3 texels (24 m for
// 8 m texels, within its tile) hold less than kFarTreeDensity of crown area per ground area.
// They stay in the layer as well: past its fade's end the cull pass draws a far tree only
// where the sky is behind it (the Hi-Z pyramid of the terrain's depth holds the sky's depth
// somewhere in its screen rectangle), and the layer stands for it everywhere else, so the
// layer's tone is the same with or without them. Past the budget (RendererOptions::farTrees)
// they are thinned evenly over the world: the budget's smallest of a hash of each one's tile
// and place in it are kept.
constexpr float kFarTreeDensity = 0.3f;
// The default budget of far trees (RendererOptions::farTrees): 0.5 MiB of records at most; the
// sample bake has 26,706 (all kept), the Grand Canyon DEM bake 117,941 (thinned to this). More
// cost memory and, on a CPU driver, cull time (docs/viewer-far-field.md "Where far trees stand").
constexpr uint64_t kDefaultFarTrees = 32768;
constexpr int kFarTreeGroup = 4;

struct FarFieldStats {
  size_t tiles = 0, failed = 0;  // surveyed, skipped (unreadable)
  uint64_t instances = 0;
  uint64_t farTrees = 0;         // kept as far trees (also in the layer)
  double seconds = 0;            // wall time of the survey thread
  // By species id: the crowns' area (pi (crown radius x scale)^2, m^2) over the tiles surveyed
  // so far; over the world's area, the species' cover (overlaps counted twice).
  std::vector<double> crownArea;
};

struct FarField {
  FarFieldLayout layout;
  GpuImage image;  // 2D array, FAR_IMAGE_LAYERS layers, SHADER_READ_ONLY_OPTIMAL between frames
  VkSampler sampler = VK_NULL_HANDLE;
  // The looks from every direction (render/far_look.h): RGBA16F, FAR_LOOK_AZIMUTHS x
  // FAR_LOOK_ELEVATIONS, FAR_LOOK_LAYERS * FAR_LOOKS layers, read through `sampler` at level 0.
  GpuImage look;
  float extentX = 1, extentZ = 1;  // world metres the image spans (>= the terrain)
  // Per kind, the canopy height a closed stand raises the far ground to (FrameData.canopy):
  // 0.9 of the instance-weighted mean top (mesh height x mean scale) for trees and shrubs, 0
  // for grass and ground cover (a few centimetres change no silhouette).
  float canopy[gpu::KIND_COUNT] = {};
  float crownSize[gpu::KIND_COUNT] = {};  // instance-weighted mean crown radius (FrameData.crownSize)
  bool anyUploaded = false;
  // Staging ring: call i of updateFarField writes slot i % kFramesInFlight, so a slot is
  // reused only after the frame that read it has been waited for (as its command buffer is).
  Buffer staging[kFramesInFlight];
  uint32_t nextSlot = 0;
  std::shared_ptr<FarFieldSurvey> survey;
};

// The group of 4 x 4 tiles a tile's far trees are uploaded with, and how many groups a world's
// tiles make: each group's last page may be part-full, so the far trees need at most their
// count's pages plus one per group.
std::pair<int, int> farTreeGroup(const SceneTile& tile);
size_t farTreeGroupCount(const std::vector<SceneTile>& tiles);

// Creates the (cleared) image, uploads the look table of the species' meshes and starts the
// survey thread, which keeps up to farTrees instances as far trees (0: none).
FarField createFarField(Context& ctx, const Scene& world, const MeshSet& meshes, uint64_t farTrees = 0);
// Stops the survey (between tiles) and frees everything.
void destroyFarField(Context& ctx, FarField& far);
// Called once per frame at the start of the frame's command recording: takes the finished
// survey blocks that fit this frame's staging slot and records their upload into `cmd`,
// ordered after the previous frames' terrain sampling and before this frame's.
// Uploads at most maxBytes of survey results (at least one tile's block when any is ready);
// returns the bytes uploaded.
uint64_t updateFarField(Context& ctx, FarField& far, VkCommandBuffer cmd, uint64_t maxBytes = UINT64_MAX);
// Blocks until the survey has read every tile, then uploads all of it (one-shot command
// buffers on ctx.queue; call between frames, from the thread that submits them). For
// renderers that settle before a frame (headless screenshots, tests).
void finishFarField(Context& ctx, FarField& far);
// One tile's texels with its mip chain: level L holds FAR_IMAGE_LAYERS layers of (n >> L)^2
// RGBA8 texels, layer after layer (the kinds', then FAR_COVER_LAYER with their densities), rows
// tightly packed (vkCmdCopyBufferToImage's packed layout).
struct FarFieldBlock {
  uint32_t x0 = 0, z0 = 0;  // level-0 texel of the tile's corner
  std::vector<uint8_t> texels;
};
// The survey's work for one tile (pure arithmetic, tested on its own): per kind and texel the
// mean tint and second-look share, and the crown area over the texel's area (FAR_COVER_LAYER,
// over FAR_COVER_MAX); coarser mips of trees and shrubs keep the mean transmittance
// (docs/viewer-far-field.md). crownArea
// accumulates per species; fallback: each kind's colour where the tile has none of it.
// farTrees: where the tile's far trees go (its sparse stands' trees, in the tile's order); they
// stay in the layer too. tintWeight: per species, what its crown area counts for in the tint
// (far_look.h farLookTable's sideArea: a spruce shows three times its crown disc from the side,
// a beech one, so in a mixed wood the spruces' colour is three times as much of what is seen);
// empty: 1.
FarFieldBlock surveyTile(const SceneTile& tile, const std::vector<Instance>& instances,
                         const std::vector<SpeciesRecord>& species, const FarFieldLayout& l,
                         const std::array<std::array<float, 3>, gpu::FAR_LAYERS>& fallback,
                         std::vector<double>& crownArea, std::vector<Instance>* farTrees = nullptr,
                         const std::vector<float>& tintWeight = {});
// The survey's far trees once it is done (nothing before, nothing a second time), a page (at
// most gpu::PAGE_SIZE) each, gathered by groups of kFarTreeGroup x kFarTreeGroup tiles:
// LoadedTile::tile is the world's tile count plus the page's index (below the far trees' budget
// over PAGE_SIZE plus farTreeGroupCount), the records quantized over the page's own box.
std::vector<LoadedTile> takeFarTrees(FarField& far);

// GPU memory the far field holds: the layers with their mips, and the look table.
uint64_t farFieldBytes(const FarField& far);
// The survey's figures so far (complete once finishFarField returned).
FarFieldStats farFieldStats(const FarField& far);
// Fills frame.farField: the world-to-texture scale, and z = 1 when the far field is drawn
// (cull.fade and cull.farField, and some layer data has been uploaded).
void prepareFarFieldFrame(const FarField& far, const CullSettings& cull, gpu::FrameData& frame);

}  // namespace eco::render
