#include "render/renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/error.h"

namespace eco::render {

namespace {

constexpr uint32_t kBlockPages = 64;  // 64 pages * 4096 instances * 64 B = 16 MiB per block
constexpr VkDeviceSize kPageBytes = VkDeviceSize(gpu::PAGE_SIZE) * sizeof(gpu::GpuInstance);
constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;
enum Timestamp : uint32_t { TsBegin, TsTerrain, TsPyramid, TsCull, TsVegetation, TsCount };

constexpr VkShaderStageFlags kVF = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
constexpr VkDescriptorType kUbo = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
constexpr VkDescriptorType kSsbo = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
constexpr VkDescriptorType kSampled = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;

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

}  // namespace

Renderer::Renderer(Context& ctx, const World& world, const RendererOptions& options)
    : ctx_(ctx), world_(world), options_(options) {
  VkDevice dev = ctx.device;
  uint32_t w = uint32_t(options.width), h = uint32_t(options.height);

  // instance pool and visible list
  // The budget is clamped to the visible list the device can address (one uint per resident
  // instance in one storage buffer); the cull shader writes at most that many entries.
  const uint64_t maxVisible = ctx.properties.limits.maxStorageBufferRange / 4;
  if (options_.stream.budgetInstances > maxVisible) {
    spdlog::warn("instance budget {} clamped to {} (this device's storage buffer range)",
                 options_.stream.budgetInstances, maxVisible);
    options_.stream.budgetInstances = maxVisible;
  }
  // a page per 4096 budgeted instances plus each tile's partial last page, within one
  // dispatch row per page; makeResident turns away a tile the pool cannot hold
  maxPages_ = uint32_t(std::min<uint64_t>(
      (options_.stream.budgetInstances + gpu::PAGE_SIZE - 1) / gpu::PAGE_SIZE + world.tiles.size() + 1,
      ctx.properties.limits.maxComputeWorkGroupCount[1]));
  if (options.maxPages > 0) maxPages_ = std::min(maxPages_, options.maxPages);
  visibleCapacity_ = std::max<uint64_t>(options_.stream.budgetInstances, 1);
  pageTable_ = createBuffer(ctx, VkDeviceSize(maxPages_) * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::Upload);
  std::memset(pageTable_.data, 0, pageTable_.size);
  pageOwner_.resize(maxPages_);
  for (uint32_t p = 0; p < maxPages_; ++p) freePages_.insert(p);
  visible_ = createBuffer(ctx, visibleCapacity_ * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::Upload);
  draws_ = createBuffer(ctx, sizeof(gpu::DrawCommand) * gpu::DRAW_COUNT,
                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUse::Upload);
  stats_ = createBuffer(ctx, 4 * gpu::STAT_COUNT, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::Readback);
  frame_ = createBuffer(ctx, sizeof(gpu::FrameData), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUse::Upload);
  tiles_.resize(world.tiles.size());
  resident_.assign(world.tiles.size(), false);

  terrain_ = createTerrainDraw(ctx, world.heights, world.cellSize, kColorFormat, kDepthFormat);
  farField_ = createFarField(ctx, world);

  // vegetation meshes
  meshes_ = buildMeshes();
  vertices_ = createBuffer(ctx, meshes_.vertices.size() * sizeof(MeshVertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                           MemoryUse::Upload);
  std::memcpy(vertices_.data, meshes_.vertices.data(), vertices_.size);
  indices_ = createBuffer(ctx, meshes_.indices.size() * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, MemoryUse::Upload);
  std::memcpy(indices_.data, meshes_.indices.data(), indices_.size);

  // targets
  color_ = createImage(ctx, w, h, 1, kColorFormat,
                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  depth_ = createImage(ctx, w, h, 1, kDepthFormat,
                       VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT);
  // Hi-Z pyramid: power-of-two levels, so level L texel j covers exactly depth pixels
  // [j, j + 1) * 2^(L + 1); texels past the screen edge repeat the edge pixels.
  uint32_t pw = nextPow2((w + 1) / 2), ph = nextPow2((h + 1) / 2);
  pyramid_ = createImage(ctx, pw, ph, mipCount(pw, ph), VK_FORMAT_R32_SFLOAT,
                         VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
  if (pyramid_.mipViews.empty()) pyramid_.mipViews.push_back(pyramid_.view);  // 1x1 pyramid shares its view
  readback_ = createBuffer(ctx, VkDeviceSize(w) * h * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::Readback);

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
      ctx, veg, {{0, kUbo, kVF}, {1, kSsbo, VK_SHADER_STAGE_VERTEX_BIT}, {3, kSsbo, VK_SHADER_STAGE_VERTEX_BIT}}, 0);
  constexpr VkShaderStageFlags C = VK_SHADER_STAGE_COMPUTE_BIT;
  cull_ = createComputePipeline(ctx, "cull.comp",
                                {{0, kUbo, C}, {1, kSsbo, C}, {2, kSsbo, C}, {3, kSsbo, C}, {4, kSsbo, C}, {5, kSampled, C}}, 0);
  cullFinish_ = createComputePipeline(ctx, "cull_finish.comp", {{0, kUbo, C}, {2, kSsbo, C}}, 0);
  reduce_ = createComputePipeline(ctx, "depth_reduce.comp",
                                  {{0, kSampled, C}, {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, C}}, 16);

  // the pyramid stays in GENERAL for its whole life
  VkCommandBuffer one = beginOneShot(ctx);
  imageBarrier(one, pyramid_.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT,
               VK_IMAGE_LAYOUT_GENERAL);
  VkClearColorValue zero{};
  VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0, 1};
  memoryBarrier(one, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
  vkCmdClearColorImage(one, pyramid_.image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &all);
  memoryBarrier(one, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_READ_BIT);
  endOneShot(ctx, one);

  if (ctx.timestamps) {
    VkQueryPoolCreateInfo qi{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = TsCount;
    ECO_VK(vkCreateQueryPool(dev, &qi, nullptr, &queries_));
  }
  VkCommandBufferAllocateInfo ai{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = ctx.commandPool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  ECO_VK(vkAllocateCommandBuffers(dev, &ai, &cmd_));
  VkFenceCreateInfo fi{.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  ECO_VK(vkCreateFence(dev, &fi, nullptr, &fence_));

  streamer_ = std::make_unique<Streamer>(world, options_.stream);
}

Renderer::~Renderer() {
  streamer_.reset();
  VkDevice dev = ctx_.device;
  vkDeviceWaitIdle(dev);
  vkDestroyFence(dev, fence_, nullptr);
  vkFreeCommandBuffers(dev, ctx_.commandPool, 1, &cmd_);
  if (queries_) vkDestroyQueryPool(dev, queries_, nullptr);
  for (Pipeline* p : {&vegetation_, &cull_, &cullFinish_, &reduce_}) destroyPipeline(ctx_, *p);
  vkDestroySampler(dev, sampler_, nullptr);
  if (pyramid_.mipViews.size() == 1 && pyramid_.mipViews[0] == pyramid_.view) pyramid_.mipViews.clear();
  for (Image* i : {&color_, &depth_, &pyramid_}) destroyImage(ctx_, *i);
  destroyTerrainDraw(ctx_, terrain_);
  destroyFarField(ctx_, farField_);
  for (Buffer* b : {&pageTable_, &visible_, &draws_, &stats_, &frame_, &vertices_, &indices_, &readback_})
    destroyBuffer(ctx_, *b);
  for (Buffer& b : blocks_) destroyBuffer(ctx_, b);
}

uint32_t Renderer::allocatePage() {
  if (freePages_.empty()) throw std::runtime_error("instance page pool exhausted");
  uint32_t p = *freePages_.begin();
  freePages_.erase(freePages_.begin());
  uint32_t block = p / kBlockPages;
  while (blocks_.size() <= block)
    blocks_.push_back(createBuffer(ctx_, kPageBytes * kBlockPages,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                   MemoryUse::Upload));
  pageCount_ = std::max(pageCount_, p + 1);
  return p;
}

bool Renderer::makeResident(LoadedTile& tile) {
  TileSlot& slot = tiles_[tile.tile];
  auto* table = static_cast<gpu::uvec4*>(pageTable_.data);
  size_t n = tile.instances.size();
  // The streamer admits tiles within the budget by their verified counts; past the visible
  // list's capacity the cull shader would write out of bounds, so this is a bug, not input.
  if (residentInstances_ + n > visibleCapacity_)
    throw std::logic_error("tile " + std::to_string(tile.tile) + ": " + std::to_string(n) + " instances would exceed " +
                           "the visible list (" + std::to_string(residentInstances_) + " resident, capacity " +
                           std::to_string(visibleCapacity_) + ")");
  // Many small tiles can use up the pages (one dispatch row each) before the budget
  if ((n + gpu::PAGE_SIZE - 1) / gpu::PAGE_SIZE > freePages_.size()) return false;
  // Kind regions of the visible list are sized from the kind the shader reads, extra.y.
  for (const gpu::GpuInstance& g : tile.instances) slot.kindCounts[std::min<uint32_t>(g.extra.y, gpu::KIND_COUNT - 1)]++;
  for (size_t first = 0; first < n; first += gpu::PAGE_SIZE) {
    uint32_t p = allocatePage();
    uint32_t count = uint32_t(std::min<size_t>(gpu::PAGE_SIZE, n - first));
    Buffer& block = blocks_[p / kBlockPages];
    VkDeviceSize offset = VkDeviceSize(p % kBlockPages) * kPageBytes;
    std::memcpy(static_cast<char*>(block.data) + offset, tile.instances.data() + first, count * sizeof(gpu::GpuInstance));
    VkDeviceAddress address = block.address + offset;
    table[p] = {uint32_t(address), uint32_t(address >> 32), count, 0};
    pageOwner_[p] = {tile.tile, uint32_t(first)};
    slot.pages.push_back(p);
  }
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) kindResident_[k] += slot.kindCounts[k];
  residentInstances_ += n;
  resident_[tile.tile] = true;
  return true;
}

void Renderer::evict(size_t index) {
  TileSlot& slot = tiles_[index];
  auto* table = static_cast<gpu::uvec4*>(pageTable_.data);
  for (uint32_t p : slot.pages) {
    residentInstances_ -= table[p].z;
    table[p] = {0, 0, 0, 0};
    freePages_.insert(p);
  }
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) kindResident_[k] -= slot.kindCounts[k];
  slot = TileSlot{};
  resident_[index] = false;
  while (pageCount_ > 0 && table[pageCount_ - 1].z == 0) --pageCount_;
}

void Renderer::stream(const Camera& cam, bool settle) {
  std::vector<size_t> unload;
  streamer_->update(cam.position, unload);
  for (size_t t : unload) evict(t);
  if (settle) streamer_->waitIdle();
  uint64_t uploaded = 0;
  LoadedTile tile;
  while ((settle || uploaded < options_.uploadInstancesPerFrame) && streamer_->poll(tile)) {
    uploaded += tile.instances.size();
    if (!makeResident(tile)) {
      const WorldTile& t = world_.tiles[tile.tile];
      spdlog::warn("tile {},{} skipped: no free instance pages ({} in use)", t.x, t.z, maxPages_ - freePages_.size());
      streamer_->reject(tile.tile);
    }
  }
}

void Renderer::settleStreaming(const Camera& cam) {
  stream(cam, true);
  stream(cam, true);  // a second pass picks up loads planned after evictions
}

void Renderer::checkCullCapacity() const {
  // The shader writes one visible entry per instance of pages [0, pageCount_), at
  // regions[kind].x + n (LOD 0) or regions[kind].y - 1 - n (LOD 1), n below the kind's count
  // in those pages. Every write stays inside the visible list exactly when the page counts,
  // the kind regions and the resident total agree and fit the list.
  const auto* table = static_cast<const gpu::uvec4*>(pageTable_.data);
  uint64_t inPages = 0, inKinds = 0;
  for (uint32_t p = 0; p < pageCount_; ++p) inPages += table[p].z;
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

FrameStats Renderer::render(const Camera& cam, const CullSettings& cull, const FrameHooks* hooks) {
  auto t0 = std::chrono::steady_clock::now();
  stream(cam, false);
  checkCullCapacity();

  // per-frame constants, draw commands (kind regions in the visible list) and counters
  gpu::FrameData frame = makeFrameData(cam, options_.width, options_.height, cull);
  prepareTerrainFrame(terrain_, frame, 0);
  prepareFarFieldFrame(farField_, frame);
  setFadeDistances(frame, cull, options_.stream.loadRadius);
  frame.lod.z = float(pyramid_.width);
  frame.lod.w = float(pyramid_.height);
  frame.cull.x = pageCount_;
  frame.cull.z = pyramid_.mips;
  auto* draws = static_cast<gpu::DrawCommand*>(draws_.data);
  uint32_t base = 0;
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) {
    uint32_t end = base + uint32_t(kindResident_[k]);
    frame.regions[k] = {base, end, 0, 0};
    for (uint32_t lod = 0; lod < gpu::LOD_COUNT; ++lod) {
      const MeshRange& m = meshes_.ranges[k * gpu::LOD_COUNT + lod];
      draws[k * gpu::LOD_COUNT + lod] = {m.indexCount, 0, m.firstIndex, m.vertexOffset, lod == 0 ? base : end, 0, 0, 0};
    }
    base = end;
  }
  std::memcpy(frame_.data, &frame, sizeof(frame));
  std::memset(stats_.data, 0, stats_.size);

  ECO_VK(vkResetCommandBuffer(cmd_, 0));
  VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  ECO_VK(vkBeginCommandBuffer(cmd_, &begin));
  record(cmd_, cull, hooks);
  ECO_VK(vkEndCommandBuffer(cmd_));

  VkCommandBufferSubmitInfo cmdInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
  cmdInfo.commandBuffer = cmd_;
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
  ECO_VK(vkQueueSubmit2(ctx_.queue, 1, &submit, fence_));
  ECO_VK(vkWaitForFences(ctx_.device, 1, &fence_, VK_TRUE, UINT64_MAX));
  ECO_VK(vkResetFences(ctx_.device, 1, &fence_));

  FrameStats s;
  s.frame = frameIndex_++;
  const auto* counters = static_cast<const uint32_t*>(stats_.data);
  s.resident = residentInstances_;
  s.tested = counters[gpu::STAT_TESTED];
  s.afterFrustum = counters[gpu::STAT_FRUSTUM];
  s.afterOcclusion = counters[gpu::STAT_VISIBLE];
  s.terrainTriangles = terrain_.triangles[0];
  s.drawCalls = 1;
  s.drawCommands = gpu::DRAW_COUNT;
  for (uint32_t d = 0; d < gpu::DRAW_COUNT; ++d) {
    s.drawInstances[d] = draws[d].instanceCount;
    s.nonEmptyDraws += draws[d].instanceCount > 0;
  }
  s.tilesResident = streamer_->residentTiles();
  s.tileLoads = streamer_->loads();
  s.tileUnloads = streamer_->unloads();
  if (queries_) {
    uint64_t ts[TsCount];
    if (vkGetQueryPoolResults(ctx_.device, queries_, 0, TsCount, sizeof(ts), ts, 8, VK_QUERY_RESULT_64_BIT) ==
        VK_SUCCESS) {
      double period = ctx_.properties.limits.timestampPeriod * 1e-6;
      s.gpuMs = double(ts[TsVegetation] - ts[TsBegin]) * period;
      s.terrainMs = double(ts[TsTerrain] - ts[TsBegin]) * period;
      s.pyramidMs = double(ts[TsPyramid] - ts[TsTerrain]) * period;
      s.cullMs = double(ts[TsCull] - ts[TsPyramid]) * period;
      s.vegetationMs = double(ts[TsVegetation] - ts[TsCull]) * period;
    }
  }
  if (options_.capture) {
    pixels_.resize(readback_.size);
    std::memcpy(pixels_.data(), readback_.data, readback_.size);
  }
  s.cpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

void Renderer::record(VkCommandBuffer cmd, const CullSettings& cull, const FrameHooks* hooks) {
  uint32_t w = uint32_t(options_.width), h = uint32_t(options_.height);
  constexpr auto kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  constexpr auto kRW = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT;
  if (queries_) {
    vkCmdResetQueryPool(cmd, queries_, 0, TsCount);
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, queries_, TsBegin);
  }
  VkViewport viewport{0, 0, float(w), float(h), 0, 1};
  VkRect2D scissor{{0, 0}, {w, h}};

  // 1. terrain (depth pre-pass and colour)
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
    auto* fog = &static_cast<const gpu::FrameData*>(frame_.data)->fog;
    colorAtt.clearValue.color = {{fog->x, fog->y, fog->z, 1.0f}};
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
  {
    recordTerrainDraw(cmd, terrain_, frame_, farField_.image.view, farField_.sampler, 0);
  }
  vkCmdEndRendering(cmd);
  if (queries_) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, queries_, TsTerrain);

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
    imageBarrier(cmd, depth_.image, VK_IMAGE_ASPECT_DEPTH_BIT, kCompute, 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                 VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
  }
  if (queries_) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, queries_, TsPyramid);

  // 3. culling and draw command compaction
  if (pageCount_ > 0) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, cull_.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, frame_);
    d.buffer(1, kSsbo, pageTable_);
    d.buffer(2, kSsbo, draws_);
    d.buffer(3, kSsbo, visible_);
    d.buffer(4, kSsbo, stats_);
    d.image(5, kSampled, sampler_, pyramid_.view, VK_IMAGE_LAYOUT_GENERAL);
    d.push(cmd, cull_);
    vkCmdDispatch(cmd, gpu::PAGE_SIZE / gpu::CULL_GROUP, pageCount_, 1);
  }
  memoryBarrier(cmd, kCompute, kRW, kCompute, kRW);
  {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, cullFinish_.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, frame_);
    d.buffer(2, kSsbo, draws_);
    d.push(cmd, cullFinish_);
    vkCmdDispatch(cmd, 1, 1, 1);
  }
  memoryBarrier(cmd, kCompute, VK_ACCESS_2_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_HOST_BIT,
                VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_HOST_READ_BIT);
  if (queries_) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, queries_, TsCull);

  // 4. vegetation: one multi-draw-indirect call, one record per (kind, LOD)
  beginPass(false);
  {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, vegetation_.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, frame_);
    d.buffer(1, kSsbo, pageTable_);
    d.buffer(3, kSsbo, visible_);
    d.push(cmd, vegetation_);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &vertices_.buffer, &offset);
    vkCmdBindIndexBuffer(cmd, indices_.buffer, 0, VK_INDEX_TYPE_UINT32);
    vkCmdDrawIndexedIndirect(cmd, draws_.buffer, 0, gpu::DRAW_COUNT, sizeof(gpu::DrawCommand));
  }
  vkCmdEndRendering(cmd);
  if (queries_) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, queries_, TsVegetation);

  // 5. hand the picture over
  imageBarrier(cmd, color_.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
               VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  if (options_.capture) {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {w, h, 1};
    vkCmdCopyImageToBuffer(cmd, color_.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_.buffer, 1, &region);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  }
  if (hooks && hooks->record) hooks->record(cmd, color_);
}

