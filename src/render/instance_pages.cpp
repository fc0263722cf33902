#include "render/instance_pages.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include <time.h>

namespace eco::render {

double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

namespace {

// A tail of `tail` records (1..127): its run of chunks, a power of two; kPageChunks is a whole
// storage page. Runs of a size share storage pages, so none straddles one.
uint32_t tailRun(uint64_t tail) { return std::bit_ceil(uint32_t((tail + kChunkRecords - 1) / kChunkRecords)); }
uint32_t runClass(uint32_t run) { return uint32_t(std::countr_zero(run)); }  // 1, 2, 4 -> 0, 1, 2

}  // namespace

uint64_t packedStoragePages(const std::vector<uint64_t>& tileInstances) {
  uint64_t whole = 0;
  std::array<uint64_t, kRunClasses> runs{};
  for (uint64_t n : tileInstances) {
    whole += n / gpu::PAGE_SIZE;
    if (n % gpu::PAGE_SIZE == 0) continue;
    const uint32_t run = tailRun(n % gpu::PAGE_SIZE);
    if (run == kPageChunks) {
      ++whole;
    } else {
      ++runs[runClass(run)];
    }
  }
  for (uint32_t c = 0; c < kRunClasses; ++c) {
    const uint64_t perPage = kPageChunks >> c;
    whole += (runs[c] + perPage - 1) / perPage;
  }
  return whole;
}

void addStorage(Context& ctx, InstancePages& p, uint32_t count) {
  // Allocated once, when added: streaming never allocates, and where the CPU writes the pages
  // they are touched now, so no frame pays the operating system's first-touch page faults.
  for (uint32_t added = 0; added < count;) {
    const uint32_t n = std::min(kBlockPages, count - added);
    p.blockStart.push_back(p.storagePages);
    p.blocks.push_back(createBuffer(
        ctx, kPageBytes * n,
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        p.staged ? MemoryUse::Gpu : MemoryUse::Upload));
    if (p.blocks.back().data) std::memset(p.blocks.back().data, 0, p.blocks.back().size);
    for (uint32_t i = 0; i < n; ++i) p.freeStorage.insert(p.storagePages + i);
    p.storagePages += n;
    added += n;
  }
  p.runsUsed.resize(p.storagePages, 0);
}

InstancePages createInstancePages(Context& ctx, uint32_t maxPages, uint32_t storagePages, size_t tiles, size_t farSlots,
                                  uint32_t speciesCount, uint64_t capacity, bool staged) {
  InstancePages p;
  p.maxPages = maxPages;
  p.staged = staged;
  p.capacity = capacity;
  p.speciesCount = speciesCount;
  p.speciesResident.assign(speciesCount, 0);
  p.worldTiles = tiles;
  const size_t slots = tiles + farSlots;
  p.tiles.resize(slots);
  p.resident.assign(slots, false);
  addStorage(ctx, p, storagePages);
  p.table.assign(maxPages, gpu::GpuPage{});
  p.storage.assign(maxPages, {0, 0});
  p.tileBoxes.assign(slots, gpu::GpuTile{});
  p.boxWritten.assign(slots, false);
  p.boxes = createBuffer(ctx, std::max<size_t>(slots, 1) * sizeof(gpu::GpuTile), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         MemoryUse::Upload);
  std::memset(p.boxes.data, 0, p.boxes.size);
  p.owner.resize(maxPages);
  for (uint32_t i = 0; i < maxPages; ++i) p.freePages.insert(i);
  return p;
}

void destroyInstancePages(Context& ctx, InstancePages& pages) {
  for (Buffer& b : pages.blocks) destroyBuffer(ctx, b);
  pages.blocks.clear();
  destroyBuffer(ctx, pages.boxes);
}

namespace {

uint32_t takeFirst(std::set<uint32_t>& set) {
  if (set.empty()) throw std::logic_error("instance page pool exhausted");
  const uint32_t v = *set.begin();
  set.erase(set.begin());
  return v;
}

// The lowest free run of `run` chunks (a new storage page split into such runs if none is
// free): its first chunk
uint32_t allocateRun(InstancePages& pages, uint32_t run) {
  if (run == kPageChunks) return takeFirst(pages.freeStorage) * kPageChunks;
  std::set<uint32_t>& free = pages.freeRuns[runClass(run)];
  if (free.empty()) {
    const uint32_t page = takeFirst(pages.freeStorage);
    for (uint32_t c = 0; c < kPageChunks; c += run) free.insert(page * kPageChunks + c);
  }
  const uint32_t chunk = takeFirst(free);
  ++pages.runsUsed[chunk / kPageChunks];
  return chunk;
}

void releaseRun(InstancePages& pages, uint32_t chunk, uint32_t run) {
  const uint32_t page = chunk / kPageChunks;
  if (run == kPageChunks) {
    pages.freeStorage.insert(page);
    return;
  }
  std::set<uint32_t>& free = pages.freeRuns[runClass(run)];
  free.insert(chunk);
  if (--pages.runsUsed[page] > 0) return;
  // the storage page's runs are all free: it goes back whole, for any size
  for (uint32_t c = 0; c < kPageChunks; c += run) free.erase(page * kPageChunks + c);
  pages.freeStorage.insert(page);
}

// Where a page's records are: block and byte offset in it
std::pair<uint32_t, VkDeviceSize> locate(const InstancePages& pages, uint32_t page) {
  const uint32_t chunk = pages.storage[page].first, storagePage = chunk / kPageChunks;
  const auto b = uint32_t(std::upper_bound(pages.blockStart.begin(), pages.blockStart.end(), storagePage) -
                          pages.blockStart.begin() - 1);
  return {b, VkDeviceSize(storagePage - pages.blockStart[b]) * kPageBytes +
                 VkDeviceSize(chunk % kPageChunks) * kChunkRecords * sizeof(gpu::PackedInstance)};
}

void releasePage(InstancePages& pages, uint32_t page) {
  releaseRun(pages, pages.storage[page].first, pages.storage[page].second);
  pages.storage[page] = {0, 0};
  pages.freePages.insert(page);
}

void commit(InstancePages& pages, PendingUpload& p) {
  InstancePages::TileSlot& slot = pages.tiles[p.tile.tile];
  // Species regions of the visible list are sized from the species the shader decodes
  // (ids were checked against the species table when the tile was read).
  slot.speciesCounts.assign(pages.speciesCount, 0);
  for (const gpu::PackedInstance& g : p.tile.instances) slot.speciesCounts[std::min(g.w >> 24, pages.speciesCount - 1)]++;
  for (size_t i = 0; i < p.pages.size(); ++i) {
    uint32_t page = p.pages[i];
    uint32_t first = uint32_t(i * gpu::PAGE_SIZE);
    uint32_t count = uint32_t(std::min<size_t>(gpu::PAGE_SIZE, p.tile.instances.size() - first));
    const auto [block, offset] = locate(pages, page);
    const VkDeviceAddress address = pages.blocks[block].address + offset;
    const uint32_t far = p.tile.tile >= pages.worldTiles ? gpu::PAGE_FAR_TREES : 0u;
    pages.table[page] = {{uint32_t(address), uint32_t(address >> 32), count, uint32_t(p.tile.tile) | far}};
    pages.owner[page] = {p.tile.tile, first};
    pages.pageCount = std::max(pages.pageCount, page + 1);
  }
  if (!pages.boxWritten[p.tile.tile]) {
    pages.tileBoxes[p.tile.tile] = p.tile.box;
    static_cast<gpu::GpuTile*>(pages.boxes.data)[p.tile.tile] = p.tile.box;
    pages.boxWritten[p.tile.tile] = true;
  } else if (std::memcmp(&pages.tileBoxes[p.tile.tile], &p.tile.box, sizeof(gpu::GpuTile)) != 0) {
    throw std::logic_error("tile " + std::to_string(p.tile.tile) + " loaded again with another box");
  }
  ++pages.tableVersion;
  slot.pages = std::move(p.pages);
  for (uint32_t k = 0; k < pages.speciesCount; ++k) pages.speciesResident[k] += slot.speciesCounts[k];
  pages.residentInstances += p.tile.instances.size();
  pages.resident[p.tile.tile] = true;
}

}  // namespace

bool startUpload(InstancePages& pages, LoadedTile& tile) {
  size_t n = tile.instances.size();
  // The streamer admits tiles within the budget by their verified counts, so passing it is a
  // bug, not input.
  uint64_t pendingInstances = 0;
  for (const PendingUpload& p : pages.pending) pendingInstances += p.tile.instances.size();
  if (pages.residentInstances + pendingInstances + n > pages.capacity)
    throw std::logic_error("tile " + std::to_string(tile.tile) + ": " + std::to_string(n) + " instances would exceed " +
                           "the budget (" + std::to_string(pages.residentInstances) + " resident, budget " +
                           std::to_string(pages.capacity) + ")");
  // Many small tiles can use up the pages (one dispatch row each) or their storage before the
  // budget
  const size_t whole = n / gpu::PAGE_SIZE, tail = n % gpu::PAGE_SIZE;
  const uint32_t run = tail ? tailRun(tail) : 0;
  const bool tailTakesPage = run == kPageChunks || (run > 0 && pages.freeRuns[runClass(run)].empty());
  if (whole + (tail ? 1 : 0) > pages.freePages.size() || whole + (tailTakesPage ? 1 : 0) > pages.freeStorage.size())
    return false;
  PendingUpload p;
  for (size_t first = 0; first < n; first += gpu::PAGE_SIZE) {
    const uint32_t page = takeFirst(pages.freePages);
    const uint32_t chunks = n - first >= gpu::PAGE_SIZE ? kPageChunks : run;
    pages.storage[page] = {allocateRun(pages, chunks), chunks};
    p.pages.push_back(page);
  }
  p.tile = std::move(tile);
  pages.pending.push_back(std::move(p));
  return true;
}

uint64_t writeRecords(InstancePages& pages, Streamer& streamer, const Buffer& staging, uint64_t budget,
                      double deadlineMs) {
  uint64_t written = 0, clockAt = 0;
  VkDeviceSize stagingUsed = 0;
  if (budget == 0) return 0;
  // `budget` bytes of records, whole pages at a time (at least one page per frame)
  while (!pages.pending.empty()) {
    PendingUpload& p = pages.pending.front();
    const size_t n = p.tile.instances.size();
    while (p.written < n) {
      size_t count = std::min<size_t>(gpu::PAGE_SIZE, n - p.written);
      VkDeviceSize bytes = VkDeviceSize(count) * sizeof(gpu::PackedInstance);
      if (written > 0 && written + bytes > budget) break;
      // the thread's CPU clock is a system call: read it every 16 KiB, not every 2 KiB page
      if (written >= clockAt) {
        if (written > 0 && threadCpuMs() > deadlineMs) break;
        clockAt = written + 16384;
      }
      const auto [block, offset] = locate(pages, p.pages[p.written / gpu::PAGE_SIZE]);
      const void* src = p.tile.instances.data() + p.written;
      if (pages.staged) {
        if (stagingUsed + bytes > staging.size) break;
        std::memcpy(static_cast<char*>(staging.data) + stagingUsed, src, bytes);
        pages.copies.push_back({VkBufferCopy{stagingUsed, offset, bytes}, block});
        stagingUsed += bytes;
      } else {
        // a free page: no frame in flight reads it (retirePages)
        std::memcpy(static_cast<char*>(pages.blocks[block].data) + offset, src, bytes);
      }
      p.written += count;
      written += bytes;
    }
    if (p.written < n) break;  // budget spent
    commit(pages, p);
    streamer.recycle(std::move(p.tile));
    pages.pending.pop_front();
  }
  return written;
}

void evictTile(InstancePages& pages, Streamer& streamer, size_t index, uint64_t frameIndex) {
  // still being uploaded: its pages were never in a table
  for (auto it = pages.pending.begin(); it != pages.pending.end(); ++it) {
    if (it->tile.tile != index) continue;
    for (uint32_t p : it->pages) pages.retiring.push_back({frameIndex, p});
    streamer.recycle(std::move(it->tile));
    pages.pending.erase(it);
    return;
  }
  InstancePages::TileSlot& slot = pages.tiles[index];
  for (uint32_t p : slot.pages) {
    pages.residentInstances -= pages.table[p].header.z;
    pages.table[p] = gpu::GpuPage{};
    pages.retiring.push_back({frameIndex, p});
  }
  ++pages.tableVersion;
  for (uint32_t k = 0; k < slot.speciesCounts.size(); ++k) pages.speciesResident[k] -= slot.speciesCounts[k];
  slot = InstancePages::TileSlot{};
  pages.resident[index] = false;
  while (pages.pageCount > 0 && pages.table[pages.pageCount - 1].header.z == 0) --pages.pageCount;
}

void retirePages(InstancePages& pages, uint64_t framesFinished) {
  // a page evicted while frame F was being prepared may be read by frames before F only
  std::erase_if(pages.retiring, [&](const std::pair<uint64_t, uint32_t>& r) {
    if (r.first > framesFinished) return false;
    releasePage(pages, r.second);
    return true;
  });
}

void recordRecordCopies(VkCommandBuffer cmd, InstancePages& pages, const Buffer& staging) {
  for (auto& [region, block] : pages.copies) vkCmdCopyBuffer(cmd, staging.buffer, pages.blocks[block].buffer, 1, &region);
  pages.copies.clear();
}

uint64_t blockBytes(const InstancePages& pages) {
  uint64_t bytes = 0;
  for (const Buffer& b : pages.blocks) bytes += b.size;
  return bytes;
}

}  // namespace eco::render
