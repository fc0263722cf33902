#include "render/renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <time.h>

#include <spdlog/spdlog.h>

#include "core/error.h"

namespace eco::render {

namespace {

constexpr uint32_t kBlockPages = 64;  // 64 pages * 1024 instances * 16 B = 1 MiB per block (1000 blocks for 67 M)
constexpr VkDeviceSize kPageBytes = VkDeviceSize(gpu::PAGE_SIZE) * sizeof(gpu::PackedInstance);
constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;
enum Timestamp : uint32_t { TsBegin, TsTerrain, TsPyramid, TsCull, TsVegetation, TsCount };
// read-back layout of a frame slot: the draw records, then the stats counters
constexpr VkDeviceSize kDrawBytes = sizeof(gpu::DrawCommand) * gpu::DRAW_COUNT;
constexpr VkDeviceSize kStatBytes = 4 * gpu::STAT_COUNT;

constexpr VkShaderStageFlags kVF = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
constexpr VkDescriptorType kUbo = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
constexpr VkDescriptorType kSsbo = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
constexpr VkDescriptorType kSampled = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
constexpr auto kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
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

// CPU time of the calling thread: a frame's own work, not the time other threads (the tile
// loader, the far-field survey, a CPU Vulkan driver) held the cores while it was runnable.
double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

// The meshes of the per-kind draws: each kind's default procedural form in unit space.
std::vector<SpeciesMeshSource> kindMeshSources() {
  std::vector<SpeciesMeshSource> out;
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) out.push_back({defaultMeshForm(SpeciesKind(k)), "", 1, 1});
  return out;
}

}  // namespace

