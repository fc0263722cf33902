#include "sampling/bridson.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/hash.h"
#include "sampling/directions.h"
#include "sampling/grid_checks.h"
#include "sampling/pattern.h"
#include "sampling/schedule.h"
#include "sampling/tiling.h"

namespace eco::sampling {

namespace {

// Seed candidates come in blocks of kSeedBlock x kSeedBlock; a block whose density bound is
// <= 0 is skipped whole. Each block draws its jitter from its own stream.
constexpr int kSeedBlock = 8;

// The growth stream (active-list picks, candidate indices): wyrand, one 64 x 64 -> 128-bit
// multiply per draw (about half the instructions of SplitMix64), passes PractRand/BigCrush.
// __extension__: a GCC/clang builtin type, not ISO C++ (keeps -Wpedantic quiet for this one).
__extension__ typedef unsigned __int128 Uint128;
struct GrowthRng {
  uint64_t state;
  uint64_t next() {
    state += 0xa0761d6478bd642full;
    const Uint128 t = static_cast<Uint128>(state) * (state ^ 0xe7037ed1a0b428dbull);
    return uint64_t(t >> 64) ^ uint64_t(t);
  }
};

// Places class `cls` in the tile; leaves its samples in scratch.placed.
// kVariable: radius from the density field (variableRadius with a density field).
template <bool kVariable>
void placeClass(const SamplerSetup& setup, const TileBounds& b, int cls, uint64_t tileSeed, TileScratch& s) {
  const SamplerParams& p = *setup.params;
  const SampleClass& klass = p.classes[size_t(cls)];
  const DensityField* field = setup.density;
  ClassGrid& grid = s.grids[size_t(cls)];
  const float radius = klass.radius;
  const float radius2 = radius * radius * kSpacingMargin;

  collectOthers(setup, b, cls, s, /*withNear=*/false);
  auto blockedByOthers = [&](float qx, float qz) { return blockedByOtherClasses(s.others, qx, qz); };

  std::vector<PlacedSample>& placed = s.placed;
  std::vector<ActiveSample>& active = s.active;
  placed.clear();
  active.clear();
  auto insert = [&](float qx, float qz, float r, float density) {
    const int cell = grid.insert(qx, qz, r, true);
    active.push_back({qx, qz, r});
    placed.push_back({qx, qz, r, density, cell, true});
  };
  // After the caller's in-tile and coverage tests.
  auto placeIfClear = [&](float qx, float qz) {
    if constexpr (kVariable) {
      // Density first: it is one cheap lookup and rejects whole empty regions.
      const float density = unitDensity(field, s, cls, qx, qz);
      if (!(density > 0.f)) return false;
      float r = sampleRadius(klass, density);
      if (klass.sizeSpread > 1.f) r *= 1.f + (klass.sizeSpread - 1.f) * sizeDraw(p.seed, cls, qx, qz);
      if (blockedByOwn(grid, qx, qz, r) || blockedByOthers(qx, qz) || field->excluded(cls, qx, qz)) return false;
      insert(qx, qz, r, density);
    } else {
      if (blockedNear(grid, qx, qz, radius2) || blockedByOthers(qx, qz) || (field && field->excluded(cls, qx, qz)))
        return false;
      insert(qx, qz, radius, 1.f);
    }
    return true;
  };

  const AnnulusTable& offsets = annulusTable();
  const int k = p.candidates;
  GrowthRng rng{hashCombine(tileSeed, 2 * uint64_t(cls))};
  // Candidates are first placed in coverage-pixel units (per parent: one multiply-add per
  // axis) and rejected there (the raster's covered border holds every candidate); only the
  // rare survivors get world coordinates and the exact tile-bounds test. Pixel rounding can
  // only drop a candidate at a pixel edge, never accept one: the exact tests follow.
  const uint64_t* const cover = grid.covered.data();
  const size_t coverWords = size_t(grid.coverWords);
  const float invPixel = grid.invPixel;
  // Single-radius classes: offsets pre-scaled to 16.16 fixed-point pixels, z and x packed in
  // one int64 (ClassGrid::pixelOffsets), so a candidate's pixel is one load, one add and two
  // shifts (no float multiply or conversion).
  const int64_t* pixelOffsets = nullptr;
  if constexpr (!kVariable) pixelOffsets = grid.pixelOffsets(radius * invPixel);
  // Returns true when candidate i of the table, around `from`, was placed.
  auto tryCandidate = [&](const ActiveSample& from, float fx, float fz, float fr, int64_t packed, uint32_t i) {
    unsigned ix, iz;
    if constexpr (kVariable) {
      ix = unsigned(int(fx + fr * offsets.at[i].x));
      iz = unsigned(int(fz + fr * offsets.at[i].z));
    } else {
      const uint64_t sum = uint64_t(packed + pixelOffsets[i]);
      ix = uint32_t(sum) >> 16;
      iz = unsigned(sum >> 48);
    }
    if ((cover[iz * coverWords + (ix >> 6)] >> (ix & 63u)) & 1u) return false;
    const float qx = from.x + from.r * offsets.at[i].x, qz = from.z + from.r * offsets.at[i].z;
    if (!((qx >= b.x0) & (qx < b.x1) & (qz >= b.z0) & (qz < b.z1))) return false;
    return placeIfClear(qx, qz);
  };
  auto grow = [&] {
    while (!active.empty()) {
      const size_t a = size_t((uint64_t(uint32_t(rng.next())) * active.size()) >> 32);
      const ActiveSample from = active[a];
      const float fx = (from.x - grid.coverX) * invPixel, fz = (from.z - grid.coverZ) * invPixel;
      const float fr = from.r * invPixel;
      // Both >= 0 (the parent is inside the raster's border): the packed sum cannot borrow.
      const int64_t packed = int64_t(double(fz) * 65536.0) * (int64_t(1) << 32) + int64_t(double(fx) * 65536.0);
      bool grew = false;
      int t = 0;
      // Whole draws unrolled, with the same number of copies per draw: every branch sits at
      // its own address, so no loop exit is mispredicted.
      for (; t + kAnnulusPerDraw <= k && !grew; t += kAnnulusPerDraw) {
        uint64_t bits = rng.next();
#pragma GCC unroll 8
        for (int c = 0; c < kAnnulusPerDraw; ++c, bits >>= kAnnulusBits)
          if (tryCandidate(from, fx, fz, fr, packed, uint32_t(bits) & (kAnnulusSize - 1))) {
            grew = true;
            break;
          }
      }
      if (t < k && !grew) {
        uint64_t bits = rng.next();
        for (int c = 0; c < k - t; ++c, bits >>= kAnnulusBits)
          if (tryCandidate(from, fx, fz, fr, packed, uint32_t(bits) & (kAnnulusSize - 1))) {
            grew = true;
            break;
          }
      }
      if (!grew) {
        active[a] = active.back();
        active.pop_back();
      }
    }
  };

  // Seed candidates on a jittered grid of about 2 radii, tried in order once the previous
  // seed's growth has died out: fills islands of density > 0 that growth cannot reach.
  const float w = b.x1 - b.x0, h = b.z1 - b.z0;
  const int sx = std::clamp(int(std::ceil(w / (2.f * radius))), 1, 256);
  const int sz = std::clamp(int(std::ceil(h / (2.f * radius))), 1, 256);
  const float stepX = w / float(sx), stepZ = h / float(sz);
  for (int bj = 0; bj < sz; bj += kSeedBlock)
    for (int bi = 0; bi < sx; bi += kSeedBlock) {
      const int ei = std::min(sx, bi + kSeedBlock), ej = std::min(sz, bj + kSeedBlock);
      if (kVariable && !(unitMaxDensity(field, s, cls, b.x0 + float(bi) * stepX, b.z0 + float(bj) * stepZ,
                                        b.x0 + float(ei) * stepX, b.z0 + float(ej) * stepZ) > 0.f))
        continue;
      Rng seedRng(hashCombine(hashCombine(tileSeed, 2 * uint64_t(cls) + 1), uint64_t(bj) << 32 | uint64_t(bi)));
      for (int j = bj; j < ej; ++j)
        for (int i = bi; i < ei; ++i) {
          const float qx = b.x0 + (float(i) + seedRng.uniform()) * stepX;
          const float qz = b.z0 + (float(j) + seedRng.uniform()) * stepZ;
          if (qx < b.x1 && qz < b.z1 && !grid.isCovered(qx, qz) && placeIfClear(qx, qz)) grow();
        }
    }

  // Survival roulette: where the radius is clamped (variable mode), or everywhere (roulette
  // mode). Removed samples stay in the grid to space their own class.
  // The pattern (clumps, gaps, canopy, thinning of the hard core) thins the same way.
  const bool patterned = hasPattern(klass);
  if (p.variableRadius && !kVariable && !patterned) return;
  const CanopyGrid* canopy = klass.respondsToCanopy() ? s.canopy : nullptr;
  const float clampedDensity = (radius / klass.maxRadius) * (radius / klass.maxRadius);
  for (PlacedSample& q : placed) {
    float keep = 1.f;
    if (kVariable)
      keep = q.density < clampedDensity ? q.density / clampedDensity : 1.f;
    else if (field && !p.variableRadius)
      keep = unitDensity(field, s, cls, q.x, q.z);
    if (patterned) keep *= patternFactor(klass, s.clumps, s.gaps, canopy, q.x, q.z);
    if (keep < 1.f && !(survivalDraw(p.seed, cls, q.x, q.z) < keep)) {
      q.alive = false;
      grid.kill(q.cell);
    }
  }
}

// The smallest radius any sample of the class can have in the tile and its margin: with
// variable radius, sparse tiles get coarser cells (fewer cells to scan, smaller discs in
// pixels). Every stored sample has r >= this, so a cell still holds at most one.
float gridRadius(const SamplerSetup& setup, int cls, const TileBounds& b, const TileScratch& s) {
  const SampleClass& klass = setup.params->classes[size_t(cls)];
  if (!(setup.params->variableRadius && setup.density)) return klass.radius;
  const float m = setup.margin[size_t(cls)];
  const float bound = unitMaxDensity(setup.density, s, cls, b.x0 - m, b.z0 - m, b.x1 + m, b.z1 + m);
  return bound >= 1.f || !(bound > 0.f) ? klass.radius : sampleRadius(klass, bound);
}

}  // namespace

// Deterministic survival draw in [0, 1) from the seed and the sample alone.
float survivalDraw(uint64_t seed, int cls, float x, float z) {
  const uint64_t pos = uint64_t(std::bit_cast<uint32_t>(x)) << 32 | std::bit_cast<uint32_t>(z);
  return float(hashCombine(hashCombine(seed ^ 0x5375727669766521ull, uint64_t(cls)), pos) >> 40) *
         (1.f / 16777216.f);
}

// The classes already placed that exclude `cls` (s.others). Bridson: their exclusion discs
// marked in the class's coverage raster, so candidates there cost one load. Pool (withNear):
// the pixels the discs meet marked in grid.near instead.
void collectOthers(const SamplerSetup& setup, const TileBounds& b, int cls, TileScratch& s, bool withNear) {
  const size_t n = setup.params->classes.size();
  ClassGrid& grid = s.grids[size_t(cls)];
  s.others.clear();
  for (const int partner : setup.partners[size_t(cls)]) {
    const size_t d = size_t(partner);
    const float dist = setup.pair[size_t(cls) * n + d];
    if (s.grids[d].aliveCount > 0)
      s.others.push_back({&s.grids[d], nullptr, dist, dist * dist * kSpacingMargin});
    else if (!s.alive[d].empty())
      s.others.push_back({nullptr, &s.alive[d], dist, dist * dist * kSpacingMargin});
  }
  if (withNear) grid.resetNear();
  for (const int partner : setup.partners[size_t(cls)]) {
    const size_t d = size_t(partner);
    const float dist = setup.pair[size_t(cls) * n + d];
    const NearDisc disc = withNear ? grid.nearDisc(dist) : NearDisc{};
    for (const Point& q : s.alive[d])
      if (q.x > b.x0 - dist && q.x < b.x1 + dist && q.z > b.z0 - dist && q.z < b.z1 + dist) {
        if (withNear)
          grid.markNear(q.x, q.z, disc);
        else
          grid.markCovered(q.x, q.z, dist);
      }
  }
}

SamplerSetup makeSetup(const SamplerParams& params, const DensityField* density) {
  validateSamplerParams(params);
  SamplerSetup s;
  s.params = &params;
  s.density = density;
  s.tilesX = tilesX(params);
  s.tilesZ = tilesZ(params);
  const int n = int(params.classes.size());
  s.pair.resize(size_t(n) * size_t(n));
  s.margin.resize(size_t(n));
  for (int c = 0; c < n; ++c) {
    const SampleClass& k = params.classes[size_t(c)];
    float m = k.largestRadius(params.variableRadius);
    // Its crowns shade later classes: they must be at hand around every tile.
    for (int d = c + 1; d < n; ++d)
      if (params.classes[size_t(d)].respondsToCanopy() && params.classes[size_t(d)].canopyFrom > c) m = std::max(m, k.crownHi);
    for (int d = 0; d < n; ++d) {
      s.pair[size_t(c) * size_t(n) + size_t(d)] = pairDistance(params, c, d);
      m = std::max(m, pairDistance(params, c, d));
    }
    s.margin[size_t(c)] = m;
  }
  s.partners.resize(size_t(n));
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d)
      if (d != c && s.pair[size_t(c) * size_t(n) + size_t(d)] > 0.f) s.partners[size_t(c)].push_back(d);
  // A pool unit reads its class's density out to the other classes' exclusion distances (their
  // samples' holes); Bridson units in the tile. The wider bound over the margin (gridRadius)
  // takes coarse blocks only.
  s.densityReach.assign(size_t(n), 0.f);
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d)
      if (d != c) s.densityReach[size_t(c)] = std::max(s.densityReach[size_t(c)], s.pair[size_t(c) * size_t(n) + size_t(d)]);
  s.poolClass.resize(size_t(n));
  for (int c = 0; c < n; ++c) {
    const SampleClass& k = params.classes[size_t(c)];
    const float ratio = k.largestRadius(params.variableRadius) / k.radius;
    s.poolClass[size_t(c)] = params.method == SamplerMethod::Pool && ratio <= kPoolMaxRatio;
  }
  if (std::find(s.poolClass.begin(), s.poolClass.end(), 1) != s.poolClass.end()) arrangedBase();  // built up front
  return s;
}

