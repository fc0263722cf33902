#pragma once
// The frame: uploads -> terrain depth pre-pass -> Hi-Z pyramid of that depth -> instance
// culling compute (frustum, per-kind draw distance + LOD, occlusion; the sun's shadow cascades
// in the same pass) -> shadow maps (terrain and casters, one multi-draw-indirect per cascade)
// -> colour pass: terrain shading, one multi-draw-indirect for all vegetation (a command per
// species and LOD), sky. Design: docs/renderer.md, docs/viewer-look.md. kFramesInFlight frames are recorded ahead of the GPU: everything the CPU writes
// per frame (constants, page table, staging, read-back) has one copy per frame slot, and pages
// freed by an eviction are reused only once every frame that could read them has finished.
//
// Occlusion design: the pyramid is built from THIS frame's terrain depth, drawn first. Terrain
// is the only occluder, so culling is exact for the current frame (no reprojection, no stale
// occluders while the camera moves or tiles stream) and conservative: an instance is dropped
// only when its bounding sphere lies behind the terrain over every pixel it could touch.
//
// Memory: instances stay in their tiles' 16-byte records (shared.h PackedInstance) in
// 128-instance pages, one tile per page, reached through buffer device addresses and decoded
// in the shaders. Pages live in device-local memory; where that memory is also host-visible on
// a heap as large as the device's video memory (integrated GPUs, resizable BAR, lavapipe) the
// CPU writes them directly, otherwise (discrete GPUs with a 256 MB BAR) through per-frame
// staging buffers and copies recorded in the frame. Either way at most uploadBytesPerFrame of
// records are written per frame, nearest tiles first.
#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "render/camera.h"
#include "render/cull_pass.h"
#include "render/exposure.h"
#include "render/far_field.h"
#include "render/instance_pages.h"
#include "meshes/meshes.h"
#include "render/streamer.h"
#include "render/shadows.h"
#include "render/terrain_draw.h"
#include "render/vegetation_draw.h"
#include "render/view_settings.h"
#include "render/vk_context.h"
#include "render/scene.h"