Renderer::Renderer(Context& ctx, const Scene& world, const RendererOptions& options)
    : ctx_(ctx), world_(world), options_(options) {
  VkDevice dev = ctx.device;
  staged_ = options.upload == UploadPath::Staged ||
            (options.upload == UploadPath::Auto && !hostWritesVideoMemory(ctx.memory));
  if (world.species.size() > 256) throw InputError("the viewer draws at most 256 species");

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
  // The page pool: a page per 1024 budgeted instances plus each tile's partial last page, but
  // never more than the whole world needs; startUpload turns away a tile the pool cannot hold.
  uint64_t worldPages = 0, worldInstances = 0;
  for (const SceneTile& t : world.tiles) {
    worldPages += (t.instances + gpu::PAGE_SIZE - 1) / gpu::PAGE_SIZE;
    worldInstances += t.instances;
  }
  maxPages_ = uint32_t(std::min<uint64_t>(
      {(options_.stream.budgetInstances + gpu::PAGE_SIZE - 1) / gpu::PAGE_SIZE + world.tiles.size() + 1, worldPages,
       pageLimit}));
  if (options.maxPages > 0) maxPages_ = std::min(maxPages_, options.maxPages);
  maxPages_ = std::max(maxPages_, 1u);
  visibleCapacity_ = std::max<uint64_t>(std::min(options_.stream.budgetInstances, worldInstances), 1);
  // Allocated once, at start-up: streaming never allocates, and where the CPU writes the pages
  // they are touched now, so no frame pays the operating system's first-touch page faults.
  for (uint32_t b = 0; b < (maxPages_ + kBlockPages - 1) / kBlockPages; ++b) {
    blocks_.push_back(createBuffer(
        ctx, kPageBytes * kBlockPages,
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        staged_ ? MemoryUse::Gpu : MemoryUse::Upload));
    if (blocks_.back().data) std::memset(blocks_.back().data, 0, blocks_.back().size);
  }
  pageTable_.assign(maxPages_, gpu::GpuPage{});
  pageOwner_.resize(maxPages_);
  for (uint32_t p = 0; p < maxPages_; ++p) freePages_.insert(p);
  // the visible list is reached through its address: it may exceed maxStorageBufferRange
  visible_ = createBuffer(ctx, visibleCapacity_ * 4,
                          VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          MemoryUse::Gpu);
  draws_ = createBuffer(ctx, kDrawBytes,
                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                            VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        MemoryUse::Gpu);
  stats_ = createBuffer(ctx, kStatBytes,
                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                            VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        MemoryUse::Gpu);
  {
    std::vector<gpu::GpuSpecies> table = gpuSpeciesTable(world.species);
    species_ = createBuffer(ctx, table.size() * sizeof(gpu::GpuSpecies), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                            MemoryUse::Upload);
    std::memcpy(species_.data, table.data(), species_.size);
  }
  tiles_.resize(world.tiles.size());
  resident_.assign(world.tiles.size(), false);

  terrain_ = createTerrainDraw(ctx, world.heights, world.cellSize, kColorFormat, kDepthFormat);
  farField_ = createFarField(ctx, world);

  // vegetation meshes
  // Adapter until the per-species draw path: one procedural mesh per kind (its default form).
  meshes_ = buildMeshes(kindMeshSources());
  vertices_ = createBuffer(ctx, meshes_.vertices.size() * sizeof(MeshVertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                           MemoryUse::Upload);
  std::memcpy(vertices_.data, meshes_.vertices.data(), vertices_.size);
  indices_ = createBuffer(ctx, meshes_.indices.size() * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, MemoryUse::Upload);
  std::memcpy(indices_.data, meshes_.indices.data(), indices_.size);

  VkSamplerCreateInfo si{.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = si.minFilter = VK_FILTER_NEAREST;
  si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  si.maxLod = VK_LOD_CLAMP_NONE;
  ECO_VK(vkCreateSampler(dev, &si, nullptr, &sampler_));

  // pipelines
  GraphicsDesc veg{"vegetation.vert", "vegetation.frag", {{0, sizeof(MeshVertex), VK_VERTEX_INPUT_RATE_VERTEX}},
                   {{0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0}, {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 16}},
                   kColorFormat, kDepthFormat, VK_CULL_MODE_NONE};
  vegetation_ = createGraphicsPipeline(
      ctx, veg, {{0, kUbo, kVF}, {1, kSsbo, VK_SHADER_STAGE_VERTEX_BIT}, {7, kSsbo, VK_SHADER_STAGE_VERTEX_BIT}}, 8);
  constexpr VkShaderStageFlags C = VK_SHADER_STAGE_COMPUTE_BIT;
  cull_ = createComputePipeline(ctx, "cull.comp",
                                {{0, kUbo, C}, {1, kSsbo, C}, {2, kSsbo, C}, {4, kSsbo, C}, {5, kSampled, C}, {7, kSsbo, C}},
                                8);
  cullFinish_ = createComputePipeline(ctx, "cull_finish.comp", {{0, kUbo, C}, {2, kSsbo, C}}, 0);
  reduce_ = createComputePipeline(ctx, "depth_reduce.comp",
                                  {{0, kSampled, C}, {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, C}}, 16);

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
    s.pageTable = createBuffer(ctx, VkDeviceSize(maxPages_) * sizeof(gpu::GpuPage), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                               MemoryUse::Upload);
    s.readback = createBuffer(ctx, kDrawBytes + kStatBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::Readback);
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
                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  depth_ = createImage(ctx_, w, h, 1, kDepthFormat,
                       VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT);
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
  for (GpuImage* i : {&color_, &depth_, &pyramid_}) destroyImage(ctx_, *i);
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
    for (Buffer* b : {&s.frame, &s.pageTable, &s.staging, &s.readback}) destroyBuffer(ctx_, *b);
  }
  destroyTargets();
  for (Pipeline* p : {&vegetation_, &cull_, &cullFinish_, &reduce_}) destroyPipeline(ctx_, *p);
  vkDestroySampler(dev, sampler_, nullptr);
  destroyTerrainDraw(ctx_, terrain_);
  destroyFarField(ctx_, farField_);
  for (Buffer* b : {&visible_, &draws_, &stats_, &species_, &vertices_, &indices_}) destroyBuffer(ctx_, *b);
  for (Buffer& b : blocks_) destroyBuffer(ctx_, b);
}

void Renderer::resize(int width, int height) {
  if (width == options_.width && height == options_.height) return;
  drain();
  destroyTargets();
  options_.width = width;
  options_.height = height;
  createTargets();
}

uint32_t Renderer::allocatePage() {
  if (freePages_.empty()) throw std::logic_error("instance page pool exhausted");
  uint32_t p = *freePages_.begin();
  freePages_.erase(freePages_.begin());
  return p;
}

void Renderer::retirePages() {
  // a page evicted while frame F was being prepared may be read by frames before F only
  std::erase_if(retiring_, [&](const std::pair<uint64_t, uint32_t>& r) {
    if (r.first > framesFinished_) return false;
    freePages_.insert(r.second);
    return true;
  });
}

void Renderer::admit(LoadedTile& tile) {
  if (startUpload(tile)) return;
  const SceneTile& t = world_.tiles[tile.tile];
  spdlog::warn("tile {},{} skipped: no free instance pages ({} in use)", t.x, t.z, maxPages_ - freePages_.size());
  streamer_->reject(tile.tile);
}

bool Renderer::startUpload(LoadedTile& tile) {
  size_t n = tile.instances.size();
  // The streamer admits tiles within the budget by their verified counts; past the visible
  // list's capacity the cull shader would write out of bounds, so this is a bug, not input.
  uint64_t pendingInstances = 0;
  for (const PendingUpload& p : pending_) pendingInstances += p.tile.instances.size();
  if (residentInstances_ + pendingInstances + n > visibleCapacity_)
    throw std::logic_error("tile " + std::to_string(tile.tile) + ": " + std::to_string(n) + " instances would exceed " +
                           "the visible list (" + std::to_string(residentInstances_) + " resident, capacity " +
                           std::to_string(visibleCapacity_) + ")");
  // Many small tiles can use up the pages (one dispatch row each) before the budget
  if ((n + gpu::PAGE_SIZE - 1) / gpu::PAGE_SIZE > freePages_.size()) return false;
  PendingUpload p;
  for (size_t first = 0; first < n; first += gpu::PAGE_SIZE) p.pages.push_back(allocatePage());
  p.tile = std::move(tile);
  pending_.push_back(std::move(p));
  return true;
}

uint64_t Renderer::upload(uint64_t budget, double deadlineMs, FrameSlot& slot) {
  uint64_t written = 0;
  VkDeviceSize stagingUsed = 0;
  if (budget == 0) return 0;
  // `budget` bytes of records, whole pages at a time (at least one page per frame)
  while (!pending_.empty()) {
    PendingUpload& p = pending_.front();
    const size_t n = p.tile.instances.size();
    while (p.written < n) {
      size_t count = std::min<size_t>(gpu::PAGE_SIZE, n - p.written);
      VkDeviceSize bytes = VkDeviceSize(count) * sizeof(gpu::PackedInstance);
      if (written > 0 && (written + bytes > budget || threadCpuMs() > deadlineMs)) break;
      uint32_t page = p.pages[p.written / gpu::PAGE_SIZE];
      VkDeviceSize offset = VkDeviceSize(page % kBlockPages) * kPageBytes;
      const void* src = p.tile.instances.data() + p.written;
      if (staged_) {
        if (stagingUsed + bytes > slot.staging.size) break;
        std::memcpy(static_cast<char*>(slot.staging.data) + stagingUsed, src, bytes);
        copies_.push_back({VkBufferCopy{stagingUsed, offset, bytes}, page / kBlockPages});
        stagingUsed += bytes;
      } else {
        // a free page: no frame in flight reads it (retirePages)
        std::memcpy(static_cast<char*>(blocks_[page / kBlockPages].data) + offset, src, bytes);
      }
      p.written += count;
      written += bytes;
    }
    if (p.written < n) break;  // budget spent
    commit(p);
    streamer_->recycle(std::move(p.tile));
    pending_.pop_front();
  }
  return written;
}

void Renderer::commit(PendingUpload& p) {
  TileSlot& slot = tiles_[p.tile.tile];
  const auto* species = static_cast<const gpu::GpuSpecies*>(species_.data);
  // Kind regions of the visible list are sized from the kind the shader decodes.
  for (const gpu::PackedInstance& g : p.tile.instances) slot.kindCounts[species[g.w >> 24].info.x]++;
  for (size_t i = 0; i < p.pages.size(); ++i) {
    uint32_t page = p.pages[i];
    uint32_t first = uint32_t(i * gpu::PAGE_SIZE);
    uint32_t count = uint32_t(std::min<size_t>(gpu::PAGE_SIZE, p.tile.instances.size() - first));
    VkDeviceAddress address = blocks_[page / kBlockPages].address + VkDeviceSize(page % kBlockPages) * kPageBytes;
    pageTable_[page] = {{uint32_t(address), uint32_t(address >> 32), count, uint32_t(p.tile.tile)}, p.tile.box};
    pageOwner_[page] = {p.tile.tile, first};
    pageCount_ = std::max(pageCount_, page + 1);
  }
  slot.pages = std::move(p.pages);
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) kindResident_[k] += slot.kindCounts[k];
  residentInstances_ += p.tile.instances.size();
  resident_[p.tile.tile] = true;
}