// Higher layers with fewer samples than this near a tile are tested from a list, not a grid.
constexpr size_t kOtherListMax = 32;

namespace {

// Whether a class's samples near its tile's edges are listed (listBorders): only while its
// margin strips are narrower than half a tile. Wider, a strip holds most of the tile and the
// lists cost more than they save (the 63-species clone's margins listed every sample three
// times: 12 bytes more per held sample).
bool bordersListed(const SamplerSetup& setup, int cls) {
  return 2.f * setup.margin[size_t(cls)] < setup.params->tileSize;
}

// Calls f for each sample of class d in the unit's neighbourhood that can lie within d's margin
// of its tile: all of the tile's own, and from a neighbour (where useTile(k) says) only those on
// its side or corner list toward the tile, where the class has lists. The caller's margin test
// then keeps exactly what a scan of every sample would, in the same order.
template <typename UseTile, typename F>
void forNeighbourhood(const SamplerSetup& setup, const UnitTask& task, int d, UseTile&& useTile, F&& f) {
  const bool listed = bordersListed(setup, d);
  for (int k = 0; k < 9; ++k) {
    const PlacedTile* t = task.near[k];
    if (!t || !useTile(k)) continue;
    const std::span<const FixedSample> of = t->of(d);
    if (k == 4 || !listed) {
      for (const FixedSample& q : of) f(q);
      continue;
    }
    // the neighbour's side facing the tile in x and in z (-1: none)
    const int dx = k % 3 - 1, dz = k / 3 - 1;
    const int sx = dx < 0 ? kSideHighX : dx > 0 ? kSideLowX : -1;
    const int sz = dz < 0 ? kSideHighZ : dz > 0 ? kSideLowZ : -1;
    const int list = sx >= 0 && sz >= 0 ? cornerList(sx, sz) : sx >= 0 ? sx : sz;
    for (uint32_t i : t->nearBorder(d, list)) f(of[i]);
  }
}

// The unit's border lists: its samples within the class's margin of each side and corner of the
// tile, with the bounds test its neighbours' margin test makes (a neighbour's bound equals the
// tile's). Empty where the class has none (bordersListed).
void listBorders(const SamplerSetup& setup, int cls, const TileBounds& b, UnitSamples& out) {
  out.border.clear();
  for (uint32_t& end : out.listEnd) end = 0;
  if (!bordersListed(setup, cls)) return;
  const float m = setup.margin[size_t(cls)];
  const std::vector<FixedSample>& q = out.samples;
  auto nearSide = [&](const FixedSample& f, int side) {
    return side == kSideLowX ? f.x < b.x0 + m : side == kSideHighX ? f.x >= b.x1 - m : side == kSideLowZ ? f.z < b.z0 + m : f.z >= b.z1 - m;
  };
  for (int list = 0; list < kBorderLists; ++list) {
    const int sx = list < kCornerFirst ? list : (list - kCornerFirst) % 2;
    const int sz = list < kCornerFirst ? -1 : kSideLowZ + (list - kCornerFirst) / 2;
    for (uint32_t i = 0; i < uint32_t(q.size()); ++i)
      if (nearSide(q[i], sx) && (sz < 0 || nearSide(q[i], sz))) out.border.push_back(i);
    out.listEnd[list] = uint32_t(out.border.size());
  }
}

}  // namespace