namespace eco::render {

enum class UploadPath { Auto, Direct, Staged };

struct RendererOptions {
  int width = 1280, height = 720;
  StreamSettings stream;
  uint64_t uploadBytesPerFrame = 2u << 20;  // far-field layers + tile records written per frame (both paths)
  // and at most this much of the frame's CPU time (at least one page per frame): where the CPU
  // also rasterises (lavapipe) or memory is contended, copies slow down several-fold
  double uploadMsPerFrame = 0.5;
  bool capture = false;                      // keep a host copy of each frame's pixels
  uint32_t maxPages = 0;  // instance pages (128 each); 0: as many as the budget and device allow
  UploadPath upload = UploadPath::Auto;  // Staged forces the discrete-GPU path (tests, lavapipe)
  ShadowSettings shadows;
  // Multisampling of the colour pass (1, 2, 4 or 8; lowered to what the device offers): the
  // edges of leaves, blades and trunks are geometry, so MSAA is what smooths them.
  uint32_t samples = 4;
  // Terrain nodes drawn with terrain.frag specialised to what their pixels can need
  // (render/terrain_draw.h TerrainShadingBits); false: the whole shader everywhere (the same
  // picture, slower on lavapipe; tests compare the two)
  bool terrainShadingClasses = true;
  // false: the far field's plants are not drawn over the terrain (its composite pass; the
  // canopy's lift and its shadow on the ground stay): tests isolate what that pass draws
  bool farFieldComposite = true;
  // Far trees (render/far_field.h): the trees of sparse stands that stay resident over the whole
  // world and are drawn past their fade where the sky is behind them (the far field's layer
  // holds them too); at most this many, thinned evenly over the world past it (16 B each in
  // storage added once the survey has counted them, beside the streaming budget; counted in
  // FrameStats::farTrees, not in resident); 0: none (ecoview --far-trees).
  uint64_t farTrees = kDefaultFarTrees;
};

struct FrameStats {
  uint64_t frame = 0;
  float exposure = 1;         // the scene's factor before tone mapping: the view's bias x auto-exposure
  bool metered = false;       // auto-exposure metered this frame
  float meteredExposure = 1;  // what the meter asked for (render/exposure.h), metered frames only
  double cpuMs = 0;     // CPU time of the frame's work (streaming, uploads, recording, submit): thread CPU time
  double submitMs = 0;  // the same work in wall-clock time (includes being preempted)
  double waitMs = 0;  // CPU blocked until the frame slot was free (GPU kFramesInFlight frames behind)
  // GPU time per pass, -1 without timestamps: terrain = the depth pre-pass, shadow = the
  // cascades, color = terrain shading, vegetation and sky
  double gpuMs = -1, terrainMs = -1, pyramidMs = -1, cullMs = -1, shadowMs = -1, colorMs = -1;
  // resident: the world's tiles' instances (within the budget; far trees apart, below); tested:
  // the records of the pages the cull pass ran over (Renderer::listPages: far trees' pages only
  // where some of their trees can be drawn); afterFrustum leaves out the far trees of a page
  // skipped for no sky behind it
  uint64_t resident = 0, tested = 0, afterFrustum = 0, afterOcclusion = 0;
  uint64_t terrainTriangles = 0;  // drawn by the terrain LOD selection
  // its nodes by TerrainShadingBits key: (key, nodes) of the keys in use, ascending (a frame
  // uses a handful of the 256; headless runs keep every frame's stats)
  std::vector<std::pair<uint32_t, uint32_t>> terrainShadings;
  uint32_t terrainFallbackNodes = 0;  // of those, drawn with the whole shader: their key's pipeline is not made yet
  uint32_t drawCalls = 0;       // vkCmdDrawIndexedIndirect calls recorded for vegetation
  uint32_t drawCommands = 0;    // indirect command records they consume
  uint32_t nonEmptyDraws = 0;   // camera records with instanceCount > 0, as the GPU wrote them
  // Camera view, as the GPU wrote them: instances per species * LOD_COUNT + lod, and the
  // triangles they make with each species' mesh
  std::vector<uint32_t> speciesInstances;
  std::vector<double> speciesCover;  // by species id: Renderer::speciesCover() when the frame finished
  uint64_t vegetationTriangles = 0;
  uint64_t shadowInstances = 0;  // drawn into the shadow cascades, all cascades together
  uint64_t shadowTriangles = 0;  // their triangles
  bool shadows = false;          // the cascades were drawn
  uint64_t uploadedBytes = 0;   // tile records written this frame
  uint64_t residentBytes = 0;   // GPU memory held for instances: pages, page tables, visible list
  uint64_t farFieldBytes = 0;   // GPU memory of the far field (layers with mips, look table)
  uint64_t farTrees = 0;        // far trees resident (not in `resident`; their records in residentBytes)
  uint64_t farCards = 0;        // far trees drawn as their species' card (a point each)
  bool staged = false;          // uploads went through staging buffers
  size_t tilesResident = 0;
  uint64_t tileLoads = 0, tileUnloads = 0;  // cumulative
};

// Extra work for a windowed frame: wait/signal semaphores and commands recorded after the
// scene (the colour image is then in TRANSFER_SRC_OPTIMAL).
struct FrameHooks {
  VkSemaphore wait = VK_NULL_HANDLE;
  VkSemaphore signal = VK_NULL_HANDLE;
  std::function<void(VkCommandBuffer, const GpuImage& color)> record;
  // Called after the scene, colour image in TRANSFER_SRC_OPTIMAL, must leave it so, before the
  // screenshot capture copy (the UI: render/ui.h), so it shows in captures and in the window.
  std::function<void(VkCommandBuffer, const GpuImage& color)> overlay;
};

struct VisibleRef {
  size_t tile;
  uint32_t index;  // within the tile's instances
  uint32_t draw;   // (view * species count + species) * LOD_COUNT + lod
};

class Renderer {
 public:
  Renderer(Context& ctx, const Scene& world, const RendererOptions& options);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Waits until every tile wanted around the camera is loaded, uploaded and resident, and for
  // the far-field survey (finishFarField: every tile surveyed and uploaded).
  void settleStreaming(const Camera& cam);
  // With ViewSettings::autoExposure: frames rendered and metered from this camera until the
  // exposure moves by less than 2 % (at most 8), each taking the metered exposure at once; for
  // reproducible pictures. The window adapts over about half a second instead.
  void settleExposure(const Camera& cam, const CullSettings& cull);
  // true: each metered frame's exposure is taken at once by the next frames (no easing by wall
  // time), so a sequence of settled frames is reproducible; the window eases.
  void setExposureAtOnce(bool atOnce) { adaptAtOnce_ = atOnce; }
  float autoExposure() const { return autoExposure_; }  // the factor applied with the view's bias

