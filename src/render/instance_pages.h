#pragma once
// Instance pages: where the resident instances' 16-byte records live on the GPU, and which
// tiles are resident. A page is what the page table lists (GpuPage: address, count, tile) and
// cull.comp runs one workgroup over: up to PAGE_SIZE records at an address. A tile's pages
// are its whole 128-record pieces and its tail (the last n % 128 records). Their storage is
// 2 KiB storage pages in blocks allocated up front (streaming never allocates): a whole piece
// takes a storage page, a tail a run of 1, 2 or 4 chunks of 16 records (a storage page split
// into runs of that size) or a storage page when it is longer, so a tile leaves 21 records
// unused on average instead of 64 (the sample bake: 1.0 B less per resident instance).
// A tile is admitted (startUpload: pages and storage reserved), written a budget's worth per
// frame (writeRecords: straight into the storage where the CPU can map it, else into the
// frame's staging buffer with the copies listed), then committed into the table; evicted
// pages are retired until no frame in flight can read them.
// The create/prepare pattern of terrain_draw and far_field: the Renderer owns one and calls
// these between frames; render/renderer.cpp records the staged copies into the frame.
#include <array>
#include <cstdint>
#include <deque>
#include <set>
#include <utility>
#include <vector>

#include "render/scene.h"
#include "render/streamer.h"
#include "render/vk_context.h"
#include "shaders/shared.h"

namespace eco::render {

// 512 storage pages * 128 instances * 16 B = 1 MiB per block (1000 blocks for 65 M instances;
// the last block only as large as it needs to be)
constexpr uint32_t kBlockPages = 512;
constexpr VkDeviceSize kPageBytes = VkDeviceSize(gpu::PAGE_SIZE) * sizeof(gpu::PackedInstance);
constexpr uint32_t kChunkRecords = 16;                                // a tail's storage, in runs of 1, 2, 4 chunks
constexpr uint32_t kPageChunks = gpu::PAGE_SIZE / kChunkRecords;     // 8
constexpr uint32_t kRunClasses = 3;                                   // runs shorter than a storage page

// Storage pages the tiles of these instance counts take, packed (a tail's run rounded up to a
// power of two chunks, runs of a size sharing storage pages); what every tile resident at
// once takes when nothing was evicted.
uint64_t packedStoragePages(const std::vector<uint64_t>& tileInstances);

struct PendingUpload {  // a tile being written, a budget's worth per frame
  LoadedTile tile;
  std::vector<uint32_t> pages;
  size_t written = 0;  // instances
};

struct InstancePages {
  struct TileSlot {
    std::vector<uint32_t> pages;
    std::vector<uint32_t> speciesCounts;  // by species id
  };
  uint32_t maxPages = 0;   // page-table entries
  uint32_t pageCount = 0;  // pages [0, pageCount) may hold instances: what cull.comp dispatches over
  bool staged = false;     // the blocks are GPU-only: records go through the staging buffer
  std::set<uint32_t> freePages;
  // Storage: blocks of storage pages; a chunk is storage page * kPageChunks + its offset there
  std::vector<Buffer> blocks;
  std::vector<uint32_t> blockStart;  // first storage page of each block
  uint32_t storagePages = 0;
  std::set<uint32_t> freeStorage;
  std::array<std::set<uint32_t>, kRunClasses> freeRuns;  // by class (runs of 1, 2, 4 chunks): first chunk
  std::vector<uint8_t> runsUsed;                          // per storage page split into runs: runs in use
  std::vector<std::pair<uint32_t, uint32_t>> storage;     // per page: its first chunk and chunks
  std::vector<std::pair<uint64_t, uint32_t>> retiring;    // (frame from which it is unused, page)
  std::vector<gpu::GpuPage> table;                      // the committed table; copied per frame
  uint64_t tableVersion = 0;                            // bumped by every change to `table`
  // By slot: the box its records decode over, set when it is first committed (a tile's box
  // never changes, so an entry is written once, while no frame can read it); `boxes` is the
  // GPU's copy (binding 6 of the cull and vegetation shaders).
  std::vector<gpu::GpuTile> tileBoxes;
  std::vector<bool> boxWritten;
  Buffer boxes;
  std::vector<std::pair<size_t, uint32_t>> owner;       // per page: tile, first instance in tile
  // By slot: [0, worldTiles) the world's tiles, then the far trees' pages, one slot each
  // (render/far_field.h: never evicted; their pages carry PAGE_FAR_TREES)
  size_t worldTiles = 0;
  std::vector<TileSlot> tiles;
  std::vector<bool> resident;
  std::deque<PendingUpload> pending;
  uint32_t speciesCount = 1;
  std::vector<uint64_t> speciesResident;  // by species id
  uint64_t residentInstances = 0;
  uint64_t capacity = 0;  // the instance budget: the streamer admits within it, so passing it is a bug
  std::vector<std::pair<VkBufferCopy, uint32_t>> copies;  // staged copies to record (region, block)
};

InstancePages createInstancePages(Context& ctx, uint32_t maxPages, uint32_t storagePages, size_t tiles, size_t farSlots,
                                  uint32_t speciesCount, uint64_t capacity, bool staged);
// Adds a block of `count` storage pages: once, for the far trees the survey counted (their
// pages in the table were reserved at creation, their storage is only known then).
void addStorage(Context& ctx, InstancePages& pages, uint32_t count);
void destroyInstancePages(Context& ctx, InstancePages& pages);

// Reserves the tile's pages and storage and queues it; false (nothing changed) when too few are
// free.
// std::logic_error when the resident and queued instances would pass `capacity`.
bool startUpload(InstancePages& pages, LoadedTile& tile);
// Writes queued records, whole pages, until `budget` bytes are written or the calling thread's
// CPU clock passes deadlineMs (at least one page); a finished tile is committed and its
// buffers handed back to the streamer. Staged: into `staging`, appending to pages.copies.
uint64_t writeRecords(InstancePages& pages, Streamer& streamer, const Buffer& staging, uint64_t budget,
                      double deadlineMs);
// Drops a tile (resident or still queued); its pages are retired from frame `frameIndex` on.
void evictTile(InstancePages& pages, Streamer& streamer, size_t tile, uint64_t frameIndex);
// Frees the retired pages and their storage no frame in flight reads any more (frames before
// framesFinished).
void retirePages(InstancePages& pages, uint64_t framesFinished);
// Records pages.copies from `staging` into the blocks and clears the list.
void recordRecordCopies(VkCommandBuffer cmd, InstancePages& pages, const Buffer& staging);
uint64_t blockBytes(const InstancePages& pages);

// CPU time of the calling thread in ms: a frame's own work, not the time other threads (the
// tile loader, the far-field survey, a CPU Vulkan driver) held the cores while it was runnable.
double threadCpuMs();

}  // namespace eco::render