void Renderer::evict(size_t index) {
  // still being uploaded: its pages were never in a table
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->tile.tile != index) continue;
    for (uint32_t p : it->pages) retiring_.push_back({frameIndex_, p});
    streamer_->recycle(std::move(it->tile));
    pending_.erase(it);
    return;
  }
  TileSlot& slot = tiles_[index];
  for (uint32_t p : slot.pages) {
    residentInstances_ -= pageTable_[p].header.z;
    pageTable_[p] = gpu::GpuPage{};
    retiring_.push_back({frameIndex_, p});
  }
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) kindResident_[k] -= slot.kindCounts[k];
  slot = TileSlot{};
  resident_[index] = false;
  while (pageCount_ > 0 && pageTable_[pageCount_ - 1].header.z == 0) --pageCount_;
}

void Renderer::stream(const Camera& cam) {
  std::vector<size_t> unload;
  streamer_->update(cam.position, unload);
  for (size_t t : unload) evict(t);
  retirePages();
  // take finished loads while their records would fit this frame's upload budget
  uint64_t queued = 0;
  for (const PendingUpload& p : pending_) queued += (p.tile.instances.size() - p.written) * sizeof(gpu::PackedInstance);
  LoadedTile tile;
  while (queued < options_.uploadBytesPerFrame && streamer_->poll(tile)) {
    queued += tile.instances.size() * sizeof(gpu::PackedInstance);
    admit(tile);
  }
}