  // Pipelined frames: beginFrame waits until the next frame slot is free and returns the
  // statistics of the frame that last used it (none for the first kFramesInFlight frames);
  // submitFrame streams, uploads, records and submits without waiting for the GPU.
  std::vector<FrameStats> beginFrame();
  void submitFrame(const Camera& cam, const CullSettings& cull, const FrameHooks* hooks = nullptr);
  // Waits for every submitted frame; returns their statistics, oldest first.
  std::vector<FrameStats> drain();
  // One frame, waited for: submitFrame + drain. Returns this frame's statistics.
  FrameStats render(const Camera& cam, const CullSettings& cull, const FrameHooks* hooks = nullptr);

  // New target size: waits for the GPU, recreates the colour, depth and pyramid images.
  void resize(int width, int height);

  // Lighting, overlay and per-species visibility from the next submitted frame on.
  void setView(const ViewSettings& view) { view_ = view; }
  const ViewSettings& view() const { return view_; }
  // The species' meshes as drawn (procedural, or the bake's mesh file; error: why a file was not used).
  const std::vector<SpeciesMesh>& speciesMeshes() const { return meshes_.species; }

  // After drain() (or render()):
  const std::vector<uint8_t>& pixels() const { return pixels_; }  // RGBA8 of the last frame, capture only
  // The indirect buffer as the GPU left it after the last frame (instance counts written by
  // cull.comp, LOD 1 first instances by cull_finish.comp): what vkCmdDrawIndexedIndirect
  // consumed. VIEW_COUNT * speciesCount() * LOD_COUNT records, index
  // (view * speciesCount() + species) * LOD_COUNT + lod; each (view, species) owns the visible
  // list's slots [LOD 0 firstInstance, LOD 1 regionEnd).
  std::vector<gpu::DrawCommand> drawCommands() const { return lastDraws_; }
  uint32_t speciesCount() const { return speciesCount_; }
  const std::vector<uint64_t>& speciesResident() const { return pages_.speciesResident; }  // by species id
  // By species id: crown area over the world's area, from the far-field survey (render/far_field.h
  // FarFieldStats::crownArea; the tiles surveyed so far); empty without a survey.
  std::vector<double> speciesCover() const;
  std::vector<size_t> residentTiles() const;
  bool stagedUploads() const { return staged_; }
  int width() const { return options_.width; }
  int height() const { return options_.height; }

 private:
  friend struct RendererProbe;  // tests read the visible list back (tests/render_support.cpp)
  struct FrameSlot {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkQueryPool queries = VK_NULL_HANDLE;
    Buffer frame, pageTable, pageList, farCompact, staging, readback, pixels, drawInit;
    uint32_t farListed = 0;  // far trees' pages after pageList's cull.x for far_pages.comp
    bool inFlight = false;
    uint64_t tableVersion = UINT64_MAX;  // InstancePages::tableVersion of pageTable's copy
    FrameStats stats;  // filled at submit, completed from the read-back
    gpu::FrameData data{};
  };
  void createTargets();
  void destroyTargets();
  void stream(const Camera& cam);
  void admit(LoadedTile& tile);  // startUpload, or warn once and tell the streamer
  void admitFarTrees();          // the far field's far trees uploaded so far (render/far_field.h)
  void checkCullCapacity() const;  // std::logic_error unless pages, tiles and species counts agree
  // Makes the visible list hold the most any eye needs at `reach` and at least `need` slots
  // (waits for the GPU when it must grow).
  // `projection`'s proj and eye.w give the cascades' regions.
  void sizeVisibleList(const std::vector<double>& reach, const gpu::FrameData& projection, uint64_t need);
  void record(FrameSlot& slot, const CullSettings& cull, const FrameHooks* hooks);
  void setLight(gpu::FrameData& frame) const;  // sun, sky, fog, water, overlay, shadow cascades
  FrameStats finishFrame(FrameSlot& slot);  // after its fence: read-back into the stats
  uint64_t residentBytes() const;
  // Writes the pages the cull pass runs over this frame into `list`: how many, then how many far
  // trees' pages after them far_pages.comp tests for sky first.
  std::pair<uint32_t, uint32_t> listPages(const gpu::FrameData& frame, uint32_t* list) const;