void generateUnit(const SamplerSetup& setup, const UnitTask& task, TileScratch& scratch, UnitSamples& out) {
  const SamplerParams& p = *setup.params;
  const int c = task.cls;
  const TileBounds b = tileBounds(p, task.tx, task.tz);
  const size_t n = p.classes.size();
  const bool variable = p.variableRadius && setup.density;
  out.samples.clear();
  out.border.clear();
  for (uint32_t& end : out.listEnd) end = 0;
  out.canopy.reset();
  out.canopyLimit = -1;
  scratch.canopy = nullptr;
  // The tile's canopy is kept for the next class only when that class reads the same one: the
  // tile stays in the schedule's window long after its layer is placed.
  const auto readsCanopy = [&](int k) {
    return k < int(n) && p.classes[size_t(k)].respondsToCanopy() ? std::min(p.classes[size_t(k)].canopyFrom, k) : -1;
  };
  out.dropCanopy = readsCanopy(c + 1) < 0 || readsCanopy(c + 1) != readsCanopy(c);
  // The class's density over the tile and the margin it reads.
  const float reach = setup.densityReach[size_t(c)];
  const bool windowed =
      setup.density && setup.density->window(c, b.x0 - reach, b.z0 - reach, b.x1 + reach, b.z1 + reach, scratch.window);
  scratch.windowClass = windowed ? c : -1;
  if (variable && !(unitMaxDensity(setup.density, scratch, c, b.x0, b.z0, b.x1, b.z1) > 0.f)) return;
  auto inMargin = [&](const FixedSample& f, float m) {
    return f.x >= b.x0 - m && f.x < b.x1 + m && f.z >= b.z0 - m && f.z < b.z1 + m;
  };
  // (only the class's partners' entries are read: collectOthers)
  scratch.grids.resize(n);
  scratch.alive.resize(n);
  for (const int d : setup.partners[size_t(c)]) {
    scratch.alive[size_t(d)].clear();
    scratch.grids[size_t(d)].clear();
  }
  scratch.alive[size_t(c)].clear();
  scratch.grids[size_t(c)].clear();
  // Higher layers that exclude this class: their alive samples in the tile and its margin, from
  // the whole neighbourhood (all final: the schedule's layer rule): a grid where there are many.
  std::vector<const FixedSample*>& near = scratch.nearSamples;
  for (const int d : setup.partners[size_t(c)]) {
    if (d >= c) break;  // ascending: the rest are placed after this class
    near.clear();
    const float m = setup.margin[size_t(d)];
    forNeighbourhood(setup, task, d, [](int) { return true; }, [&](const FixedSample& f) {
      if (f.alive && inMargin(f, m)) near.push_back(&f);
    });
    for (const FixedSample* f : near) scratch.alive[size_t(d)].push_back({f->x, f->z});
    if (near.size() < kOtherListMax) continue;  // tested from the list (OtherClass)
    ClassGrid& g = scratch.grids[size_t(d)];
    g.reset(gridRadius(setup, d, b, scratch), b.x0, b.z0, b.x1, b.z1, setup.margin[size_t(d)], variable, /*coverage=*/false);
    for (const FixedSample* f : near) g.insert(f->x, f->z, f->r, true, /*markDisc=*/false);
  }
  // The own class from finished (lower-colour) neighbours, removed samples included: they still
  // space their class. Pool classes test candidates exactly; only Bridson candidates use the
  // coverage raster.
  ClassGrid& own = scratch.grids[size_t(c)];
  own.reset(gridRadius(setup, c, b, scratch), b.x0, b.z0, b.x1, b.z1, setup.margin[size_t(c)], variable,
            /*coverage=*/!setup.fromPool(size_t(c)));
  forNeighbourhood(setup, task, c, [&](int k) { return task.lower[k]; }, [&](const FixedSample& f) {
    if (inMargin(f, setup.margin[size_t(c)])) own.insert(f.x, f.z, f.r, f.alive, /*markDisc=*/!setup.fromPool(size_t(c)));
  });

  // The crowns of the classes that shade this one, from the whole neighbourhood (final: the
  // layer rule), each its class's crown radius at the sample's size draw: the tile's canopy
  // when an earlier class of the tile built it over the same classes.
  const SampleClass& klass = p.classes[size_t(c)];
  const int canopyLimit = std::min(klass.canopyFrom, c);
  const PlacedTile* self = task.near[4];
  if (klass.respondsToCanopy() && self && self->canopy && self->canopyLimit == canopyLimit) {
    scratch.canopy = self->canopy.get();
  } else if (klass.respondsToCanopy()) {
    std::vector<CanopyGrid::Crown>& crowns = scratch.crownList;
    crowns.clear();
    float maxCrown = 0.f;
    for (int d = 0; d < canopyLimit; ++d) {
      const SampleClass& shade = p.classes[size_t(d)];
      if (!(shade.crownHi > 0.f)) continue;
      maxCrown = std::max(maxCrown, shade.crownHi);
      // (crownHi is within the class's margin: makeSetup)
      forNeighbourhood(setup, task, d, [](int) { return true; }, [&](const FixedSample& f) {
        if (f.alive && inMargin(f, shade.crownHi)) {
          const float r = shade.crownLo + (shade.crownHi - shade.crownLo) * sizeDraw(p.seed, d, f.x, f.z);
          crowns.push_back({f.x, f.z, r * r});
        }
      });
    }
    auto canopy = std::make_shared<CanopyGrid>();
    canopy->build(crowns, b.x0, b.z0, b.x1, b.z1, maxCrown);
    scratch.canopy = canopy.get();
    out.canopy = std::move(canopy);
    out.canopyLimit = canopyLimit;
  }
  scratch.clumps.prepare(klass.clumps, hashCombine(p.seed, uint64_t(c)), b.x0, b.z0, b.x1, b.z1);
  scratch.gaps.prepare(klass.gaps, p.seed, b.x0, b.z0, b.x1, b.z1);
  const uint64_t tileSeed = hashCombine(hashCombine(p.seed, uint64_t(task.tx)), uint64_t(task.tz));
  if (setup.fromPool(size_t(c)))
    placeClassFromPool(setup, b, c, scratch, variable);
  else if (variable)
    placeClass<true>(setup, b, c, tileSeed, scratch);
  else
    placeClass<false>(setup, b, c, tileSeed, scratch);
  for (const PlacedSample& q : scratch.placed) out.samples.push_back({q.x, q.z, q.r, uint16_t(c), uint8_t(q.alive)});
  listBorders(setup, c, b, out);
}

}  // namespace eco::sampling
