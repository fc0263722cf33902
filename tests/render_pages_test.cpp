// Instance pages with packed tails (render/instance_pages.h): a tile's whole 128-record pieces
// take a storage page each and its tail a run of 16, 32 or 64 records shared with other tails.
// What the GPU reads is checked through the addresses the page table gives the shader, not
// through the allocator's own bookkeeping: every resident page's records are the tile's, no two
// pages' bytes overlap, and the pool holds a world in exactly packedStoragePages of storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "render/instance_pages.h"
#include "render/streamer.h"
#include "render_support.h"
#include "test_support.h"

using namespace eco;
using namespace eco::render;

namespace {

struct RenderPages : fixtures::ValidatedContext {};

// A tile of n records whose bytes say which tile and record they are
LoadedTile numberedTile(size_t tile, size_t n) {
  LoadedTile t;
  t.tile = tile;
  t.instances.resize(n);
  for (size_t i = 0; i < n; ++i) t.instances[i] = {uint32_t(tile), uint32_t(i), 0xabcd0000u | uint32_t(n & 0xffff), 0};
  return t;
}

// Upload everything queued (direct writes: lavapipe's memory is host-visible)
void writeAll(InstancePages& pages, Streamer& streamer) {
  while (!pages.pending.empty()) writeRecords(pages, streamer, Buffer{}, UINT64_MAX, 1e300);
}

// Each committed page against the records it should hold, read at the address the shader
// reads (the blocks' mapped memory found by device address), and no two pages' byte ranges
// overlapping; returns the storage bytes the pages span.
void expectPagesHoldTheirTiles(const InstancePages& pages, const std::map<size_t, size_t>& residentSizes) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [begin, end) device addresses
  std::map<size_t, size_t> seen;                       // tile: records found
  for (uint32_t p = 0; p < pages.pageCount; ++p) {
    const gpu::GpuPage& e = pages.table[p];
    if (e.header.z == 0) continue;
    const uint64_t address = uint64_t(e.header.x) | (uint64_t(e.header.y) << 32);
    const uint64_t bytes = uint64_t(e.header.z) * sizeof(gpu::PackedInstance);
    const Buffer* block = nullptr;
    for (const Buffer& b : pages.blocks)
      if (address >= b.address && address + bytes <= b.address + b.size) block = &b;
    ASSERT_NE(block, nullptr) << "page " << p << " points outside every block";
    ASSERT_NE(block->data, nullptr);
    const auto* records =
        reinterpret_cast<const gpu::PackedInstance*>(static_cast<const char*>(block->data) + (address - block->address));
    const size_t tile = e.header.w;
    for (uint32_t i = 0; i < e.header.z; ++i) {
      ASSERT_EQ(records[i].x, tile) << "page " << p << " record " << i;
      ASSERT_EQ(records[i].y, pages.owner[p].second + i) << "page " << p << " record " << i;
    }
    seen[tile] += e.header.z;
    ranges.push_back({address, address + bytes});
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) ASSERT_LE(ranges[i - 1].second, ranges[i].first) << "pages overlap";
  EXPECT_EQ(seen, residentSizes);
}

uint64_t storageInUse(const InstancePages& pages) { return pages.storagePages - pages.freeStorage.size(); }

}  // namespace

// Tiles of every tail length, admitted in a shuffled order into exactly the storage packing
// says they take: all fit, and one storage page less turns one away. Whole pages cost 128
// records, tails at most twice their length rounded to 16.
TEST_F(RenderPages, TailsShareStoragePagesAndTheWorldFitsItsPackedCount) {
  std::vector<uint64_t> sizes;
  for (uint64_t n = 1; n <= 3 * gpu::PAGE_SIZE; ++n) sizes.push_back(n);
  // the storage by hand: whole pieces, then tails in runs of 1, 2, 4 chunks of 16 (8, 4, 2 to
  // a storage page) or a page
  uint64_t whole = 0, runs[3] = {0, 0, 0};
  for (uint64_t n : sizes) {
    whole += n / 128;
    const uint64_t tail = n % 128;
    if (tail == 0) continue;
    if (tail <= 16) ++runs[0];
    else if (tail <= 32) ++runs[1];
    else if (tail <= 64) ++runs[2];
    else ++whole;
  }
  const uint64_t expected = whole + (runs[0] + 7) / 8 + (runs[1] + 3) / 4 + (runs[2] + 1) / 2;
  ASSERT_EQ(packedStoragePages(sizes), expected);

  SyntheticOptions so = fixtures::smallWorld(1000);
  Scene world = makeSyntheticScene(so);
  Streamer streamer(world, StreamSettings{});
  std::vector<size_t> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  for (uint64_t spare : {uint64_t(0), uint64_t(1)}) {
    const auto storage = uint32_t(expected - 1 + spare);
    InstancePages pages = createInstancePages(ctx, 4 * uint32_t(sizes.size()), storage, sizes.size(), 0, 1, 1u << 30, false);
    size_t refused = 0;
    std::map<size_t, size_t> resident;
    for (size_t i : order) {
      LoadedTile t = numberedTile(i, sizes[i]);
      if (startUpload(pages, t)) {
        resident[i] = sizes[i];
      } else {
        ++refused;
      }
    }
    writeAll(pages, streamer);
    if (spare) {
      EXPECT_EQ(refused, 0u);
      EXPECT_EQ(storageInUse(pages), expected);
    } else {
      EXPECT_GE(refused, 1u) << "one storage page less must turn a tile away";
    }
    expectPagesHoldTheirTiles(pages, resident);
    destroyInstancePages(ctx, pages);
  }
}

// Streaming churn: tiles come and go (evicted, retired after the frames in flight, loaded
// again) over a pool with room for the budget; records stay where their pages say, no storage
// is shared by two pages, and when everything has gone every storage page is free again.
TEST_F(RenderPages, EvictionsFreeTheirRunsAndNothingLeaks) {
  SyntheticOptions so = fixtures::smallWorld(1000);
  Scene world = makeSyntheticScene(so);
  Streamer streamer(world, StreamSettings{});
  const size_t tiles = 64;
  std::mt19937 rng(11);
  std::vector<size_t> sizes(tiles);
  for (size_t& n : sizes) n = 1 + rng() % 400;
  InstancePages pages = createInstancePages(ctx, 2000, 300, tiles, 0, 1, 1u << 30, false);
  std::map<size_t, size_t> resident;
  uint64_t frame = 0;
  for (int step = 0; step < 400; ++step, ++frame) {
    const size_t t = rng() % tiles;
    if (resident.count(t)) {
      evictTile(pages, streamer, t, frame);
      resident.erase(t);
    } else {
      LoadedTile tile = numberedTile(t, sizes[t]);
      if (startUpload(pages, tile)) resident[t] = sizes[t];
    }
    retirePages(pages, frame >= 2 ? frame - 2 : 0);  // two frames in flight
    writeAll(pages, streamer);
    if (step % 20 == 0) expectPagesHoldTheirTiles(pages, resident);
  }
  expectPagesHoldTheirTiles(pages, resident);
  for (auto it = resident.begin(); it != resident.end(); it = resident.erase(it)) evictTile(pages, streamer, it->first, frame);
  retirePages(pages, frame);
  EXPECT_EQ(pages.freeStorage.size(), pages.storagePages);
  for (const auto& runs : pages.freeRuns) EXPECT_TRUE(runs.empty());
  EXPECT_EQ(pages.freePages.size(), pages.maxPages);
  EXPECT_EQ(pages.residentInstances, 0u);
  destroyInstancePages(ctx, pages);
}