std::vector<gpu::DrawCommand> Renderer::drawCommands() const {
  const auto* draws = static_cast<const gpu::DrawCommand*>(draws_.data);
  return std::vector<gpu::DrawCommand>(draws, draws + gpu::DRAW_COUNT);
}

std::array<gpu::uvec4, gpu::KIND_COUNT> Renderer::kindRegions() const {
  std::array<gpu::uvec4, gpu::KIND_COUNT> out;
  std::memcpy(out.data(), static_cast<const gpu::FrameData*>(frame_.data)->regions, sizeof(out));
  return out;
}

std::vector<VisibleRef> Renderer::visibleInstances() const {
  std::vector<VisibleRef> out;
  const auto* draws = static_cast<const gpu::DrawCommand*>(draws_.data);
  const auto* refs = static_cast<const uint32_t*>(visible_.data);
  for (uint32_t d = 0; d < gpu::DRAW_COUNT; ++d) {
    for (uint32_t i = 0; i < draws[d].instanceCount; ++i) {
      uint32_t ref = refs[draws[d].firstInstance + i];
      auto [tile, first] = pageOwner_[ref >> gpu::PAGE_SHIFT];
      out.push_back({tile, first + (ref & (gpu::PAGE_SIZE - 1)), d});
    }
  }
  return out;
}

}  // namespace eco::render