void Renderer::settleStreaming(const Camera& cam) {
  // Loads, then uploads in budget-sized steps (one-shot submissions) until nothing is left.
  for (int pass = 0; pass < 2; ++pass) {  // a second pass picks up loads planned after evictions
    std::vector<size_t> unload;
    streamer_->update(cam.position, unload);
    for (size_t t : unload) evict(t);
    streamer_->waitIdle();
    drain();
    retirePages();
    LoadedTile tile;
    while (streamer_->poll(tile)) {
      admit(tile);
      while (!pending_.empty()) {
        FrameSlot& slot = slots_[0];
        copies_.clear();
        upload(slot.staging.size ? slot.staging.size : UINT64_MAX, 1e300, slot);
        if (!copies_.empty()) {
          VkCommandBuffer one = beginOneShot(ctx_);
          memoryBarrier(one, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT,
                        VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
          for (auto& [region, block] : copies_) vkCmdCopyBuffer(one, slot.staging.buffer, blocks_[block].buffer, 1, &region);
          memoryBarrier(one, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        kCompute | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, VK_ACCESS_2_SHADER_READ_BIT);
          endOneShot(ctx_, one);
          copies_.clear();
        }
      }
    }
  }
  finishFarField(ctx_, farField_);  // the whole survey, uploaded
}

void Renderer::checkCullCapacity() const {
  // The shader writes one visible entry per instance of pages [0, pageCount_), at
  // regions[kind].x + n (LOD 0) or regions[kind].y - 1 - n (LOD 1), n below the kind's count
  // in those pages. Every write stays inside the visible list exactly when the page counts,
  // the kind regions and the resident total agree and fit the list.
  uint64_t inPages = 0, inKinds = 0;
  for (uint32_t p = 0; p < pageCount_; ++p) inPages += pageTable_[p].header.z;
  for (uint64_t k : kindResident_) inKinds += k;
  if (pageCount_ > maxPages_ || inPages != residentInstances_ || inKinds != residentInstances_ ||
      residentInstances_ > visibleCapacity_ || residentInstances_ > options_.stream.budgetInstances)
    throw std::logic_error("cull buffers inconsistent: " + std::to_string(inPages) + " instances in " +
                           std::to_string(pageCount_) + " pages, " + std::to_string(inKinds) + " by kind, " +
                           std::to_string(residentInstances_) + " resident, visible list " +
                           std::to_string(visibleCapacity_) + ", budget " +
                           std::to_string(options_.stream.budgetInstances));
}

std::vector<size_t> Renderer::residentTiles() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < resident_.size(); ++i)
    if (resident_[i]) out.push_back(i);
  return out;
}

