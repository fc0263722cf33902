// Test support for the renderer suites: synthetic bake folders, the lavapipe default, and
// the GPU's visible list read back. Test-only, so it lives here rather than in ecorender.
#include "render_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/file_io.h"
#include "core/hash.h"
#include "render/renderer.h"
#include "render/vk_context.h"
#include "tileio/tileio.h"

namespace eco::render {

void writeSyntheticBake(const std::string& dir, const SyntheticOptions& options) {
  Scene world = makeSyntheticScene(options);
  Manifest m;
  m.name = "synthetic";
  m.seed = options.seed;
  float size = float(world.heights.width - 1) * world.cellSize;
  auto [lo, hi] = std::minmax_element(world.heights.values.begin(), world.heights.values.end());
  m.world = {size, size, *lo, *hi};
  m.terrain.width = world.heights.width;
  m.terrain.height = world.heights.height;
  m.terrain.cellSize = world.cellSize;
  m.tiling.tileSize = world.tileSize;
  for (const SceneTile& t : world.tiles) {
    m.tiling.tilesX = std::max(m.tiling.tilesX, t.x + 1);
    m.tiling.tilesZ = std::max(m.tiling.tilesZ, t.z + 1);
  }
  m.species = world.species;
  m.hashes = {hex64(options.seed), hex64(0), ""};
  for (size_t i = 0; i < world.tiles.size(); ++i) {
    const SceneTile& wt = world.tiles[i];
    TileData tile;
    tile.tileX = wt.x;
    tile.tileZ = wt.z;
    tile.tileSize = world.tileSize;
    tile.species = m.species;
    TileEntry e;
    e.x = wt.x;
    e.z = wt.z;
    e.speciesCounts.assign(m.species.size(), 0);
    tile.instances = syntheticTileInstances(world, options.seed, i);
    for (const Instance& inst : tile.instances) e.speciesCounts[inst.species]++;
    if (tile.instances.empty()) continue;
    std::vector<uint8_t> bytes = encodeTile(tile);
    e.file = "tiles/" + std::to_string(wt.x) + "_" + std::to_string(wt.z) + ".ecot";
    e.instances = tile.instances.size();
    e.bytes = bytes.size();
    e.checksum = checksum64(bytes);
    writeFileAtomic(dir + "/" + e.file, bytes.data(), bytes.size());
    m.tiles.push_back(e);
  }
  std::sort(m.tiles.begin(), m.tiles.end(), [](const TileEntry& a, const TileEntry& b) {
    return a.z != b.z ? a.z < b.z : a.x < b.x;
  });
  computeTotals(m);
  writeTerrainRaw(dir, world.heights);
  writeManifest(dir, m);
}

void preferLavapipe() {
  const char* lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
  if (!std::getenv("VK_ICD_FILENAMES") && !std::getenv("VK_DRIVER_FILES") && std::filesystem::exists(lvp))
    setenv("VK_ICD_FILENAMES", lvp, 1);
  if (!std::getenv("XDG_RUNTIME_DIR")) {
    static std::string dir;  // removed when the test process exits: a test run leaves nothing in /tmp
    dir = (std::filesystem::temp_directory_path() / ("ecoview-xdg-" + std::to_string(getpid()))).string();
    mkdir(dir.c_str(), 0700);
    setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    });
  }
}

std::vector<VisibleRef> RendererProbe::visibleInstances(Renderer& r) {
  r.drain();
  std::vector<VisibleRef> out;
  uint64_t used = 0;
  for (const gpu::DrawCommand& d : r.lastDraws_) used = std::max<uint64_t>(used, uint64_t(d.firstInstance) + d.instanceCount);
  if (used == 0) return out;
  Buffer copy = createBuffer(r.ctx_, used * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::Readback);
  VkCommandBuffer one = beginOneShot(r.ctx_);
  VkBufferCopy region{0, 0, used * 4};
  memoryBarrier(one, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                VK_ACCESS_2_TRANSFER_READ_BIT);
  vkCmdCopyBuffer(one, r.visible_.buffer, copy.buffer, 1, &region);
  memoryBarrier(one, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                VK_ACCESS_2_HOST_READ_BIT);
  endOneShot(r.ctx_, one);
  const auto* refs = static_cast<const uint32_t*>(copy.data);
  // the camera view's records (the shadow cascades' follow them)
  for (uint32_t d = 0; d < r.speciesCount_ * gpu::LOD_COUNT; ++d) {
    for (uint32_t i = 0; i < r.lastDraws_[d].instanceCount; ++i) {
      uint32_t ref = refs[r.lastDraws_[d].firstInstance + i];
      auto [tile, first] = r.pages_.owner[ref >> gpu::PAGE_SHIFT];
      out.push_back({tile, first + (ref & (gpu::PAGE_SIZE - 1)), d});
    }
  }
  destroyBuffer(r.ctx_, copy);
  return out;
}

}  // namespace eco::render
