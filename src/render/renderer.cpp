#include "render/renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>
#include <cstring>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/species_kind.h"
#include "render/layers.h"
#include "render/visible_reach.h"

namespace eco::render {

namespace {

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
// Depth with a stencil: the colour pass leaves each terrain sample's far-field composite key in
// it (render/terrain_draw.h kStencilTerrain).
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT_S8_UINT;
constexpr VkFormat kShadowFormat = VK_FORMAT_D32_SFLOAT;
enum Timestamp : uint32_t { TsBegin, TsTerrain, TsPyramid, TsCull, TsShadow, TsColor, TsCount };
// read-back layout of a frame slot: the draw records (drawBytes_), then the stats counters
constexpr VkDeviceSize kStatBytes = 4 * gpu::STAT_COUNT;
constexpr VkDeviceSize kMeterBytes = 4 * gpu::METER_BINS;
// Slope-scaled depth bias of the shadow passes (in depth units of the D32 map; the lookup
// also offsets along the normal, shadow.glsl).
constexpr float kShadowBiasConstant = 1.0f, kShadowBiasSlope = 1.75f;

constexpr VkShaderStageFlags kVF = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
constexpr VkDescriptorType kUbo = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
constexpr auto kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr VkImageAspectFlags kDepthAspects = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
constexpr auto kRW = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT;

uint32_t nextPow2(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p *= 2;
  return p;
}

uint32_t mipCount(uint32_t w, uint32_t h) {
  uint32_t n = 1;
  while ((std::max(w, h) >> n) > 0) ++n;
  return n;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Renderer::Renderer(Context& ctx, const Scene& world, const RendererOptions& options)
    : ctx_(ctx), world_(world), options_(options) {
  VkDevice dev = ctx.device;
  staged_ = options.upload == UploadPath::Staged ||
            (options.upload == UploadPath::Auto && !hostWritesVideoMemory(ctx.memory));
  if (world.species.size() > gpu::MAX_SPECIES) throw InputError("the viewer draws at most 256 species");
  speciesCount_ = uint32_t(std::max<size_t>(world.species.size(), 1));
  casts_.assign(speciesCount_, false);
  for (size_t i = 0; i < world.species.size(); ++i) casts_[i] = world.species[i].kind <= 1;  // trees, shrubs
  // the views' LODs, then the far cards' one record (shared.h FAR_CARD_PX)
  drawBytes_ = (VkDeviceSize(gpu::VIEW_COUNT) * speciesCount_ * gpu::LOD_COUNT + 1) * sizeof(gpu::DrawCommand);

  // The instance budget must fit the device: 16 B per instance in pages plus 4 B in the
  // visible list, within half of the largest device heap (the rest is for the driver,
  // targets and other applications).
  const uint64_t heapInstances = largestDeviceHeap(ctx.memory) / 2 / (sizeof(gpu::PackedInstance) + 4);
  const uint64_t pageLimit = std::min<uint64_t>(
      gpu::MAX_PAGES, uint64_t(gpu::PAGE_ROWS) * std::min<uint32_t>(ctx.properties.limits.maxComputeWorkGroupCount[2], 65535));
  const uint64_t dispatchInstances = (pageLimit - std::min<uint64_t>(pageLimit, world.tiles.size() + 1)) * gpu::PAGE_SIZE;
  const uint64_t deviceMax = std::min(heapInstances, dispatchInstances);
  if (options_.stream.budgetInstances > deviceMax) {
    spdlog::warn("instance budget {} clamped to {} (this device's memory and dispatch limits)",
                 options_.stream.budgetInstances, deviceMax);
    options_.stream.budgetInstances = deviceMax;
  }
  // The page pool: a page per 128 budgeted instances plus each tile's partial last page, but
  // never more than the whole world needs; startUpload turns away a tile the pool cannot hold.
  // Storage likewise, where the whole world's is its tails packed (instance_pages.h).
  uint64_t worldPages = 0, worldInstances = 0;
  std::vector<uint64_t> tileInstances;
  for (const SceneTile& t : world.tiles) {
    worldPages += (t.instances + gpu::PAGE_SIZE - 1) / gpu::PAGE_SIZE;
    worldInstances += t.instances;
    tileInstances.push_back(t.instances);
  }
  // Far trees: at most the world's trees, only with a far field; their pages come on top of
  // the streaming budget's (a group of tiles' far trees are a page or two of their own), their
  // storage once the survey has counted them (admitFarTrees)
  uint64_t worldTrees = 0;
  for (size_t i = 0; i < world.species.size(); ++i)
    if (world.species[i].kind == uint32_t(SpeciesKind::Tree))
      worldTrees += i < world.speciesInstances.size() ? world.speciesInstances[i] : worldInstances;
  // (their pages fewer than PAGE_ROWS: far_pages.comp's indirect dispatch is one row of them)
  const uint64_t farGroups = farTreeGroupCount(world.tiles);
  const bool layered = farFieldLayout(world).texelsPerTile > 0;  // far trees need the far field's layer
  farTreeBudget_ = layered && farGroups < gpu::PAGE_ROWS
                       ? std::min({options_.farTrees, worldTrees, deviceMax / 2,
                                   uint64_t(gpu::PAGE_ROWS - 1 - farGroups) * gpu::PAGE_SIZE})
                       : 0;
  if (options_.farTrees > 0 && layered && farGroups >= gpu::PAGE_ROWS)
    spdlog::warn("no far trees: the world's {} groups of tiles pass the cull pass's {} far pages", farGroups,
                 gpu::PAGE_ROWS);
  const uint64_t farPages = farTreeBudget_ ? farTreeBudget_ / gpu::PAGE_SIZE + farGroups : 0;
  farPageCapacity_ = uint32_t(farPages);
  const uint64_t streamingPages = (options_.stream.budgetInstances + gpu::PAGE_SIZE - 1) / gpu::PAGE_SIZE + world.tiles.size() + 1;
  uint32_t maxPages = uint32_t(std::min<uint64_t>({streamingPages + farPages, worldPages + farPages, pageLimit}));
  uint32_t storagePages = uint32_t(std::min<uint64_t>({streamingPages, packedStoragePages(tileInstances), pageLimit}));
  if (options.maxPages > 0) maxPages = std::min(maxPages, options.maxPages);
  maxPages = std::max(maxPages, 1u);
  storagePages = std::max(std::min(storagePages, maxPages), 1u);
  // The visible list never holds more than the resident instances (within the budget) in the
  // camera's regions and the resident casters in each cascade's
  budgetSlots_ = std::min(options_.stream.budgetInstances, worldInstances);
  uint64_t worldCasters = worldInstances;
  if (world.speciesInstances.size() == world.species.size() && !world.species.empty()) {
    worldCasters = 0;
    for (size_t i = 0; i < world.species.size(); ++i)
      if (casts_[i]) worldCasters += world.speciesInstances[i];
  }
  if (options_.shadows.enabled) budgetSlots_ += gpu::CASCADE_COUNT * std::min(budgetSlots_, worldCasters);
  budgetSlots_ += 2 * farTreeBudget_;  // a far tree is listed as a mesh or as a card, never as a caster
  pages_ = createInstancePages(ctx, maxPages, storagePages, world.tiles.size(), farPages, speciesCount_,
                               options_.stream.budgetInstances + farTreeBudget_, staged_);
  draws_ = createBuffer(ctx, drawBytes_,
                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                            VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        MemoryUse::Gpu);
  stats_ = createBuffer(ctx, kStatBytes,
                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                            VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        MemoryUse::Gpu);
  // vegetation meshes, one per species (procedural by its form, or the bake's mesh file)
  {
    std::vector<SpeciesMeshSource> sources;
    std::vector<std::string> problems(world.species.size());
    for (size_t i = 0; i < world.species.size(); ++i)
      sources.push_back(meshSource(world.species[i], world.bakeDir, &problems[i]));
    meshes_ = buildMeshes(sources);
    for (size_t i = 0; i < meshes_.species.size(); ++i) {
      if (problems[i].empty()) problems[i] = meshes_.species[i].error;
      if (!problems[i].empty())
        spdlog::warn("species {}: {}; drawing the procedural {} mesh", world.species[i].name, problems[i],
                     meshFormName(sources[i].form));
    }
  }
  {
    std::vector<gpu::GpuSpecies> table = gpuSpeciesTable(world.species);
    for (size_t i = 0; i < world.species.size(); ++i) {
      const float* sphere = meshes_.species[i].sphere;
      table[i].sphere = {sphere[0], sphere[1], sphere[2], sphere[3]};
      table[i].info.y = casts_[i] ? gpu::SPECIES_CASTS : 0;
      const float* card = meshes_.species[i].card;
      table[i].card = {card[0], card[1], card[2], card[3]};
    }
    speciesTable_.assign(table.begin(), table.begin() + speciesCount_);  // the ids tiles may hold
    species_ = createBuffer(ctx, table.size() * sizeof(gpu::GpuSpecies), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                            MemoryUse::Upload);
    std::memcpy(species_.data, table.data(), species_.size);
  }
  {
    auto [lo, hi] = std::minmax_element(world.heights.values.begin(), world.heights.values.end());
    minY_ = world.heights.values.empty() ? 0 : *lo;
    maxY_ = world.heights.values.empty() ? 0 : *hi;
    for (const SpeciesRecord& sp : world.species) tallest_ = std::max(tallest_, sp.meshHeight * sp.scaleMax);
    maxY_ += tallest_;
  }
  // how far a tree's sphere reaches from its origin (listPages: a far trees' page's box grown by it)
  for (size_t k = 0; k < speciesTable_.size() && k < world.species.size(); ++k)
    if (world.species[k].kind == uint32_t(SpeciesKind::Tree)) {
      const SphereExtent e = sphereExtent(speciesTable_[k]);
      farTreeReach_ = std::max(farTreeReach_, e.offset + e.radius);
    }
  // the shadow casters: how high their spheres' centres stand and how large the spheres are
  // (the cascades' regions of the visible list, render/visible_reach.h)
  casterTop_ = double(minY_);
  for (size_t k = 0; k < speciesTable_.size(); ++k)
    if (casts_[k]) {
      const SphereExtent e = sphereExtent(speciesTable_[k]);
      casterTop_ = std::max(casterTop_, double(maxY_ - tallest_) + e.offset);
      casterRadius_ = std::max(casterRadius_, e.radius);
      casterOffset_ = std::max(casterOffset_, e.offset);
    }
  // the visible list, sized for the default draw distances and this size's projection
  // (submitFrame grows it for longer distances or another projection)
  {
    gpu::FrameData f = makeFrameData(Camera{}, options_.width, options_.height, CullSettings{});
    f.cull.y = gpu::CULL_FADE;
    setFadeDistances(f, CullSettings{}, options_.stream.loadRadius);
    sizeVisibleList(speciesReach(f, speciesTable_), f, 0);
  }

  {
    // the largest count at most options.samples that colour and depth attachments both offer
    // (the depth-stencil target is also sampled, both aspects: the far field's pass)
    const VkPhysicalDeviceLimits& l = ctx.properties.limits;
    const VkSampleCountFlags offered = l.framebufferColorSampleCounts & l.framebufferDepthSampleCounts &
                                       l.framebufferStencilSampleCounts & l.sampledImageDepthSampleCounts &
                                       l.sampledImageStencilSampleCounts;
    samples_ = VK_SAMPLE_COUNT_1_BIT;
    for (uint32_t n : {8u, 4u, 2u})
      if (n <= options_.samples && (offered & n)) {
        samples_ = VkSampleCountFlagBits(n);
        break;
      }
  }
  {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(ctx.physical, kDepthFormat, &props);
    const VkFormatFeatureFlags need = VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    if ((props.optimalTilingFeatures & need) != need)
      throw std::runtime_error("this Vulkan device cannot render to and sample D32_SFLOAT_S8_UINT depth-stencil images");
  }
  terrain_ = createTerrainDraw(ctx, world.heights, world.cellSize, kColorFormat, kDepthFormat, samples_);
  if (world.riverLayer >= 0 && size_t(world.riverLayer) < world.layers.size()) {
    // the nodes' least river distance: the water's shader code only where it can be
    const SceneLayer& l = world.layers[size_t(world.riverLayer)];
    if (l.width == world.heights.width && l.height == world.heights.height) {
      std::vector<float> metres(size_t(l.width) * size_t(l.height));
      for (int j = 0; j < l.height; ++j)
        for (int i = 0; i < l.width; ++i) metres[size_t(j) * size_t(l.width) + size_t(i)] = l.value(i, j);
      setTerrainRiver(terrain_, metres);
    }
  }
  layers_ = uploadLayers(ctx, world.layers);
  farField_ = createFarField(ctx, world, meshes_, farTreeBudget_);
  const uint32_t mapSize = options_.shadows.enabled
                               ? std::clamp<uint32_t>(options_.shadows.mapSize, 64,
                                                      std::min(4096u, ctx.properties.limits.maxImageDimension2D))
                               : 64;  // never drawn
  options_.shadows.mapSize = mapSize;
  // Left undefined until a shadow pass draws it; frames without one sample the terrain
  // module's lit fallback (terrain_.noShadow) instead.
  shadowMap_ = createImage(ctx, mapSize, mapSize, 1, kShadowFormat,
                           VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, gpu::CASCADE_COUNT);

  VkSamplerCreateInfo si{.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = si.minFilter = VK_FILTER_NEAREST;
  si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  si.maxLod = VK_LOD_CLAMP_NONE;
  ECO_VK(vkCreateSampler(dev, &si, nullptr, &sampler_));

  // pipelines
  vegetation_ = createVegetationDraw(ctx, meshes_, kColorFormat, kDepthFormat, kShadowFormat, samples_);
  GraphicsDesc sky{"sky.vert", "sky.frag", {}, {}, kColorFormat, kDepthFormat, VK_CULL_MODE_NONE};
  sky.depthCompare = VK_COMPARE_OP_EQUAL;  // only where nothing was drawn (depth still 0)
  sky.depthWrite = false;
  sky.samples = samples_;
  sky_ = createGraphicsPipeline(ctx, sky, {{0, kUbo, kVF}}, 0);
  cull_ = createCullPass(ctx);

  meter_ = createExposureMeter(ctx);
  createTargets();

  VkCommandBufferAllocateInfo ai{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = ctx.commandPool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  for (FrameSlot& s : slots_) {
    ECO_VK(vkAllocateCommandBuffers(dev, &ai, &s.cmd));
    VkFenceCreateInfo fi{.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    ECO_VK(vkCreateFence(dev, &fi, nullptr, &s.fence));
    if (ctx.timestamps) {
      VkQueryPoolCreateInfo qi{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
      qi.queryCount = TsCount;
      ECO_VK(vkCreateQueryPool(dev, &qi, nullptr, &s.queries));
    }
    s.frame = createBuffer(ctx, sizeof(gpu::FrameData), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUse::Upload);
    s.pageTable = createBuffer(ctx, VkDeviceSize(pages_.maxPages) * sizeof(gpu::GpuPage), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                               MemoryUse::Upload);
    s.pageList = createBuffer(ctx, VkDeviceSize(pages_.maxPages) * sizeof(uint32_t), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                              MemoryUse::Upload);
    if (farPageCapacity_ > 0)
      s.farCompact = createBuffer(ctx, VkDeviceSize(4 + farPageCapacity_) * sizeof(uint32_t),
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  MemoryUse::Gpu);
    s.readback = createBuffer(ctx, drawBytes_ + kStatBytes + kMeterBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              MemoryUse::Readback);
    s.drawInit = createBuffer(ctx, drawBytes_, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::Upload);
    if (staged_) {
      s.staging = createBuffer(ctx, std::max<VkDeviceSize>(options_.uploadBytesPerFrame, kPageBytes),
                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::Upload);
      std::memset(s.staging.data, 0, s.staging.size);  // first-touch faults now, not in a frame
    }
  }
  streamer_ = std::make_unique<Streamer>(world, options_.stream);
}

void Renderer::createTargets() {
  uint32_t w = uint32_t(options_.width), h = uint32_t(options_.height);
  color_ = createImage(ctx_, w, h, 1, kColorFormat,
                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_SAMPLED_BIT);
  depth_ = createImage(ctx_, w, h, 1, kDepthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                       1, samples_);
  if (samples_ != VK_SAMPLE_COUNT_1_BIT)
    colorMsaa_ = createImage(ctx_, w, h, 1, kColorFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 1, samples_);
  // Hi-Z pyramid: power-of-two levels, so level L texel j covers exactly depth pixels
  // [j, j + 1) * 2^(L + 1); texels past the screen edge repeat the edge pixels.
  uint32_t pw = nextPow2((w + 1) / 2), ph = nextPow2((h + 1) / 2);
  pyramid_ = createImage(ctx_, pw, ph, mipCount(pw, ph), VK_FORMAT_R32_SFLOAT,
                         VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
  if (pyramid_.mipViews.empty()) pyramid_.mipViews.push_back(pyramid_.view);  // 1x1 pyramid shares its view
  for (FrameSlot& s : slots_)
    if (options_.capture)
      s.pixels = createBuffer(ctx_, VkDeviceSize(w) * h * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::Readback);

  // the pyramid stays in GENERAL for its whole life
  VkCommandBuffer one = beginOneShot(ctx_);
  imageBarrier(one, pyramid_.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL);
  VkClearColorValue zero{};
  VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0, 1};
  vkCmdClearColorImage(one, pyramid_.image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &all);
  memoryBarrier(one, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, kCompute, kRW);
  endOneShot(ctx_, one);
}

void Renderer::destroyTargets() {
  if (pyramid_.mipViews.size() == 1 && pyramid_.mipViews[0] == pyramid_.view) pyramid_.mipViews.clear();
  for (GpuImage* i : {&color_, &colorMsaa_, &depth_, &pyramid_}) destroyImage(ctx_, *i);
  for (FrameSlot& s : slots_) destroyBuffer(ctx_, s.pixels);
}

Renderer::~Renderer() {
  streamer_.reset();
  VkDevice dev = ctx_.device;
  vkDeviceWaitIdle(dev);
  for (FrameSlot& s : slots_) {
    vkDestroyFence(dev, s.fence, nullptr);
    vkFreeCommandBuffers(dev, ctx_.commandPool, 1, &s.cmd);
    if (s.queries) vkDestroyQueryPool(dev, s.queries, nullptr);
    for (Buffer* b : {&s.frame, &s.pageTable, &s.pageList, &s.farCompact, &s.staging, &s.readback, &s.drawInit})
      destroyBuffer(ctx_, *b);
  }
  destroyTargets();
  destroyVegetationDraw(ctx_, vegetation_);
  destroyCullPass(ctx_, cull_);
  for (Pipeline* p : {&sky_})
    destroyPipeline(ctx_, *p);
  destroyImage(ctx_, shadowMap_);
  for (GpuImage& l : layers_) destroyImage(ctx_, l);
  vkDestroySampler(dev, sampler_, nullptr);
  destroyTerrainDraw(ctx_, terrain_);
  destroyFarField(ctx_, farField_);
  destroyExposureMeter(ctx_, meter_);
  for (Buffer* b : {&visible_, &draws_, &stats_, &species_}) destroyBuffer(ctx_, *b);
  destroyInstancePages(ctx_, pages_);
}

void Renderer::resize(int width, int height) {
  if (width == options_.width && height == options_.height) return;
  drain();
  destroyTargets();
  options_.width = width;
  options_.height = height;
  createTargets();
}

void Renderer::admit(LoadedTile& tile) {
  if (startUpload(pages_, tile)) return;
  const SceneTile& t = world_.tiles[tile.tile];
  spdlog::warn("tile {},{} skipped: no free instance pages ({} in use)", t.x, t.z, pages_.maxPages - pages_.freePages.size());
  streamer_->reject(tile.tile);
}

void Renderer::stream(const Camera& cam) {
  std::vector<size_t> unload;
  streamer_->update(cam.position, unload);
  for (size_t t : unload) evictTile(pages_, *streamer_, t, frameIndex_);
  retirePages(pages_, framesFinished_);
  // take finished loads while their records would fit this frame's upload budget
  uint64_t queued = 0;
  for (const PendingUpload& p : pages_.pending) queued += (p.tile.instances.size() - p.written) * sizeof(gpu::PackedInstance);
  LoadedTile tile;
  while (queued < options_.uploadBytesPerFrame && streamer_->poll(tile)) {
    queued += tile.instances.size() * sizeof(gpu::PackedInstance);
    admit(tile);
  }
  admitFarTrees();
}

void Renderer::admitFarTrees() {
  // All at once when the survey is done, within the budget by its count, in pages reserved for
  // them unless maxPages cut the pool (a test's knob: then they are missing, with a warning),
  // and in storage added for them now, as much as they take
  std::vector<LoadedTile> trees = takeFarTrees(farField_);
  if (trees.empty()) return;
  std::vector<uint64_t> counts;
  for (const LoadedTile& t : trees) counts.push_back(t.instances.size());
  addStorage(ctx_, pages_, uint32_t(std::min<uint64_t>(packedStoragePages(counts), pages_.maxPages)));
  for (LoadedTile& t : trees) {
    const size_t n = t.instances.size();
    if (startUpload(pages_, t)) {
      farTreesAdmitted_ += n;
    } else {
      spdlog::warn("{} far trees skipped: no free instance pages", n);
    }
  }
}

void Renderer::settleStreaming(const Camera& cam) {
  // Loads, then uploads in budget-sized steps (one-shot submissions) until nothing is left.
  for (int pass = 0; pass < 2; ++pass) {  // a second pass picks up loads planned after evictions
    std::vector<size_t> unload;
    streamer_->update(cam.position, unload);
    for (size_t t : unload) evictTile(pages_, *streamer_, t, frameIndex_);
    streamer_->waitIdle();
    drain();
    retirePages(pages_, framesFinished_);
    LoadedTile tile;
    for (bool more = true; more;) {
      more = streamer_->poll(tile);
      if (more) {
        admit(tile);
      } else if (pass == 1) {  // last: the whole survey's far trees
        finishFarField(ctx_, farField_);
        admitFarTrees();
      }
      while (!pages_.pending.empty()) {
        FrameSlot& slot = slots_[0];
        pages_.copies.clear();
        writeRecords(pages_, *streamer_, slot.staging, slot.staging.size ? slot.staging.size : UINT64_MAX, 1e300);
        if (!pages_.copies.empty()) {
          VkCommandBuffer one = beginOneShot(ctx_);
          memoryBarrier(one, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT,
                        VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
          recordRecordCopies(one, pages_, slot.staging);
          memoryBarrier(one, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        kCompute | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, VK_ACCESS_2_SHADER_READ_BIT);
          endOneShot(ctx_, one);
        }
      }
    }
  }
}

void Renderer::checkCullCapacity() const {
  // The shader reads records of pages [0, pages_.pageCount), each within its page's count; the
  // page counts, the tiles' species counts (which size the visible list's regions, submitFrame)
  // and the resident total must agree and stay within the budget.
  uint64_t inPages = 0, inKinds = 0, inTiles = 0;
  for (uint32_t p = 0; p < pages_.pageCount; ++p) inPages += pages_.table[p].header.z;
  for (uint32_t k = 0; k < speciesCount_; ++k) inKinds += pages_.speciesResident[k];
  for (size_t t = 0; t < pages_.tiles.size(); ++t)
    if (pages_.resident[t])
      for (uint32_t c : pages_.tiles[t].speciesCounts) inTiles += c;
  if (pages_.pageCount > pages_.maxPages || inPages != pages_.residentInstances || inKinds != pages_.residentInstances ||
      inTiles != pages_.residentInstances || pages_.residentInstances > pages_.capacity)
    throw std::logic_error("cull buffers inconsistent: " + std::to_string(inPages) + " instances in " +
                           std::to_string(pages_.pageCount) + " pages, " + std::to_string(inKinds) + " by species, " +
                           std::to_string(inTiles) + " by tile, " + std::to_string(pages_.residentInstances) +
                           " resident, budget " + std::to_string(pages_.capacity));
}

std::vector<double> Renderer::speciesCover() const {
  std::vector<double> cover = farFieldStats(farField_).crownArea;
  const double area = double(std::max(world_.heights.width - 1, 0)) * double(std::max(world_.heights.height - 1, 0)) *
                      double(world_.cellSize) * double(world_.cellSize);
  for (double& c : cover) c = area > 0 ? c / area : 0.0;
  return cover;
}

std::vector<size_t> Renderer::residentTiles() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < world_.tiles.size(); ++i)  // the far trees' slots follow
    if (pages_.resident[i]) out.push_back(i);
  return out;
}

void Renderer::sizeVisibleList(const std::vector<double>& reach, const gpu::FrameData& projection, uint64_t need) {
  // the most any eye can need at these reaches, within what the budget can make resident: the
  // camera's regions, and each cascade's casters in its region of the world around the eye
  const std::vector<double> weight(reach.size(), 1.0);
  std::vector<double> regionWeight(reach.size(), 0.0);
  std::vector<CasterRegion> regions;
  const Vec3 toSun = sunDirection(world_.sunAzimuthDeg, world_.sunElevationDeg);
  if (options_.shadows.enabled && toSun.y > 0.02f) {  // setLight's test: no cascades below
    for (size_t k = 0; k < reach.size() && k < casts_.size(); ++k) regionWeight[k] = casts_[k] ? 1.0 : 0.0;
    for (uint32_t c = 0; c < gpu::CASCADE_COUNT; ++c)
      regions.push_back(casterRegion(options_.shadows, projection.eye.w, 1.f / projection.proj.x,
                                     1.f / projection.proj.y, toSun, double(minY_), casterTop_, casterRadius_, c));
  }
  visibleProjection_ = {projection.proj.x, projection.proj.y, projection.eye.w};
  const uint64_t bound =
      std::min(reachBound(world_.tiles, world_.tileSize, reach, weight, regions, regionWeight), budgetSlots_);
  const uint64_t slots = std::max<uint64_t>({bound, need, 1});
  visibleReach_ = reach;
  visibleReach_.resize(speciesTable_.size(), kUnreached);
  if (visible_.buffer && slots <= visibleSlots_) return;
  if (visible_.buffer) {
    // frames in flight read the old list; growing is rare (a longer draw distance)
    ECO_VK(vkQueueWaitIdle(ctx_.queue));
    destroyBuffer(ctx_, visible_);
    spdlog::debug("visible list grown to {} slots", slots);
  }
  // reached through its address: it may exceed maxStorageBufferRange
  visible_ = createBuffer(ctx_, slots * 4,
                          VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          MemoryUse::Gpu);
  visibleSlots_ = slots;
}

namespace {

// Whether any tree of a far trees' page (its box: cull.comp draws a far tree past its fade end,
// in the frustum, against the sky) may be drawn this frame: false where none can
bool farTreesMayDraw(const gpu::GpuTile& box, double reach, const gpu::FrameData& frame) {
  const uint32_t flags = frame.cull.y;
  if ((flags & gpu::CULL_FADE) == 0 || (flags & gpu::CULL_FAR_TREES) == 0) return false;  // drawn nowhere
  if ((flags & gpu::CULL_FAR_PAGES) == 0) return true;  // each tree tested
  // the box holds the trees' origins; a tree's sphere lies within `reach` of its origin, and a
  // metre more covers the shader's float arithmetic
  const double grow = reach + 1.0;
  const double lo[3] = {double(box.boundsMin.x) - grow, double(box.boundsMin.y) - grow, double(box.boundsMin.z) - grow};
  const double hi[3] = {double(box.boundsMax.x) + grow, double(box.boundsMax.y) + grow, double(box.boundsMax.z) + grow};
  const double eye[3] = {double(frame.eye.x), double(frame.eye.y), double(frame.eye.z)};
  double farthest = 0;
  for (int i = 0; i < 3; ++i) {
    const double d = std::max(std::abs(lo[i] - eye[i]), std::abs(hi[i] - eye[i]));
    farthest += d * d;
  }
  if (std::sqrt(farthest) <= double(frame.fadeEnd.x)) return false;  // every tree within the trees' fade
  if ((flags & gpu::CULL_FRUSTUM) != 0)
    for (const gpu::vec4& plane : frame.frustum) {  // the box's corner farthest inside the plane
      const double n[3] = {double(plane.x), double(plane.y), double(plane.z)};
      double inside = double(plane.w);
      for (int i = 0; i < 3; ++i) inside += n[i] * (n[i] >= 0 ? hi[i] : lo[i]);
      if (inside < 0) return false;
    }
  return true;
}

}  // namespace

std::pair<uint32_t, uint32_t> Renderer::listPages(const gpu::FrameData& frame, uint32_t* list) const {
  // Every page of the world's tiles in the table's order, and a far trees' page (one to a slot,
  // with its own box) only where some of its trees can be drawn: the cull pass pays per page it
  // runs over, and from 3 km the Grand Canyon's far trees' pages outnumber its near ones 5 to 1.
  // With far pages skipped (CULL_FAR_PAGES) those go after the rest, for far_pages.comp.
  const bool compact = (frame.cull.y & gpu::CULL_FAR_PAGES) != 0;
  uint32_t listed = 0;
  std::vector<uint32_t> far;
  for (uint32_t p = 0; p < pages_.pageCount; ++p) {
    const gpu::GpuPage& page = pages_.table[p];
    if (page.header.z == 0) continue;
    if (page.header.w & gpu::PAGE_FAR_TREES) {
      if (!farTreesMayDraw(pages_.tileBoxes[page.header.w & ~gpu::PAGE_FAR_TREES], farTreeReach_, frame)) continue;
      if (compact) {
        far.push_back(p);
        continue;
      }
    }
    list[listed++] = p;
  }
  std::copy(far.begin(), far.end(), list + listed);
  return {listed, uint32_t(far.size())};
}

uint64_t Renderer::residentBytes() const {
  uint64_t bytes = visible_.size + draws_.size;
  bytes += blockBytes(pages_) + pages_.boxes.size;
  for (const FrameSlot& s : slots_) bytes += s.pageTable.size + s.pageList.size + s.farCompact.size;
  return bytes;
}

std::vector<FrameStats> Renderer::beginFrame() {
  std::vector<FrameStats> out;
  FrameSlot& slot = slots_[frameIndex_ % kFramesInFlight];
  if (slot.inFlight) {
    auto t0 = std::chrono::steady_clock::now();
    ECO_VK(vkWaitForFences(ctx_.device, 1, &slot.fence, VK_TRUE, UINT64_MAX));
    out.push_back(finishFrame(slot));
    out.back().waitMs = msSince(t0);
  }
  return out;
}

void Renderer::settleExposure(const Camera& cam, const CullSettings& cull) {
  if (!view_.autoExposure) return;
  const bool atOnce = adaptAtOnce_;
  adaptAtOnce_ = true;
  for (int i = 0; i < 8; ++i) {
    const float before = autoExposure_;
    render(cam, cull);
    if (std::abs(std::log2(autoExposure_ / before)) < 0.03f) break;
  }
  adaptAtOnce_ = atOnce;
}

std::vector<FrameStats> Renderer::drain() {
  std::vector<FrameStats> out;
  for (uint64_t f = framesFinished_; f < frameIndex_; ++f) {
    FrameSlot& slot = slots_[f % kFramesInFlight];
    if (!slot.inFlight) continue;
    auto t0 = std::chrono::steady_clock::now();
    ECO_VK(vkWaitForFences(ctx_.device, 1, &slot.fence, VK_TRUE, UINT64_MAX));
    out.push_back(finishFrame(slot));
    out.back().waitMs = msSince(t0);
  }
  return out;
}

FrameStats Renderer::render(const Camera& cam, const CullSettings& cull, const FrameHooks* hooks) {
  drain();
  submitFrame(cam, cull, hooks);
  return drain().back();
}

FrameStats Renderer::finishFrame(FrameSlot& slot) {
  ECO_VK(vkResetFences(ctx_.device, 1, &slot.fence));
  slot.inFlight = false;
  framesFinished_ = std::max(framesFinished_, slot.stats.frame + 1);
  FrameStats s = slot.stats;
  const auto* draws = static_cast<const gpu::DrawCommand*>(slot.readback.data);
  const auto* counters = reinterpret_cast<const uint32_t*>(static_cast<const char*>(slot.readback.data) + drawBytes_);
  s.tested = counters[gpu::STAT_TESTED];
  s.afterFrustum = counters[gpu::STAT_FRUSTUM];
  s.afterOcclusion = counters[gpu::STAT_VISIBLE];
  const uint32_t perView = speciesCount_ * gpu::LOD_COUNT;
  lastDraws_.assign(draws, draws + size_t(perView) * gpu::VIEW_COUNT);
  s.speciesInstances.assign(perView, 0);
  s.speciesCover = speciesCover();
  for (uint32_t d = 0; d < perView; ++d) {
    s.speciesInstances[d] = draws[d].instanceCount;
    s.nonEmptyDraws += draws[d].instanceCount > 0;
    if (d / gpu::LOD_COUNT < meshes_.species.size())
      s.vegetationTriangles += uint64_t(draws[d].instanceCount) * meshes_.species[d / gpu::LOD_COUNT].triangles[d % gpu::LOD_COUNT];
  }
  for (uint32_t d = perView; d < lastDraws_.size(); ++d) {
    s.shadowInstances += draws[d].instanceCount;
    const uint32_t k = (d % perView) / gpu::LOD_COUNT;
    if (k < meshes_.species.size()) s.shadowTriangles += uint64_t(draws[d].instanceCount) * meshes_.species[k].triangles[d % gpu::LOD_COUNT];
  }
  s.farCards = draws[size_t(perView) * gpu::VIEW_COUNT].indexCount;
  if (s.metered) {
    // the next frames' exposure: the metered one, eased in over about half a second (at once
    // while settling)
    const auto* bins = reinterpret_cast<const uint32_t*>(static_cast<const char*>(slot.readback.data) + drawBytes_ +
                                                         kStatBytes);
    s.meteredExposure = meteredExposure({bins, gpu::METER_BINS});
    const auto now = std::chrono::steady_clock::now();
    const double dt = lastMetered_.time_since_epoch().count() == 0
                          ? 1.0
                          : std::chrono::duration<double>(now - lastMetered_).count();
    lastMetered_ = now;
    const double rate = adaptAtOnce_ ? 1.0 : 1.0 - std::exp(-dt / 0.5);
    autoExposure_ = float(std::exp2(std::log2(double(autoExposure_)) +
                                    rate * (std::log2(double(s.meteredExposure)) - std::log2(double(autoExposure_)))));
  }
  if (slot.queries) {
    uint64_t ts[TsCount];
    if (vkGetQueryPoolResults(ctx_.device, slot.queries, 0, TsCount, sizeof(ts), ts, 8, VK_QUERY_RESULT_64_BIT) ==
        VK_SUCCESS) {
      double period = double(ctx_.properties.limits.timestampPeriod) * 1e-6;
      s.gpuMs = double(ts[TsColor] - ts[TsBegin]) * period;
      s.terrainMs = double(ts[TsTerrain] - ts[TsBegin]) * period;
      s.pyramidMs = double(ts[TsPyramid] - ts[TsTerrain]) * period;
      s.cullMs = double(ts[TsCull] - ts[TsPyramid]) * period;
      s.shadowMs = double(ts[TsShadow] - ts[TsCull]) * period;
      s.colorMs = double(ts[TsColor] - ts[TsShadow]) * period;
    }
  }
  if (options_.capture && slot.pixels.data) {
    pixels_.resize(slot.pixels.size);
    std::memcpy(pixels_.data(), slot.pixels.data, slot.pixels.size);
  }
  lastFrame_ = slot.data;
  return s;
}

void Renderer::setLight(gpu::FrameData& frame) const {
  Vec3 sun = sunDirection(world_.sunAzimuthDeg, world_.sunElevationDeg);
  frame.sun = {sun.x, sun.y, sun.z, 1.9f};
  frame.fog.x = 0.58f, frame.fog.y = 0.68f, frame.fog.z = 0.80f;  // horizon haze
  if (!view_.fog) frame.fog.w = 0;
  frame.skyZenith = {0.16f, 0.32f, 0.62f, view_.exposure * (view_.autoExposure ? autoExposure_ : 1.0f)};
  // ground bounce colour, ambient intensity: the sky lights the shade to 20-40 % of the sunlit
  // ground (render_look_test ShadeIsAFifthToTwoFifthsOfSunlitGround; 0.55 left it at 16 %)
  frame.ground = {0.30f, 0.27f, 0.22f, 0.9f};
  // The config's palette and snow line (none unless the config gives one).
  const GroundPalette& g = world_.ground;
  frame.elevation = {minY_, maxY_, std::isfinite(g.snowline) ? g.snowline : 1e30f, 0};
  static_assert(gpu::GROUND_COLORS == kGroundColors && gpu::GROUND_SOIL == kGroundSoil && gpu::GROUND_GRASS == kGroundGrass &&
                gpu::GROUND_ROCK == kGroundRock && gpu::GROUND_SAND == kGroundSand && gpu::GROUND_SNOW == kGroundSnow);
  for (uint32_t k = 0; k < kGroundColors; ++k) frame.palette[k] = {g.color[k][0], g.color[k][1], g.color[k][2], 0};
  frame.look.x = view_.sky ? 0 : gpu::LOOK_FLAT_SKY;
  // rivers: the river layer's codes to metres, water up to the bake's water distance
  const int river = world_.riverLayer;
  if (view_.water && river >= 0 && size_t(river) < world_.layers.size()) {
    const SceneLayer& l = world_.layers[size_t(river)];
    frame.water = {1, l.valueMax - l.valueMin, l.waterDistance, l.valueMin};
  }
  if (view_.overlay >= 0 && size_t(view_.overlay) < layers_.size()) frame.overlay = {1, view_.overlayOpacity, 0, 0};
  frame.shadowSplits.w = 0;
  bool anyCaster = false;
  for (uint32_t k = 0; k < speciesCount_; ++k) anyCaster = anyCaster || (casts_[k] && !view_.hiddenSpecies[k]);
  if (options_.shadows.enabled && view_.shadows && sun.y > 0.02f) {
    // the ground and what stands on it (plants, the canopy lift) up to the tallest plant
    setShadowCascades(frame, options_.shadows, minY_, maxY_, [this](const gpu::vec4* planes) {
      return lowestGround(terrain_, planes, gpu::FRUSTUM_PLANES, tallest_);
    });
    if (anyCaster) frame.cull.y |= gpu::CULL_SHADOWS;
  }
}

void Renderer::submitFrame(const Camera& cam, const CullSettings& cull, const FrameHooks* hooks) {
  FrameSlot& slot = slots_[frameIndex_ % kFramesInFlight];
  if (slot.inFlight) beginFrame();  // the caller skipped it: wait here
  auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = threadCpuMs();
  ECO_VK(vkResetCommandBuffer(slot.cmd, 0));
  VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  ECO_VK(vkBeginCommandBuffer(slot.cmd, &begin));

  // One budget for all uploads, in bytes and in CPU time: far-field layers take up to an
  // eighth of the bytes, tile records the rest (the far field's copies carry their own
  // barriers against earlier frames' sampling).
  const double deadline = cpu0 + options_.uploadMsPerFrame;
  uint64_t uploaded = updateFarField(ctx_, farField_, slot.cmd, options_.uploadBytesPerFrame / 8);
  stream(cam);
  pages_.copies.clear();
  uploaded += writeRecords(pages_, *streamer_, slot.staging,
                           options_.uploadBytesPerFrame - std::min(uploaded, options_.uploadBytesPerFrame), deadline);
  if (checkedTable_ != pages_.tableVersion) {  // what it checks changes only with the table
    checkCullCapacity();
    checkedTable_ = pages_.tableVersion;
  }

  // per-frame constants (kind regions in the visible list) and this frame's page table
  gpu::FrameData& frame = slot.data;
  frame = makeFrameData(cam, options_.width, options_.height, cull);
  prepareTerrainFrame(terrain_, frame, uint32_t(frameIndex_ % kFramesInFlight));
  prepareFarFieldFrame(farField_, cull, frame);
  setFadeDistances(frame, cull, options_.stream.loadRadius);
  // haze over a quarter of the light across the world's extent at most: whole-world views of
  // large worlds stay legible
  frame.fog.w = std::min(frame.fog.w, 0.25f / std::max(farField_.extentX, farField_.extentZ));
  frame.lod.y = float(farTreeReach_ + 1.0);  // a metre more covers float rounding (listPages' too)
  frame.lod.z = float(pyramid_.width);
  frame.lod.w = float(pyramid_.height);
  frame.cull.z = pyramid_.mips;
  setLight(frame);
  const uint32_t fs = uint32_t(frameIndex_ % kFramesInFlight);
  if (frame.shadowSplits.w > 0) prepareTerrainShadows(terrain_, frame, fs);
  frame.draws = {speciesCount_, frame.shadowSplits.w > 0 ? gpu::VIEW_COUNT : 1u, 0, 0};
  for (uint32_t i = 0; i < gpu::MAX_SPECIES; ++i)
    if (view_.hiddenSpecies[i]) (&frame.hidden[i >> 7].x)[(i >> 5) & 3] |= 1u << (i & 31);
  {
    // a kind whose every species is hidden has no far field either (its layer mixes them all)
    bool shown[gpu::KIND_COUNT] = {};
    for (uint32_t i = 0; i < speciesCount_ && i < world_.species.size(); ++i)
      if (!view_.hiddenSpecies[i]) shown[std::min<uint32_t>(world_.species[i].kind, gpu::KIND_COUNT - 1)] = true;
    for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k)
      if (!shown[k]) (&frame.fadeStart.x)[k] = (&frame.fadeEnd.x)[k] = 1e30f;
  }
  prepareTerrainShading(ctx_, terrain_, frame, fs, options_.terrainShadingClasses);  // the far field's fades are final
  {
    // the indirect records with their regions of the visible list: the camera's species in
    // order, then each cascade's casters, each as large as the species' resident instances
    // within its reach of the eye (render/visible_reach.h), for a cascade only in the tiles
    // whose box of origins may hold a sphere that passes each of the cascade's planes (the cull
    // shader's test, one plane at a time)
    const std::vector<double> reach = speciesReach(frame, speciesTable_);
    const bool shadowed = (frame.cull.y & gpu::CULL_SHADOWS) != 0;
    auto mayCast = [&](const gpu::GpuTile& box, uint32_t v) {
      auto passes = [&](const gpu::vec4& p) {
        const double x = double(p.x > 0 ? box.boundsMax.x : box.boundsMin.x),
                     y = double(p.y > 0 ? box.boundsMax.y : box.boundsMin.y),
                     z = double(p.z > 0 ? box.boundsMax.z : box.boundsMin.z);
        // the shader tests the sphere's centre, up to casterOffset_ from its origin, with the
        // plane as it is (the receivers' normals are not unit length)
        const double nx = double(p.x), ny = double(p.y), nz = double(p.z);
        const double reachOut = casterRadius_ + casterOffset_ * std::sqrt(nx * nx + ny * ny + nz * nz);
        return nx * x + ny * y + nz * z + double(p.w) >= -reachOut;
      };
      for (uint32_t i = 0; i < gpu::FRUSTUM_PLANES; ++i) {
        if (!passes(frame.shadowPlanes[(v - 1) * gpu::FRUSTUM_PLANES + i])) return false;
        if ((frame.cull.y & gpu::CULL_FRUSTUM) && !passes(frame.shadowReceivers[(v - 1) * gpu::FRUSTUM_PLANES + i]))
          return false;
      }
      return true;
    };
    double casterReach = kUnreached;
    for (size_t k = 0; k < reach.size() && k < casts_.size(); ++k)
      if (casts_[k]) casterReach = std::max(casterReach, reach[k]);
    std::vector<uint64_t> reachable(size_t(gpu::VIEW_COUNT) * speciesCount_, 0);  // by view, species
    uint32_t cardCount = 0;  // far trees resident: any of them may be a card
    for (size_t t = 0; t < pages_.tiles.size(); ++t) {
      const InstancePages::TileSlot& ts = pages_.tiles[t];
      if (!pages_.resident[t] || ts.pages.empty()) continue;
      const bool far = t >= world_.tiles.size();
      if (far)  // far trees: as a card, or as a mesh within reach
        for (uint32_t c : ts.speciesCounts) cardCount += c;
      // far trees are drawn at any distance past their fade's end, and cast no shadow
      const double d = far ? 0.0 : boxDistance(pages_.tileBoxes[t], double(frame.eye.x), double(frame.eye.z));
      bool cascade[gpu::VIEW_COUNT] = {true};
      if (shadowed && !far && d <= casterReach)  // the planes only for tiles that hold casters in reach
        for (uint32_t v = 1; v < gpu::VIEW_COUNT; ++v) cascade[v] = mayCast(pages_.tileBoxes[t], v);
      for (size_t k = 0; k < reach.size() && k < ts.speciesCounts.size(); ++k)
        if (d <= reach[k])
          for (uint32_t v = 0; v < gpu::VIEW_COUNT; ++v)
            if (v == 0 || (cascade[v] && casts_[k])) reachable[v * speciesCount_ + k] += ts.speciesCounts[k];
    }
    uint64_t slots = cardCount;
    for (uint64_t c : reachable) slots += c;
    bool farther = false;
    for (size_t k = 0; k < reach.size(); ++k) farther = farther || reach[k] > visibleReach_[k];
    const bool reprojected = visibleProjection_ != std::array<float, 3>{frame.proj.x, frame.proj.y, frame.eye.w};
    if (farther || reprojected) {
      std::vector<double> wider = visibleReach_;
      for (size_t k = 0; k < reach.size(); ++k) wider[k] = std::max(wider[k], reach[k]);
      sizeVisibleList(wider, frame, slots);
    } else if (slots > visibleSlots_) {
      // a world whose listed counts understate its tiles (a hand-made Scene: a bake's tiles are
      // checked against its manifest's counts when they load), or an eye the bound does not
      // cover (render/visible_reach.h)
      sizeVisibleList(visibleReach_, frame, slots);
    }
    frame.cull.w = uint32_t(std::min<uint64_t>(visibleSlots_, UINT32_MAX));
    auto* init = static_cast<gpu::DrawCommand*>(slot.drawInit.data);
    uint32_t base = 0;
    for (uint32_t v = 0; v < gpu::VIEW_COUNT; ++v)
      for (uint32_t k = 0; k < speciesCount_; ++k) {
        const uint32_t size = uint32_t(reachable[v * speciesCount_ + k]);
        for (uint32_t lod = 0; lod < gpu::LOD_COUNT; ++lod) {
          MeshRange m = k < meshes_.species.size() ? meshes_.species[k].lods[lod] : MeshRange{};
          init[(v * speciesCount_ + k) * gpu::LOD_COUNT + lod] = {m.indexCount, 0, m.firstIndex, m.vertexOffset,
                                                                  base, base + size, 0, 0};
        }
        base += size;
      }
    // read as VkDrawIndirectCommand {vertexCount, instanceCount 1, firstVertex 0, firstInstance
    // = the region}; the region's size after it
    init[gpu::VIEW_COUNT * speciesCount_ * gpu::LOD_COUNT] = {0, 1, 0, base, cardCount, 0, 0, 0};
    base += cardCount;
    if (base > visibleSlots_)
      throw std::logic_error("visible list regions " + std::to_string(base) + " past its " +
                             std::to_string(visibleSlots_) + " slots");
  }
  std::tie(frame.cull.x, slot.farListed) = listPages(frame, static_cast<uint32_t*>(slot.pageList.data));
  std::memcpy(slot.frame.data, &frame, sizeof(frame));
  if (slot.tableVersion != pages_.tableVersion) {  // only while tiles come and go
    std::memcpy(slot.pageTable.data, pages_.table.data(), size_t(pages_.pageCount) * sizeof(gpu::GpuPage));
    slot.tableVersion = pages_.tableVersion;
  }

  FrameStats& s = slot.stats;
  s = FrameStats{};
  s.frame = frameIndex_;
  s.exposure = frame.skyZenith.w;
  s.metered = view_.autoExposure;
  s.resident = pages_.residentInstances - farTreesAdmitted_;  // the world's tiles': what the budget holds
  s.farTrees = farTreesAdmitted_;
  s.shadows = frame.shadowSplits.w > 0;
  s.drawCalls = s.shadows ? 1 + gpu::CASCADE_COUNT : 1;
  s.drawCommands = s.drawCalls * speciesCount_ * gpu::LOD_COUNT;
  s.uploadedBytes = uploaded;
  s.residentBytes = residentBytes();
  s.farFieldBytes = farFieldBytes(farField_);
  s.staged = staged_;
  s.terrainTriangles = terrain_.triangles[fs];
  for (uint32_t key = 0; key < kTerrainShadings; ++key) {
    const uint32_t nodes = terrain_.fullByShading[fs][key] + terrain_.quarterByShading[fs][key];
    if (nodes == 0) continue;
    s.terrainShadings.push_back({key, nodes});
    if (!terrain_.pipelines[key].pipeline) s.terrainFallbackNodes += nodes;
  }
  s.tilesResident = streamer_->residentTiles();
  s.tileLoads = streamer_->loads();
  s.tileUnloads = streamer_->unloads();

  record(slot, cull, hooks);
  ECO_VK(vkEndCommandBuffer(slot.cmd));

  VkCommandBufferSubmitInfo cmdInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
  cmdInfo.commandBuffer = slot.cmd;
  VkSemaphoreSubmitInfo waitInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
  VkSemaphoreSubmitInfo signalInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
  VkSubmitInfo2 submit{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
  submit.commandBufferInfoCount = 1;
  submit.pCommandBufferInfos = &cmdInfo;
  if (hooks && hooks->wait) {
    waitInfo.semaphore = hooks->wait;
    waitInfo.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    submit.waitSemaphoreInfoCount = 1;
    submit.pWaitSemaphoreInfos = &waitInfo;
  }
  if (hooks && hooks->signal) {
    signalInfo.semaphore = hooks->signal;
    signalInfo.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    submit.signalSemaphoreInfoCount = 1;
    submit.pSignalSemaphoreInfos = &signalInfo;
  }
  ECO_VK(vkQueueSubmit2(ctx_.queue, 1, &submit, slot.fence));
  slot.inFlight = true;
  ++frameIndex_;
  s.cpuMs = threadCpuMs() - cpu0;
  s.submitMs = msSince(t0);
}

void Renderer::record(FrameSlot& slot, const CullSettings& cull, const FrameHooks* hooks) {
  VkCommandBuffer cmd = slot.cmd;
  uint32_t w = uint32_t(options_.width), h = uint32_t(options_.height);
  if (slot.queries) {
    vkCmdResetQueryPool(cmd, slot.queries, 0, TsCount);
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, slot.queries, TsBegin);
  }

  // 0. Transfers: this frame's staged uploads and the reset of the draw records and counters.
  // The previous frame's indirect draw, shaders and read-back copies read these buffers.
  memoryBarrier(cmd,
                VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | kCompute |
                    VK_PIPELINE_STAGE_2_COPY_BIT,
                VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT |
                    VK_ACCESS_2_TRANSFER_READ_BIT,
                VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
  recordRecordCopies(cmd, pages_, slot.staging);
  {
    VkBufferCopy all{0, 0, drawBytes_};
    vkCmdCopyBuffer(cmd, slot.drawInit.buffer, draws_.buffer, 1, &all);
    vkCmdFillBuffer(cmd, stats_.buffer, 0, kStatBytes, 0);
  }
  memoryBarrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                kCompute | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, kRW);


  // 1. terrain depth pre-pass: the occluder depth for the Hi-Z pyramid and, loaded by the
  // colour pass, its depth test. The previous frame's last uses of the targets (pyramid reads
  // of depth, copies or blits of colour) finish before they are overwritten.
  const uint32_t fs = uint32_t(slot.stats.frame % kFramesInFlight);
  TerrainTextures textures;
  textures.farField = farField_.image.view;
  textures.farSampler = farField_.sampler;
  textures.farLook = farField_.look.view;
  const bool shadows = slot.data.shadowSplits.w > 0;
  const VkImageView shadowView = shadows ? shadowMap_.view : terrain_.noShadow.view;
  textures.shadowMap = shadowView;
  if (slot.data.water.x > 0) textures.river = layers_[size_t(world_.riverLayer)].view;
  if (slot.data.overlay.x > 0) textures.overlay = layers_[size_t(view_.overlay)].view;
  imageBarrier(cmd, depth_.image, kDepthAspects, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0,
               VK_IMAGE_LAYOUT_UNDEFINED,
               VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
               VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
               VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
  // colorLoad: the colour pass draws every pixel (the sky fills the rest), the composite loads
  // it; `resolve`: the multisampled colour is resolved into color_ at the pass's end.
  auto beginPass = [&](VkImageView colorView, const GpuImage& depthImage, VkImageView depthView,
                       VkAttachmentLoadOp depthLoad, float depthClear, uint32_t width, uint32_t height,
                       VkAttachmentLoadOp colorLoad = VK_ATTACHMENT_LOAD_OP_DONT_CARE, bool resolve = true,
                       VkImageLayout depthLayout = VK_IMAGE_LAYOUT_UNDEFINED) {
    VkRenderingAttachmentInfo colorAtt{.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    colorAtt.imageView = colorView;
    colorAtt.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colorAtt.loadOp = colorLoad;
    colorAtt.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    if (colorView && colorMsaa_.view) {  // drawn multisampled
      colorAtt.imageView = colorMsaa_.view;
      if (resolve) {
        colorAtt.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
        colorAtt.resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT;
        colorAtt.resolveImageView = colorView;
        colorAtt.resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
      }
    }
    const bool stencil = hasStencil(depthImage.format);
    VkRenderingAttachmentInfo depthAtt{.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    depthAtt.imageView = depthView;
    depthAtt.imageLayout = depthLayout != VK_IMAGE_LAYOUT_UNDEFINED ? depthLayout
                           : stencil ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                                     : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    depthAtt.loadOp = depthLoad;
    depthAtt.storeOp = depthLayout == VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL ? VK_ATTACHMENT_STORE_OP_NONE
                                                                                    : VK_ATTACHMENT_STORE_OP_STORE;
    depthAtt.clearValue.depthStencil = {depthClear, 0};
    VkRect2D area{{0, 0}, {width, height}};
    VkRenderingInfo info{.sType = VK_STRUCTURE_TYPE_RENDERING_INFO};
    info.renderArea = area;
    info.layerCount = 1;
    info.colorAttachmentCount = colorView ? 1 : 0;
    info.pColorAttachments = &colorAtt;
    info.pDepthAttachment = &depthAtt;
    if (stencil) info.pStencilAttachment = &depthAtt;
    vkCmdBeginRendering(cmd, &info);
    VkViewport vp{0, 0, float(width), float(height), 0, 1};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &area);
  };
  beginPass(VK_NULL_HANDLE, depth_, depth_.view, VK_ATTACHMENT_LOAD_OP_CLEAR, 0.0f, w, h);
  recordTerrainDraw(cmd, terrain_, slot.frame, textures, fs, TerrainPass::Depth);
  vkCmdEndRendering(cmd);
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, slot.queries, TsTerrain);

  // 2. Hi-Z pyramid from the terrain depth: for occlusion, and for the far trees, which are
  // drawn only where it holds the sky (cull.comp skyBehind)
  const bool farTrees = farTreeBudget_ > 0 && cull.fade && cull.farField;
  if (cull.occlusion || farTrees) {
    imageBarrier(cmd, depth_.image, kDepthAspects, VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, kCompute,
                 VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    memoryBarrier(cmd, kCompute, kRW, kCompute, kRW);  // previous frame's culling read the pyramid
    recordDepthPyramid(cmd, cull_, sampler_, depth_.depthView, pyramid_, w, h, samples_);
    // back to an attachment for the colour pass, which tests against the terrain depth
    imageBarrier(cmd, depth_.image, kDepthAspects, kCompute, 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                 VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                 VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
  } else {
    // the colour pass loads and tests the depth the pre-pass wrote
    imageBarrier(cmd, depth_.image, kDepthAspects, VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
                 VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                 VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
  }
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, slot.queries, TsPyramid);

  // 3. culling (camera and cascades) and draw command compaction
  const VkDeviceAddress visibleAddress = visible_.address;
  FrameInstances instances;
  instances.frame = &slot.frame;
  instances.pageTable = &slot.pageTable;
  instances.pageList = &slot.pageList;
  instances.listed = slot.data.cull.x;
  instances.farListed = slot.farListed;
  instances.farCompact = &slot.farCompact;
  instances.pageCount = pages_.pageCount;
  instances.tiles = &pages_.boxes;
  instances.species = &species_;
  instances.draws = &draws_;
  instances.visible = visibleAddress;
  instances.speciesCount = speciesCount_;
  CullInputs cullInputs;
  cullInputs.instances = instances;
  cullInputs.stats = &stats_;
  cullInputs.sampler = sampler_;
  cullInputs.pyramid = pyramid_.view;
  recordCull(cmd, cull_, cullInputs);
  memoryBarrier(cmd, kCompute, VK_ACCESS_2_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT,
                VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_READ_BIT);
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, slot.queries, TsCull);

  VegetationInputs vegetationInputs;
  vegetationInputs.instances = instances;
  vegetationInputs.shadowSampler = terrain_.shadowSampler;
  vegetationInputs.shadowView = shadowView;

  // 4. shadow cascades: terrain and the casters the culling pass listed for each
  if (shadows) {
    imageBarrier(cmd, shadowMap_.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, 0,
                 VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
    const uint32_t size = shadowMap_.width;
    for (uint32_t c = 0; c < gpu::CASCADE_COUNT; ++c) {
      beginPass(VK_NULL_HANDLE, shadowMap_, shadowMap_.layerViews[c], VK_ATTACHMENT_LOAD_OP_CLEAR, 1.0f, size, size);
      vkCmdSetDepthBias(cmd, kShadowBiasConstant, 0.0f, kShadowBiasSlope);
      recordTerrainDraw(cmd, terrain_, slot.frame, textures, fs, TerrainPass::Shadow, 1 + c);
      if (pages_.pageCount > 0 && (slot.data.cull.y & gpu::CULL_SHADOWS)) recordVegetationDraw(cmd, vegetation_, vegetationInputs, 1 + c);
      vkCmdEndRendering(cmd);
    }
    imageBarrier(cmd, shadowMap_.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                 VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  }
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, slot.queries, TsShadow);

  // 5. colour: terrain shading over the pre-pass depth, all vegetation in one
  // multi-draw-indirect call (a record per species and LOD), then the sky where nothing was drawn
  for (const GpuImage* target : {&color_, &colorMsaa_})
    if (target->image)
      imageBarrier(cmd, target->image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0,
                   VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                   VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
  beginPass(color_.view, depth_, depth_.view, VK_ATTACHMENT_LOAD_OP_LOAD, 0.0f, w, h, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
            false);
  recordTerrainDraw(cmd, terrain_, slot.frame, textures, fs, TerrainPass::Color);
  if (pages_.pageCount > 0) recordVegetationDraw(cmd, vegetation_, vegetationInputs, 0);
  {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, sky_.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, slot.frame);
    d.push(cmd, sky_);
    vkCmdDraw(cmd, 3, 1, 0, 0);
  }
  vkCmdEndRendering(cmd);
  // 5b. the far field's plants over the terrain, once per pixel, and the mask overlay over
  // those (render/terrain_draw.h), reading the stencil the colour pass left; resolved after
  // (the depth-stencil read-only: tested and also sampled, for the terrain's point per pixel)
  memoryBarrier(cmd, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
  imageBarrier(cmd, depth_.image, kDepthAspects, VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
               VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
               VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT |
                   VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
               VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
               VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL);
  beginPass(color_.view, depth_, depth_.view, VK_ATTACHMENT_LOAD_OP_LOAD, 0.0f, w, h, VK_ATTACHMENT_LOAD_OP_LOAD, true,
            VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL);
  textures.depthSamples = depth_.depthView;
  textures.stencilSamples = depth_.stencilView;
  const bool far = options_.farFieldComposite && slot.data.farField.z > 0.5f, overlay = slot.data.overlay.x > 0;
  if (far || overlay) recordTerrainComposite(cmd, terrain_, slot.frame, textures, fs, far, overlay);
  vkCmdEndRendering(cmd);
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, slot.queries, TsColor);

  // 6. read-back of what the GPU wrote (draw records, counters) into this slot
  memoryBarrier(cmd, kCompute | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
  VkBufferCopy drawCopy{0, 0, drawBytes_}, statCopy{0, drawBytes_, kStatBytes};
  vkCmdCopyBuffer(cmd, draws_.buffer, slot.readback.buffer, 1, &drawCopy);
  vkCmdCopyBuffer(cmd, stats_.buffer, slot.readback.buffer, 1, &statCopy);

  // 7. meter the picture (auto-exposure), hand it over
  if (view_.autoExposure) {
    imageBarrier(cmd, color_.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                 VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, kCompute,
                 VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    recordExposureMeter(cmd, meter_, sampler_, color_.view, w, h, slot.data.skyZenith.w, slot.readback,
                        drawBytes_ + kStatBytes);
    imageBarrier(cmd, color_.image, VK_IMAGE_ASPECT_COLOR_BIT, kCompute, 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                 VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  } else {
    imageBarrier(cmd, color_.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                 VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                 VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                 VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  }
  if (hooks && hooks->overlay) hooks->overlay(cmd, color_);
  if (options_.capture) {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {w, h, 1};
    vkCmdCopyImageToBuffer(cmd, color_.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, slot.pixels.buffer, 1, &region);
  }
  memoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                VK_ACCESS_2_HOST_READ_BIT);
  if (hooks && hooks->record) hooks->record(cmd, color_);
}

}  // namespace eco::render
