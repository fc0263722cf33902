#pragma once
// The frame: terrain depth pre-pass -> Hi-Z pyramid of that depth -> instance culling compute
// (frustum, draw distance + LOD, occlusion) -> one multi-draw-indirect for all vegetation.
//
// Occlusion design: the pyramid is built from THIS frame's terrain depth, drawn first. Terrain
// is the only occluder, so culling is exact for the current frame (no reprojection, no stale
// occluders while the camera moves or tiles stream) and conservative: an instance is dropped
// only when its bounding sphere lies behind the terrain over every pixel it could touch.
// Vegetation-on-vegetation occlusion is not used.
//
// Instances live in 4096-instance pages (64 MiB blocks of host-visible memory, reached through
// buffer device addresses, so 20M+ instances are not limited by maxStorageBufferRange). The
// culling shader writes page/slot references into per-kind regions of one visible list.
#include <array>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "render/camera.h"
#include "render/far_field.h"
#include "render/meshes.h"
#include "render/streamer.h"
#include "render/terrain_draw.h"
#include "render/vk_context.h"
#include "render/world.h"

namespace eco::render {

struct RendererOptions {
  int width = 1280, height = 720;
  StreamSettings stream;
  uint64_t uploadInstancesPerFrame = 4'000'000;  // bounds the per-frame copy work
  bool capture = false;                            // keep a host copy of each frame's pixels
  uint32_t maxPages = 0;  // instance pages (4096 each); 0: as many as the budget and device allow
};

struct FrameStats {
  uint64_t frame = 0;
  double cpuMs = 0;
  double gpuMs = -1, terrainMs = -1, pyramidMs = -1, cullMs = -1, vegetationMs = -1;  // -1: no timestamps
  uint64_t resident = 0, tested = 0, afterFrustum = 0, afterOcclusion = 0;
  uint64_t terrainTriangles = 0;  // drawn by the terrain LOD selection
  uint32_t drawCalls = 0;       // vkCmdDrawIndexedIndirect calls for vegetation
  uint32_t drawCommands = 0;    // indirect command records they consume
  uint32_t nonEmptyDraws = 0;   // records with instanceCount > 0
  std::array<uint32_t, gpu::DRAW_COUNT> drawInstances{};
  size_t tilesResident = 0;
  uint64_t tileLoads = 0, tileUnloads = 0;  // cumulative
};

// Extra work for a windowed frame: wait/signal semaphores and commands recorded after the
// scene (the colour image is then in TRANSFER_SRC_OPTIMAL).
struct FrameHooks {
  VkSemaphore wait = VK_NULL_HANDLE;
  VkSemaphore signal = VK_NULL_HANDLE;
  std::function<void(VkCommandBuffer, const Image& color)> record;
};

struct VisibleRef {
  size_t tile;
  uint32_t index;  // within the tile's instances
  uint32_t draw;   // kind * LOD_COUNT + lod
};

class Renderer {
 public:
  Renderer(Context& ctx, const World& world, const RendererOptions& options);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Waits until every tile wanted around the camera is loaded and resident.
  void settleStreaming(const Camera& cam);
  // Streams (non-blocking), renders, waits for the GPU and returns the frame's statistics.
  FrameStats render(const Camera& cam, const CullSettings& cull, const FrameHooks* hooks = nullptr);

  const std::vector<uint8_t>& pixels() const { return pixels_; }  // RGBA8, capture only
  std::vector<VisibleRef> visibleInstances() const;                // last frame's draws
  // The indirect buffer as the GPU left it after the last frame (instance counts written by
  // cull.comp, LOD 1 first instances by cull_finish.comp): what vkCmdDrawIndexedIndirect consumed.
  std::vector<gpu::DrawCommand> drawCommands() const;
  // The visible list's kind regions of the last frame: [x, y) per kind.
  std::array<gpu::uvec4, gpu::KIND_COUNT> kindRegions() const;
  std::vector<size_t> residentTiles() const;
  int width() const { return options_.width; }
  int height() const { return options_.height; }

 private:
  struct TileSlot {
    std::vector<uint32_t> pages;
    std::array<uint64_t, gpu::KIND_COUNT> kindCounts{};
  };
  void stream(const Camera& cam, bool settle);
  bool makeResident(LoadedTile& tile);  // false: too few free pages, nothing changed
  void evict(size_t tile);
  uint32_t allocatePage();
  void checkCullCapacity() const;  // std::logic_error unless every cull shader write fits
  void record(VkCommandBuffer cmd, const CullSettings& cull, const FrameHooks* hooks);

  Context& ctx_;
  const World& world_;
  RendererOptions options_;
  std::unique_ptr<Streamer> streamer_;

  // instance pages
  uint32_t maxPages_ = 0, pageCount_ = 0;
  std::vector<Buffer> blocks_;
  std::set<uint32_t> freePages_;
  std::vector<std::pair<size_t, uint32_t>> pageOwner_;  // tile, first instance in tile
  std::vector<TileSlot> tiles_;
  std::vector<bool> resident_;
  std::array<uint64_t, gpu::KIND_COUNT> kindResident_{};
  uint64_t residentInstances_ = 0;
  uint64_t visibleCapacity_ = 0;

  Buffer pageTable_, visible_, draws_, stats_, frame_, vertices_, indices_, readback_;
  MeshSet meshes_;
  TerrainDraw terrain_;
  FarField farField_;
  Image color_, depth_, pyramid_;
  VkSampler sampler_ = VK_NULL_HANDLE;
  Pipeline vegetation_, cull_, cullFinish_, reduce_;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  uint64_t frameIndex_ = 0;
  std::vector<uint8_t> pixels_;
};

}  // namespace eco::render