uint64_t Renderer::residentBytes() const {
  uint64_t bytes = visible_.size;
  for (const Buffer& b : blocks_) bytes += b.size;
  for (const FrameSlot& s : slots_) bytes += s.pageTable.size;
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
  const auto* counters = reinterpret_cast<const uint32_t*>(static_cast<const char*>(slot.readback.data) + kDrawBytes);
  s.tested = counters[gpu::STAT_TESTED];
  s.afterFrustum = counters[gpu::STAT_FRUSTUM];
  s.afterOcclusion = counters[gpu::STAT_VISIBLE];
  lastDraws_.assign(draws, draws + gpu::DRAW_COUNT);
  for (uint32_t d = 0; d < gpu::DRAW_COUNT; ++d) {
    s.drawInstances[d] = draws[d].instanceCount;
    s.nonEmptyDraws += draws[d].instanceCount > 0;
  }
  if (slot.queries) {
    uint64_t ts[TsCount];
    if (vkGetQueryPoolResults(ctx_.device, slot.queries, 0, TsCount, sizeof(ts), ts, 8, VK_QUERY_RESULT_64_BIT) ==
        VK_SUCCESS) {
      double period = double(ctx_.properties.limits.timestampPeriod) * 1e-6;
      s.gpuMs = double(ts[TsVegetation] - ts[TsBegin]) * period;
      s.terrainMs = double(ts[TsTerrain] - ts[TsBegin]) * period;
      s.pyramidMs = double(ts[TsPyramid] - ts[TsTerrain]) * period;
      s.cullMs = double(ts[TsCull] - ts[TsPyramid]) * period;
      s.vegetationMs = double(ts[TsVegetation] - ts[TsCull]) * period;
    }
  }
  if (options_.capture && slot.pixels.data) {
    pixels_.resize(slot.pixels.size);
    std::memcpy(pixels_.data(), slot.pixels.data, slot.pixels.size);
  }
  lastFrame_ = slot.data;
  return s;
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
  copies_.clear();
  uploaded += upload(options_.uploadBytesPerFrame - std::min(uploaded, options_.uploadBytesPerFrame), deadline, slot);
  checkCullCapacity();

  // per-frame constants (kind regions in the visible list) and this frame's page table
  gpu::FrameData& frame = slot.data;
  frame = makeFrameData(cam, options_.width, options_.height, cull);
  prepareTerrainFrame(terrain_, frame, uint32_t(frameIndex_ % kFramesInFlight));
  prepareFarFieldFrame(farField_, cull, frame);
  setFadeDistances(frame, cull, options_.stream.loadRadius);
  // haze over a quarter of the light across the world's extent at most: whole-world views of
  // large worlds stay legible
  frame.fog.w = std::min(frame.fog.w, 0.25f / std::max(farField_.extentX, farField_.extentZ));
  frame.lod.z = float(pyramid_.width);
  frame.lod.w = float(pyramid_.height);
  frame.cull.x = pageCount_;
  frame.cull.z = pyramid_.mips;
  uint32_t base = 0;
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) {
    uint32_t end = base + uint32_t(kindResident_[k]);
    frame.regions[k] = {base, end, 0, 0};
    base = end;
  }
  std::memcpy(slot.frame.data, &frame, sizeof(frame));
  std::memcpy(slot.pageTable.data, pageTable_.data(), size_t(pageCount_) * sizeof(gpu::GpuPage));

  FrameStats& s = slot.stats;
  s = FrameStats{};
  s.frame = frameIndex_;
  s.resident = residentInstances_;
  s.drawCalls = 1;
  s.drawCommands = gpu::DRAW_COUNT;
  s.uploadedBytes = uploaded;
  s.residentBytes = residentBytes();
  s.staged = staged_;
  s.terrainTriangles = terrain_.triangles[frameIndex_ % kFramesInFlight];
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
  for (auto& [region, block] : copies_) vkCmdCopyBuffer(cmd, slot.staging.buffer, blocks_[block].buffer, 1, &region);
  {
    gpu::DrawCommand init[gpu::DRAW_COUNT];
    for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) {
      for (uint32_t lod = 0; lod < gpu::LOD_COUNT; ++lod) {
        const MeshRange& m = meshes_.species[k].lods[lod];
        init[k * gpu::LOD_COUNT + lod] = {m.indexCount, 0, m.firstIndex, m.vertexOffset,
                                          lod == 0 ? slot.data.regions[k].x : slot.data.regions[k].y, 0, 0, 0};
      }
    }
    vkCmdUpdateBuffer(cmd, draws_.buffer, 0, sizeof(init), init);
    vkCmdFillBuffer(cmd, stats_.buffer, 0, kStatBytes, 0);
  }
  memoryBarrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                kCompute | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, kRW);

  VkViewport viewport{0, 0, float(w), float(h), 0, 1};
  VkRect2D scissor{{0, 0}, {w, h}};

  // 1. terrain (depth pre-pass and colour). The previous frame's last uses of the targets
  // (pyramid reads of depth, copies or blits of colour) finish before they are overwritten.
  imageBarrier(cmd, color_.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0,
               VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
  imageBarrier(cmd, depth_.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0,
               VK_IMAGE_LAYOUT_UNDEFINED,
               VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
               VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
               VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
  auto beginPass = [&](bool clear) {
    VkRenderingAttachmentInfo colorAtt{.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    colorAtt.imageView = color_.view;
    colorAtt.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colorAtt.loadOp = clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD;
    colorAtt.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    colorAtt.clearValue.color = {{slot.data.fog.x, slot.data.fog.y, slot.data.fog.z, 1.0f}};
    VkRenderingAttachmentInfo depthAtt{.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    depthAtt.imageView = depth_.view;
    depthAtt.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    depthAtt.loadOp = clear ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD;
    depthAtt.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    depthAtt.clearValue.depthStencil = {0.0f, 0};
    VkRenderingInfo info{.sType = VK_STRUCTURE_TYPE_RENDERING_INFO};
    info.renderArea = scissor;
    info.layerCount = 1;
    info.colorAttachmentCount = 1;
    info.pColorAttachments = &colorAtt;
    info.pDepthAttachment = &depthAtt;
    vkCmdBeginRendering(cmd, &info);
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
  };
  beginPass(true);
  recordTerrainDraw(cmd, terrain_, slot.frame, farField_.image.view, farField_.sampler,
                    uint32_t(slot.stats.frame % kFramesInFlight));
  vkCmdEndRendering(cmd);
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, slot.queries, TsTerrain);

  // 2. Hi-Z pyramid from the terrain depth
  if (cull.occlusion) {
    imageBarrier(cmd, depth_.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, kCompute,
                 VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    memoryBarrier(cmd, kCompute, kRW, kCompute, kRW);  // previous frame's culling read the pyramid
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, reduce_.pipeline);
    uint32_t sw = w, sh = h;
    for (uint32_t level = 0; level < pyramid_.mips; ++level) {
      uint32_t dw = std::max(1u, pyramid_.width >> level), dh = std::max(1u, pyramid_.height >> level);
      DescriptorWrites d;
      if (level == 0)
        d.image(0, kSampled, sampler_, depth_.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
      else
        d.image(0, kSampled, sampler_, pyramid_.mipViews[level - 1], VK_IMAGE_LAYOUT_GENERAL);
      d.image(1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_NULL_HANDLE, pyramid_.mipViews[level], VK_IMAGE_LAYOUT_GENERAL);
      d.push(cmd, reduce_);
      uint32_t push[4] = {sw, sh, dw, dh};
      vkCmdPushConstants(cmd, reduce_.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 16, push);
      vkCmdDispatch(cmd, (dw + 7) / 8, (dh + 7) / 8, 1);
      memoryBarrier(cmd, kCompute, VK_ACCESS_2_SHADER_WRITE_BIT, kCompute, VK_ACCESS_2_SHADER_READ_BIT);
      sw = dw;
      sh = dh;
    }
    // back to an attachment for the vegetation pass, which tests against the terrain depth
    imageBarrier(cmd, depth_.image, VK_IMAGE_ASPECT_DEPTH_BIT, kCompute, 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                 VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
  } else {
    // the vegetation pass loads and tests the depth the terrain pass wrote
    imageBarrier(cmd, depth_.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                 VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
  }
  // the vegetation pass loads the colour the terrain pass wrote
  imageBarrier(cmd, color_.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
               VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
               VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, slot.queries, TsPyramid);

  // 3. culling and draw command compaction
  const VkDeviceAddress visibleAddress = visible_.address;
  if (pageCount_ > 0) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, cull_.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, slot.frame);
    d.buffer(1, kSsbo, slot.pageTable, VkDeviceSize(pageCount_) * sizeof(gpu::GpuPage));
    d.buffer(2, kSsbo, draws_);
    d.buffer(4, kSsbo, stats_);
    d.image(5, kSampled, sampler_, pyramid_.view, VK_IMAGE_LAYOUT_GENERAL);
    d.buffer(7, kSsbo, species_);
    d.push(cmd, cull_);
    vkCmdPushConstants(cmd, cull_.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, &visibleAddress);
    vkCmdDispatch(cmd, gpu::PAGE_SIZE / gpu::CULL_GROUP, std::min(pageCount_, gpu::PAGE_ROWS),
                  (pageCount_ + gpu::PAGE_ROWS - 1) / gpu::PAGE_ROWS);
  }
  memoryBarrier(cmd, kCompute, kRW, kCompute, kRW);
  {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, cullFinish_.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, slot.frame);
    d.buffer(2, kSsbo, draws_);
    d.push(cmd, cullFinish_);
    vkCmdDispatch(cmd, 1, 1, 1);
  }
  memoryBarrier(cmd, kCompute, VK_ACCESS_2_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT,
                VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_READ_BIT);
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, slot.queries, TsCull);

  // 4. vegetation: one multi-draw-indirect call, one record per (kind, LOD)
  beginPass(false);
  if (pageCount_ > 0) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, vegetation_.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, slot.frame);
    d.buffer(1, kSsbo, slot.pageTable, VkDeviceSize(pageCount_) * sizeof(gpu::GpuPage));
    d.buffer(7, kSsbo, species_);
    d.push(cmd, vegetation_);
    vkCmdPushConstants(cmd, vegetation_.layout, kVF, 0, 8, &visibleAddress);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &vertices_.buffer, &offset);
    vkCmdBindIndexBuffer(cmd, indices_.buffer, 0, VK_INDEX_TYPE_UINT32);
    vkCmdDrawIndexedIndirect(cmd, draws_.buffer, 0, gpu::DRAW_COUNT, sizeof(gpu::DrawCommand));
  }
  vkCmdEndRendering(cmd);
  if (slot.queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, slot.queries, TsVegetation);

  // 5. read-back of what the GPU wrote (draw records, counters) into this slot
  memoryBarrier(cmd, kCompute | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
  VkBufferCopy drawCopy{0, 0, kDrawBytes}, statCopy{0, kDrawBytes, kStatBytes};
  vkCmdCopyBuffer(cmd, draws_.buffer, slot.readback.buffer, 1, &drawCopy);
  vkCmdCopyBuffer(cmd, stats_.buffer, slot.readback.buffer, 1, &statCopy);

  // 6. hand the picture over
  imageBarrier(cmd, color_.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
               VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
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

std::array<gpu::uvec4, gpu::KIND_COUNT> Renderer::kindRegions() const {
  std::array<gpu::uvec4, gpu::KIND_COUNT> out;
  std::memcpy(out.data(), lastFrame_.regions, sizeof(out));
  return out;
}

}  // namespace eco::render