  Context& ctx_;
  const Scene& world_;
  RendererOptions options_;
  std::unique_ptr<Streamer> streamer_;
  bool staged_ = false;

  InstancePages pages_;  // the resident instances' records and which tiles hold them
  uint32_t speciesCount_ = 1;
  std::vector<bool> casts_;       // by species id: drawn into the shadow maps
  std::vector<gpu::GpuSpecies> speciesTable_;  // the GPU's species table (species_), speciesCount_ entries
  // The visible list: visibleSlots_ entries, enough for every eye at visibleReach_ (per species,
  // render/visible_reach.h) and at most budgetSlots_ (the budget's resident instances in the
  // camera's regions and its casters in each cascade's) unless a frame needs more.
  uint64_t visibleSlots_ = 0;
  std::vector<double> visibleReach_;
  std::array<float, 3> visibleProjection_{};  // the proj.x, proj.y and near plane it was sized for
  // the shadow casters: the highest their spheres' centres stand (terrain and offset), their
  // largest sphere, and the farthest a sphere's centre sits from its origin
  double casterTop_ = 0, casterRadius_ = 0, casterOffset_ = 0;
  uint64_t budgetSlots_ = 0;
  double farTreeReach_ = 0;  // a tree's sphere, from its origin at most (metres)
  uint32_t farPageCapacity_ = 0;  // page-table entries reserved for far trees
  uint64_t farTreeBudget_ = 0;      // far trees the survey may keep (RendererOptions::farTrees)
  uint64_t farTreesAdmitted_ = 0;
  uint64_t checkedTable_ = UINT64_MAX;  // the InstancePages::tableVersion checkCullCapacity saw
  VkDeviceSize drawBytes_ = 0;    // the indirect records of all views

  Buffer visible_, draws_, stats_, species_;
  MeshSet meshes_;
  TerrainDraw terrain_;
  FarField farField_;
  ExposureMeter meter_;
  float autoExposure_ = 1;     // the metered factor (render/exposure.h), times view_.exposure
  bool adaptAtOnce_ = false;   // settleExposure: take the metered value without easing
  std::chrono::steady_clock::time_point lastMetered_{};
  std::vector<GpuImage> layers_;  // Scene::layers as textures (render/layers.h)
  GpuImage color_, colorMsaa_, depth_, pyramid_, shadowMap_;  // colorMsaa_: samples_ > 1 only
  VkSampleCountFlagBits samples_ = VK_SAMPLE_COUNT_1_BIT;
  VkSampler sampler_ = VK_NULL_HANDLE;
  VegetationDraw vegetation_;
  CullPass cull_;
  Pipeline sky_;
  ViewSettings view_;
  float minY_ = 0, maxY_ = 0;  // terrain heights, maxY_ plus the tallest plant
  float tallest_ = 0;          // the tallest plant: its height at its largest scale
  std::array<FrameSlot, kFramesInFlight> slots_;
  uint64_t frameIndex_ = 0;      // frames submitted
  uint64_t framesFinished_ = 0;  // frames whose fence has been waited for
  std::vector<uint8_t> pixels_;
  std::vector<gpu::DrawCommand> lastDraws_;
  gpu::FrameData lastFrame_{};
};

}  // namespace eco::render
