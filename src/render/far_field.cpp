#include "render/far_field.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include <spdlog/spdlog.h>

#include "core/hash.h"
#include "core/rounding.h"
#include "render/camera.h"
#include "render/far_look.h"
#include "tileio/tileio.h"

namespace eco::render {

namespace {

constexpr float kPi = 3.14159265358979f;
// The stages that sample the layers: the terrain's vertices (the canopy) and fragments.
constexpr VkPipelineStageFlags2 kSampling = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
constexpr VkDeviceSize kStagingBytes = 1u << 20;  // per frame: ~190 tiles of 16x16 texels

}  // namespace

struct FarFieldSurvey {
  std::mutex mutex;
  std::condition_variable finished;
  std::deque<FarFieldBlock> ready;  // guarded by mutex
  std::vector<LoadedTile> farTrees;  // finished groups, guarded by mutex
  bool done = false;                // guarded by mutex
  FarFieldStats stats;              // guarded by mutex
  std::atomic<bool> stop{false};
  std::thread thread;
  ~FarFieldSurvey() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

FarFieldLayout farFieldLayout(const Scene& world) {
  FarFieldLayout l;
  if (world.tiles.empty() || !(world.tileSize > 0)) return l;
  uint32_t tilesX = 0, tilesZ = 0;
  for (const SceneTile& t : world.tiles) {
    tilesX = std::max(tilesX, uint32_t(std::max(t.x, 0)) + 1);
    tilesZ = std::max(tilesZ, uint32_t(std::max(t.z, 0)) + 1);
  }
  if (std::max(tilesX, tilesZ) > kFarFieldMaxSize) return l;  // over 2048 tiles a side: no far field
  // the power of two nearest (in ratio) to tileSize / kFarFieldTexel, then halved until it fits
  uint32_t n = 1u << uint32_t(std::clamp(std::lround(std::log2(world.tileSize / kFarFieldTexel)), 0l, 12l));
  while (n > 1 && std::max(tilesX, tilesZ) * n > kFarFieldMaxSize) n /= 2;
  l.texelsPerTile = n;
  l.texelSize = world.tileSize / float(n);
  l.width = tilesX * n;
  l.height = tilesZ * n;
  l.mips = 1;
  while ((n >> l.mips) > 0) ++l.mips;  // down to one texel per tile: levels stay tile-local
  return l;
}

std::pair<int, int> farTreeGroup(const SceneTile& tile) {
  return {std::max(tile.x, 0) / kFarTreeGroup, std::max(tile.z, 0) / kFarTreeGroup};
}

size_t farTreeGroupCount(const std::vector<SceneTile>& tiles) {
  std::set<std::pair<int, int>> groups;
  for (const SceneTile& t : tiles) groups.insert(farTreeGroup(t));
  return groups.size();
}

// Reads one tile and returns its block: per kind and texel the crown-area-weighted mean tint
// (rgb, straight: 8-bit premultiplied colour would keep a handful of levels under the thin cover
// of grass) and the share of the crown area in the kind's second look (a: conifer trees), and
// in FAR_COVER_LAYER every kind's crown area over the texel's area (over FAR_COVER_MAX of the
// kind). Mips are crown-area-weighted averages computed here; texels without plants of the kind
// take the tile's mean tint and share of it (else `fallback` and 0), so filtering toward them
// keeps the colour and the look.
FarFieldBlock surveyTile(const SceneTile& tile, const std::vector<Instance>& instances,
                         const std::vector<SpeciesRecord>& species, const FarFieldLayout& l,
                         const std::array<std::array<float, 3>, gpu::FAR_LAYERS>& fallback,
                         std::vector<double>& crownArea, std::vector<Instance>* farTrees,
                         const std::vector<float>& tintWeight) {
  const uint32_t n = l.texelsPerTile;
  const uint32_t L = gpu::FAR_LAYERS;
  static_assert(gpu::FAR_LAYERS == 4, "FAR_COVER_LAYER holds one kind per channel of an RGBA texel");
  // level 0 accumulators per (kind, texel): crown area, seen area * r, g, b (0..255), the area of
  // the kind's second look (far_look.h farLookOf: conifer trees), seen area (crown area x the
  // species' tint weight)
  constexpr size_t kSums = 6;
  std::vector<float> level(size_t(L) * n * n * kSums, 0.0f);
  const int x0 = tile.x * int(n), z0 = tile.z * int(n);
  auto texelOf = [&](const Instance& p) {
    int ix = std::clamp(int(std::floor(p.position.x / l.texelSize)) - x0, 0, int(n) - 1);
    int iz = std::clamp(int(std::floor(p.position.z / l.texelSize)) - z0, 0, int(n) - 1);
    return std::pair{ix, iz};
  };
  auto crown = [&](const Instance& p) {
    const float r = species[p.species].crownRadius * p.scale;
    return kPi * r * r;
  };
  // Far trees: the trees whose 3 x 3 texels (within the tile) hold little crown area
  std::vector<bool> far(instances.size(), false);
  if (farTrees) {
    std::vector<float> trees(size_t(n) * n, 0.0f);
    for (const Instance& p : instances)
      if (p.species < species.size() && species[p.species].kind == uint32_t(SpeciesKind::Tree)) {
        auto [ix, iz] = texelOf(p);
        trees[size_t(iz) * n + size_t(ix)] += crown(p);
      }
    for (size_t i = 0; i < instances.size(); ++i) {
      const Instance& p = instances[i];
      if (p.species >= species.size() || species[p.species].kind != uint32_t(SpeciesKind::Tree)) continue;
      auto [ix, iz] = texelOf(p);
      float area = 0;
      int texels = 0;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dx = -1; dx <= 1; ++dx) {
          const int x = ix + dx, z = iz + dz;
          if (x < 0 || z < 0 || x >= int(n) || z >= int(n)) continue;
          area += trees[size_t(z) * n + size_t(x)];
          ++texels;
        }
      far[i] = area < kFarTreeDensity * float(texels) * l.texelSize * l.texelSize;
    }
  }
  for (size_t i = 0; i < instances.size(); ++i) {
    const Instance& p = instances[i];
    if (p.species >= species.size()) continue;  // the loaders verify this; stay in bounds anyway
    const SpeciesRecord& s = species[p.species];
    uint32_t kind = std::min<uint32_t>(s.kind, L - 1);
    const float area = crown(p);
    crownArea[p.species] += double(area);
    // a far tree stays in the layer too: the cull pass draws it only where the sky is behind
    // it, the layer everywhere else (render/far_field.h)
    if (far[i]) farTrees->push_back(p);
    // The crown's area goes to the texels it covers, not its centre's alone: a crown wider than
    // a texel (a beech's 11 m over 8 m texels) put a closed canopy's area in every other texel,
    // and the transmittance-keeping mips then took the empty ones for gaps (the far field hid
    // 0.77-0.82 of the ground the drawn stands hide). A square of the crown's area about its
    // centre, clipped to the tile (texels never straddle tiles), its area kept.
    const float seen = area * (p.species < tintWeight.size() ? tintWeight[p.species] : 1.0f);
    const float sums[kSums] = {area, seen * float(p.color & 0xff), seen * float((p.color >> 8) & 0xff),
                               seen * float((p.color >> 16) & 0xff), farLookOf(s) != kind ? area : 0.0f, seen};
    const float half = 0.5f * std::sqrt(area) / l.texelSize;
    const float cx = p.position.x / l.texelSize - float(x0), cz = p.position.z / l.texelSize - float(z0);
    const float ax = std::clamp(cx - half, 0.0f, float(n)), bx = std::clamp(cx + half, 0.0f, float(n));
    const float az = std::clamp(cz - half, 0.0f, float(n)), bz = std::clamp(cz + half, 0.0f, float(n));
    const float kept = (bx - ax) * (bz - az);
    if (!(kept > 0.0f)) {  // outside its tile (the loaders keep instances in; stay safe) or no area
      auto [ix, iz] = texelOf(p);
      float* a = &level[((size_t(kind) * n + size_t(iz)) * n + size_t(ix)) * kSums];
      for (size_t c = 0; c < kSums; ++c) a[c] += sums[c];
      continue;
    }
    for (int iz = std::min(int(az), int(n) - 1); iz < std::min(int(std::ceil(bz)), int(n)); ++iz) {
      const float wz = std::min(bz, float(iz + 1)) - std::max(az, float(iz));
      for (int ix = std::min(int(ax), int(n) - 1); ix < std::min(int(std::ceil(bx)), int(n)); ++ix) {
        const float wx = std::min(bx, float(ix + 1)) - std::max(ax, float(ix));
        if (!(wx > 0.0f) || !(wz > 0.0f)) continue;
        float* a = &level[((size_t(kind) * n + size_t(iz)) * n + size_t(ix)) * kSums];
        for (size_t c = 0; c < kSums; ++c) a[c] += sums[c] * (wx * wz / kept);
      }
    }
  }
  // the tile's mean tint and second-look share per kind: those of its empty texels
  std::array<std::array<float, 4>, gpu::FAR_LAYERS> fill{};
  for (uint32_t k = 0; k < L; ++k) {
    for (size_t c = 0; c < 3; ++c) fill[k][c] = fallback[k][c];
    double sum[kSums] = {};
    for (size_t t = 0; t < size_t(n) * n; ++t)
      for (size_t c = 0; c < kSums; ++c) sum[c] += double(level[(size_t(k) * n * n + t) * kSums + c]);
    if (sum[0] > 0 && sum[5] > 0) {
      for (size_t c = 0; c < 3; ++c) fill[k][c] = float(sum[c + 1] / sum[5]) / 255.0f;
      fill[k][3] = float(sum[4] / sum[0]);
    }
  }
  const float coverMax[4] = {FAR_COVER_MAX};
  const float texelArea = l.texelSize * l.texelSize;
  // The shader turns density into cover through 1 - exp(-a A s), which is concave: a mip that
  // averaged the density would cover more than the texels it stands for (a stand's gaps filled
  // in, a clearing's edge spread: 0.40 against 0.30 of the frame drawn with every instance, top
  // down at 3.5 km). Tree and shrub mips keep the mean transmittance exp(-a c) instead, at a
  // typical optical factor c = A s (0.4 seen from above to 1 from the side for the shipped
  // crowns). Grass and ground cover keep the mean density: their cover is thin (nearly linear)
  // and the ground's albedo reads it as how much grows there.
  constexpr float kOptical = 0.7f;
  std::vector<float> transmittance(size_t(L) * n * n);
  for (size_t i = 0; i < transmittance.size(); ++i) transmittance[i] = std::exp(-kOptical * level[i * kSums] / texelArea);
  FarFieldBlock block;
  block.x0 = uint32_t(x0);
  block.z0 = uint32_t(z0);
  for (uint32_t m = 0, size = n; m < l.mips; ++m, size /= 2) {
    if (m > 0) {  // 2 x 2 sums of the previous level (area and area-weighted colour add up)
      std::vector<float> next(size_t(L) * size * size * kSums);
      uint32_t prev = size * 2;
      for (uint32_t k = 0; k < L; ++k)
        for (uint32_t z = 0; z < size; ++z)
          for (uint32_t x = 0; x < size; ++x)
            for (uint32_t c = 0; c < kSums; ++c) {
              auto at = [&](uint32_t px, uint32_t pz) { return level[((size_t(k) * prev + pz) * prev + px) * kSums + c]; };
              next[((size_t(k) * size + z) * size + x) * kSums + c] =
                  at(2 * x, 2 * z) + at(2 * x + 1, 2 * z) + at(2 * x, 2 * z + 1) + at(2 * x + 1, 2 * z + 1);
            }
      level.swap(next);
      std::vector<float> thinner(size_t(L) * size * size);
      for (uint32_t k = 0; k < L; ++k)
        for (uint32_t z = 0; z < size; ++z)
          for (uint32_t x = 0; x < size; ++x) {
            auto at = [&](uint32_t px, uint32_t pz) { return transmittance[(size_t(k) * prev + pz) * prev + px]; };
            thinner[(size_t(k) * size + z) * size + x] =
                0.25f * (at(2 * x, 2 * z) + at(2 * x + 1, 2 * z) + at(2 * x, 2 * z + 1) + at(2 * x + 1, 2 * z + 1));
          }
      transmittance.swap(thinner);
    }
    const float area = texelArea * float(1u << m) * float(1u << m);  // of one texel at this level
    for (uint32_t k = 0; k < L; ++k)
      for (size_t t = 0; t < size_t(size) * size; ++t) {
        const float* a = &level[(size_t(k) * size * size + t) * kSums];
        for (uint32_t c = 0; c < 3; ++c) block.texels.push_back(unorm8(a[5] > 0 ? a[c + 1] / (255.0f * a[5]) : fill[k][c]));
        block.texels.push_back(unorm8(a[0] > 0 ? a[4] / a[0] : fill[k][3]));
      }
    // FAR_COVER_LAYER: the kinds' densities side by side; level 0: the density itself; coarser:
    // the density of the mean transmittance
    for (size_t t = 0; t < size_t(size) * size; ++t)
      for (uint32_t k = 0; k < L; ++k) {
        const float density = m == 0 || k >= uint32_t(SpeciesKind::Grass) ? level[(size_t(k) * size * size + t) * kSums] / area
                              : -std::log(std::max(transmittance[size_t(k) * size * size + t], 1e-30f)) / kOptical;
        block.texels.push_back(unorm8(density / coverMax[k]));
      }
  }
  return block;
}

namespace {

void runSurvey(FarFieldSurvey& survey, std::vector<SceneTile> tiles, std::vector<SpeciesRecord> species,
               std::function<std::vector<Instance>(size_t)> placed, FarFieldLayout layout, uint64_t farTreeBudget,
               std::vector<float> tintWeight) {
  // a kind's colour where a tile has none of it: the mean of its species' base colours
  std::array<std::array<float, 3>, gpu::FAR_LAYERS> fallback{};
  std::array<float, gpu::FAR_LAYERS> members{};
  for (const SpeciesRecord& s : species) {
    const uint32_t k = std::min<uint32_t>(s.kind, gpu::FAR_LAYERS - 1);
    for (uint32_t c = 0; c < 3; ++c) fallback[k][c] += float((s.baseColor >> (8 * c)) & 0xff) / 255.0f;
    members[k] += 1;
  }
  for (uint32_t k = 0; k < gpu::FAR_LAYERS; ++k)
    for (float& c : fallback[k]) c /= std::max(members[k], 1.0f);
  auto t0 = std::chrono::steady_clock::now();
  FarFieldStats stats;
  stats.crownArea.assign(species.size(), 0.0);
  // Far trees: past the budget, the world's far trees are thinned evenly, not taken in tile
  // order (which would leave the tips of a large world's later rows bald): each has a key from
  // its tile and its place there, and the budget's smallest keys are kept (a max-heap of them).
  struct Candidate {
    uint64_t key;
    size_t tile, index;
    Instance tree;
    bool operator<(const Candidate& o) const { return key < o.key; }
  };
  std::vector<Candidate> kept;  // a heap while the survey runs
  for (size_t i = 0; i < tiles.size() && !survey.stop; ++i) {
    std::vector<Instance> instances, far;
    std::optional<FarFieldBlock> block;
    try {
      instances = placed(i);
      block = surveyTile(tiles[i], instances, species, layout, fallback, stats.crownArea,
                         farTreeBudget > 0 ? &far : nullptr, tintWeight);
      for (size_t j = 0; j < far.size(); ++j) {
        const Candidate c{mix64((uint64_t(i) << 32) ^ j), i, j, far[j]};
        if (kept.size() < farTreeBudget) {
          kept.push_back(c);
          std::push_heap(kept.begin(), kept.end());
        } else if (c < kept.front()) {
          std::pop_heap(kept.begin(), kept.end());
          kept.back() = c;
          std::push_heap(kept.begin(), kept.end());
        }
      }
      stats.instances += instances.size();
      ++stats.tiles;
    } catch (const std::exception& e) {
      spdlog::warn("far field: tile {},{} skipped: {}", tiles[i].x, tiles[i].z, e.what());
      ++stats.failed;
    }
    std::lock_guard lock(survey.mutex);
    if (block) survey.ready.push_back(std::move(*block));
    survey.stats.tiles = stats.tiles;
    survey.stats.instances = stats.instances;
    survey.stats.failed = stats.failed;
    survey.stats.crownArea = stats.crownArea;
  }
  // The kept far trees by groups of kFarTreeGroup x kFarTreeGroup tiles (a tile's few on pages
  // of their own would leave most of each page empty, and the cull pass pays per page), a page
  // at a time, each in a slot of its own (tiles.size() + pages so far) quantized over its trees'
  // box: they come tile by tile, so a page's box is a tile or two, and the cull pass skips a page
  // whose box has no sky behind it. Groups are numbered in the order their first tile comes, so
  // there are never more than tiles (a manifest's tiles may lie anywhere on a grid of two billion
  // a side).
  std::map<std::pair<int, int>, size_t> groupIndex;
  std::vector<size_t> groupOfTile(tiles.size());
  for (size_t i = 0; i < tiles.size(); ++i)
    groupOfTile[i] = groupIndex.try_emplace(farTreeGroup(tiles[i]), groupIndex.size()).first->second;
  std::sort(kept.begin(), kept.end(), [&](const Candidate& a, const Candidate& b) {
    return std::tuple(groupOfTile[a.tile], a.tile, a.index) < std::tuple(groupOfTile[b.tile], b.tile, b.index);
  });
  std::vector<LoadedTile> trees;
  for (size_t first = 0; first < kept.size() && !survey.stop;) {
    size_t end = first + 1;  // a page: at most PAGE_SIZE trees of one group
    while (end < kept.size() && end - first < gpu::PAGE_SIZE &&
           groupOfTile[kept[end].tile] == groupOfTile[kept[first].tile])
      ++end;
    std::vector<Instance> page;
    Vec3 lo = kept[first].tree.position, hi = lo;
    for (size_t k = first; k < end; ++k) {
      const Vec3 p = kept[k].tree.position;
      lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
      hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
      page.push_back(kept[k].tree);
    }
    trees.push_back(makeLoadedTile(tiles.size() + trees.size(), page, species, lo, hi));
    first = end;
  }
  stats.farTrees = kept.size();
  {
    std::lock_guard lock(survey.mutex);
    survey.farTrees = std::move(trees);
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!survey.stop)
    spdlog::info("far field: surveyed {} tiles ({} instances, {} far trees, {} skipped) in {:.2f} s", stats.tiles,
                 stats.instances, stats.farTrees, stats.failed, stats.seconds);
  std::lock_guard lock(survey.mutex);
  survey.stats = stats;
  survey.done = true;
  survey.finished.notify_all();
}

// IEEE 754 binary16, rounded to nearest (the table's values are small and finite).
uint16_t halfFloat(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const int exponent = int((b >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = b & 0x7fffffu;
  if (exponent <= 0) return uint16_t(sign);  // below 6e-5: zero
  if (exponent >= 31) return uint16_t(sign | 0x7bffu);  // clamp to the largest finite value
  uint32_t h = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  if ((mantissa & 0x1fffu) > 0x1000u || ((mantissa & 0x1fffu) == 0x1000u && (h & 1u))) ++h;
  return uint16_t(h);
}

GpuImage uploadFarLook(Context& ctx, const std::vector<FarLookEntry>& table) {
  constexpr uint32_t A = gpu::FAR_LOOK_AZIMUTHS, E = gpu::FAR_LOOK_ELEVATIONS;
  constexpr uint32_t layers = gpu::FAR_LOOK_LAYERS * gpu::FAR_LOOKS;
  GpuImage image = createImage(ctx, A, E, 1, VK_FORMAT_R16G16B16A16_SFLOAT,
                               VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, layers);
  std::vector<uint16_t> texels(size_t(layers) * E * A * 4);
  for (uint32_t k = 0; k < gpu::FAR_LOOKS; ++k)
    for (uint32_t d = 0; d < E * A; ++d) {
      const FarLookEntry& e = table[size_t(k) * E * A + d];
      const float values[gpu::FAR_LOOK_LAYERS][4] = {{e.area, e.foliage, e.barkSun, e.barkUp},
                                                     {e.lit, e.litSun, e.litUp, std::sqrt(std::max(e.litSunSq - e.litSun * e.litSun, 0.0f))},
                                                     {e.shadeBack, e.shadeUp, 0, 0}};
      for (uint32_t l = 0; l < gpu::FAR_LOOK_LAYERS; ++l)
        for (uint32_t c = 0; c < 4; ++c)
          texels[((size_t(gpu::FAR_LOOK_LAYERS * k + l) * E * A) + d) * 4 + c] = halfFloat(values[l][c]);
    }
  uploadImage(ctx, image, texels.data(), texels.size() * 2, A, E, layers);
  return image;
}

}  // namespace

FarField createFarField(Context& ctx, const Scene& world, const MeshSet& meshes, uint64_t farTrees) {
  FarField f;
  f.layout = farFieldLayout(world);
  const FarFieldLayout& l = f.layout;
  uint32_t w = std::max(1u, l.width), h = std::max(1u, l.height);
  f.extentX = l.texelsPerTile ? float(l.width) * l.texelSize : 1.0f;
  f.extentZ = l.texelsPerTile ? float(l.height) * l.texelSize : 1.0f;
  if (!l.texelsPerTile && !world.tiles.empty())
    spdlog::warn("far field off: {} tiles of {} m do not fit a {}-texel image", world.tiles.size(), world.tileSize,
                 kFarFieldMaxSize);
  f.image = createImage(ctx, w, h, l.mips, VK_FORMAT_R8G8B8A8_UNORM,
                        VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, gpu::FAR_IMAGE_LAYERS);
  VkSamplerCreateInfo si{.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = si.minFilter = VK_FILTER_LINEAR;
  si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;  // far away, a texel is far below a pixel
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  si.maxLod = float(l.mips - 1);
  ECO_VK(vkCreateSampler(ctx.device, &si, nullptr, &f.sampler));
  VkCommandBuffer one = beginOneShot(ctx);
  imageBarrier(one, f.image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  VkClearColorValue zero{};
  VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS};
  vkCmdClearColorImage(one, f.image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &all);
  imageBarrier(one, f.image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_CLEAR_BIT,
               VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               kSampling, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  endOneShot(ctx, one);
  std::vector<float> sideArea;  // per species: the survey's tint weights
  {
    const auto t0 = std::chrono::steady_clock::now();
    f.look = uploadFarLook(ctx, farLookTable(meshes, world.species, world.speciesInstances, world.sunElevationDeg, &sideArea));
    spdlog::info("far field: look table of {} species in {:.3f} s", world.species.size(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  {
    double height[gpu::KIND_COUNT] = {}, crown[gpu::KIND_COUNT] = {}, count[gpu::KIND_COUNT] = {};
    for (size_t s = 0; s < world.species.size(); ++s) {
      const SpeciesRecord& r = world.species[s];
      const uint32_t k = std::min<uint32_t>(r.kind, gpu::KIND_COUNT - 1);
      const double n = world.speciesInstances.empty() ? 1.0 : s < world.speciesInstances.size() ? double(world.speciesInstances[s]) : 0.0;
      const double scale = 0.5 * (double(r.scaleMin) + double(r.scaleMax));
      height[k] += n * double(r.meshHeight) * scale;
      crown[k] += n * double(r.crownRadius) * scale;
      count[k] += n;
    }
    for (uint32_t k = 0; k < 2; ++k) {
      f.canopy[k] = count[k] > 0 ? float(0.9 * height[k] / count[k]) : 0.0f;
      f.crownSize[k] = count[k] > 0 ? float(crown[k] / count[k]) : 0.0f;
    }
  }
  if (l.texelsPerTile && world.placedInstances) {
    // staging slots allocated and touched now: no frame pays their first-touch page faults
    for (Buffer& b : f.staging) {
      b = createBuffer(ctx, kStagingBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::Upload);
      std::memset(b.data, 0, b.size);
    }
    f.survey = std::make_shared<FarFieldSurvey>();
    f.survey->thread =
        std::thread(runSurvey, std::ref(*f.survey), world.tiles, world.species, world.placedInstances, l, farTrees, sideArea);
  }
  return f;
}

void destroyFarField(Context& ctx, FarField& f) {
  f.survey.reset();  // stops and joins the thread
  for (Buffer& b : f.staging) destroyBuffer(ctx, b);
  if (f.sampler) vkDestroySampler(ctx.device, f.sampler, nullptr);
  destroyImage(ctx, f.image);
  destroyImage(ctx, f.look);
  f = FarField{};
}

uint64_t updateFarField(Context& ctx, FarField& f, VkCommandBuffer cmd, uint64_t maxBytes) {
  if (!f.survey) return 0;
  const FarFieldLayout& l = f.layout;
  std::vector<FarFieldBlock> blocks;
  Buffer& staging = f.staging[f.nextSlot];
  {
    std::lock_guard lock(f.survey->mutex);
    VkDeviceSize bytes = 0, capacity = std::min<VkDeviceSize>(std::max(staging.size, kStagingBytes), maxBytes);
    while (!f.survey->ready.empty() && bytes + f.survey->ready.front().texels.size() <= capacity) {
      bytes += f.survey->ready.front().texels.size();
      blocks.push_back(std::move(f.survey->ready.front()));
      f.survey->ready.pop_front();
    }
    if (blocks.empty() && !f.survey->ready.empty()) {  // one block larger than the slot: take it alone
      blocks.push_back(std::move(f.survey->ready.front()));
      f.survey->ready.pop_front();
    }
  }
  if (blocks.empty()) return 0;
  VkDeviceSize total = 0;
  for (const FarFieldBlock& b : blocks) total += b.texels.size();
  if (staging.size < total || !staging.buffer) {
    // this slot was last read by a frame that has been waited for (see FarField::staging)
    destroyBuffer(ctx, staging);
    staging = createBuffer(ctx, std::max(total, kStagingBytes), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::Upload);
    std::memset(staging.data, 0, staging.size);
  }
  f.nextSlot = (f.nextSlot + 1) % kFramesInFlight;

  std::vector<VkBufferImageCopy> regions;
  VkDeviceSize offset = 0;
  for (const FarFieldBlock& b : blocks) {
    std::memcpy(static_cast<uint8_t*>(staging.data) + offset, b.texels.data(), b.texels.size());
    for (uint32_t m = 0, size = l.texelsPerTile; m < l.mips; ++m, size /= 2) {
      VkBufferImageCopy r{};
      r.bufferOffset = offset;
      r.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, m, 0, gpu::FAR_IMAGE_LAYERS};
      r.imageOffset = {int32_t(b.x0 >> m), int32_t(b.z0 >> m), 0};
      r.imageExtent = {size, size, 1};
      regions.push_back(r);
      offset += VkDeviceSize(size) * size * 4 * gpu::FAR_IMAGE_LAYERS;
    }
  }
  // Write-after-read: earlier submissions on this queue sample the image in their terrain
  // pass; an execution dependency on the stages that sample it orders the transition and copy after them.
  imageBarrier(cmd, f.image.image, VK_IMAGE_ASPECT_COLOR_BIT, kSampling, 0,
               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  vkCmdCopyBufferToImage(cmd, staging.buffer, f.image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         uint32_t(regions.size()), regions.data());
  imageBarrier(cmd, f.image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
               VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               kSampling, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  f.anyUploaded = true;
  return total;
}

void finishFarField(Context& ctx, FarField& f) {
  if (!f.survey) return;
  {
    std::unique_lock lock(f.survey->mutex);
    f.survey->finished.wait(lock, [&] { return f.survey->done; });
  }
  for (;;) {
    {
      std::lock_guard lock(f.survey->mutex);
      if (f.survey->ready.empty()) return;
    }
    VkCommandBuffer one = beginOneShot(ctx);  // waits for the queue: staging slots are free again
    updateFarField(ctx, f, one);
    endOneShot(ctx, one);
  }
}

std::vector<LoadedTile> takeFarTrees(FarField& f) {
  if (!f.survey) return {};
  std::lock_guard lock(f.survey->mutex);
  if (!f.survey->done) return {};  // all at once: their storage is sized for all of them
  return std::exchange(f.survey->farTrees, {});
}

uint64_t farFieldBytes(const FarField& f) {
  uint64_t layers = 0;
  for (uint32_t m = 0, w = std::max(1u, f.layout.width), h = std::max(1u, f.layout.height); m < f.layout.mips;
       ++m, w = std::max(1u, w / 2), h = std::max(1u, h / 2))
    layers += uint64_t(w) * h * 4 * gpu::FAR_IMAGE_LAYERS;
  const uint64_t look = uint64_t(gpu::FAR_LOOK_AZIMUTHS) * gpu::FAR_LOOK_ELEVATIONS * 8 * gpu::FAR_LOOK_LAYERS * gpu::FAR_LOOKS;
  return layers + (f.look.image ? look : 0);
}

FarFieldStats farFieldStats(const FarField& f) {
  if (!f.survey) return {};
  std::lock_guard lock(f.survey->mutex);
  return f.survey->stats;
}

void prepareFarFieldFrame(const FarField& f, const CullSettings& cull, gpu::FrameData& frame) {
  bool on = cull.fade && cull.farField && f.anyUploaded;
  frame.farField = {1.0f / f.extentX, 1.0f / f.extentZ, on ? 1.0f : 0.0f, f.anyUploaded ? 1.0f : 0.0f};
  frame.canopy = {f.canopy[0], f.canopy[1], f.canopy[2], f.canopy[3]};
  frame.crownSize = {f.crownSize[0], f.crownSize[1], f.crownSize[2], f.crownSize[3]};
}

}  // namespace eco::render
