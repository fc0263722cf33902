#include "sampling/bridson.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/hash.h"
#include "sampling/directions.h"
#include "sampling/tiling.h"

namespace eco::sampling {

namespace {

// Spacing tests compare float squared distances against (1 + 2^-20) d^2, which covers float
// rounding, so every accepted pair is at least d apart in exact arithmetic.
constexpr float kSpacingMargin = 1.f + 1.f / 1048576.f;

struct Point {
  float x, z;
};

// Uniform by area in the annulus [r, 2r] around (px, pz), from 64 random bits: 10 bits of
// direction, 12 bits interpolating to the next table entry, 24 bits of radius.
inline Point annulusPoint(const Direction* dirs, uint64_t bits, float px, float pz, float r) {
  const uint32_t i = uint32_t(bits) & (kDirections - 1);
  const float f = float(uint32_t(bits >> kDirectionBits) & 0xfffu) * (1.f / 4096.f);
  const float u = float(bits >> 40) * (1.f / 16777216.f);
  const Direction a = dirs[i], b = dirs[i + 1];
  const float rho = r * std::sqrt(1.f + 3.f * u);
  return {px + (a.x + f * (b.x - a.x)) * rho, pz + (a.z + f * (b.z - a.z)) * rho};
}

// Single-radius class: any sample closer than sqrt(r2)? With cells of r / sqrt(2), a sample
// in the candidate's own cell is always too close, and the 5x5 block covers the reach.
inline bool blockedUniform(const ClassGrid& g, float qx, float qz, float r2) {
  const int c = g.cellOf(qx, qz);
  if (g.px[size_t(c)] != kEmptyCell) return true;
  const float* xs = g.px.data() + c - 2 * g.nx - 2;
  const float* zs = g.pz.data() + c - 2 * g.nx - 2;
  bool hit = false;
  for (int row = 0; row < 5; ++row, xs += g.nx, zs += g.nx)
    for (int k = 0; k < 5; ++k) {
      const float dx = xs[k] - qx, dz = zs[k] - qz;
      hit |= dx * dx + dz * dz < r2;
    }
  return hit;
}

// Calls test(cell, d2) over the cells within `reach` of q until it returns true.
template <typename Test>
inline bool anyWithin(const ClassGrid& g, float qx, float qz, float reach, Test test) {
  const int ci = g.cellX(qx), cj = g.cellZ(qz);
  const int n = int(reach * g.invCell) + 1;
  for (int j = cj - n; j <= cj + n; ++j) {
    const size_t row = size_t(j) * size_t(g.nx);
    for (int i = ci - n; i <= ci + n; ++i) {
      const size_t c = row + size_t(i);
      const float dx = g.px[c] - qx, dz = g.pz[c] - qz;
      if (test(c, dx * dx + dz * dz)) return true;
    }
  }
  return false;
}

// Variable radius: a stored sample p with |p - q| < r_p.
inline bool blockedByOwnRadius(const ClassGrid& g, float qx, float qz, float reach) {
  return anyWithin(g, qx, qz, reach, [&](size_t c, float d2) { return d2 < g.pr[c] * g.pr[c] * kSpacingMargin; });
}

inline bool blockedWithin(const ClassGrid& g, float qx, float qz, float dist, float dist2) {
  return anyWithin(g, qx, qz, dist, [&](size_t, float d2) { return d2 < dist2; });
}

inline bool blockedByAliveWithin(const ClassGrid& g, float qx, float qz, float dist, float dist2) {
  return anyWithin(g, qx, qz, dist, [&](size_t c, float d2) { return d2 < dist2 && g.alive[c]; });
}

// Deterministic survival draw in [0, 1) from the seed and the sample alone.
float survivalDraw(uint64_t seed, int cls, float x, float z) {
  const uint64_t pos = uint64_t(std::bit_cast<uint32_t>(x)) << 32 | std::bit_cast<uint32_t>(z);
  return float(hashCombine(hashCombine(seed ^ 0x5375727669766521ull, uint64_t(cls)), pos) >> 40) *
         (1.f / 16777216.f);
}

// Places class `cls` in the tile; leaves its samples in scratch.placed.
// kVariable: radius from the density field (variableRadius with a density field).
template <bool kVariable>
void placeClass(const SamplerSetup& setup, const TileBounds& b, int cls, uint64_t tileSeed, TileScratch& s) {
  const SamplerParams& p = *setup.params;
  const SampleClass& klass = p.classes[size_t(cls)];
  const DensityField* field = setup.density;
  ClassGrid& grid = s.grids[size_t(cls)];
  const float radius = klass.radius;
  const float maxRadius = kVariable ? klass.maxRadius : radius;
  const float radius2 = radius * radius * kSpacingMargin;
  const size_t n = p.classes.size();

  s.others.clear();
  for (size_t d = 0; d < n; ++d) {
    const float dist = setup.pair[size_t(cls) * n + d];
    if (d != size_t(cls) && dist > 0.f) s.others.push_back({&s.grids[d], dist, dist * dist * kSpacingMargin});
  }
  auto blockedByOthers = [&](float qx, float qz) {
    for (const OtherClass& o : s.others)
      if (o.grid->aliveCount > 0 && blockedByAliveWithin(*o.grid, qx, qz, o.distance, o.distance2)) return true;
    return false;
  };

  std::vector<PlacedSample>& placed = s.placed;
  std::vector<uint32_t>& active = s.active;
  placed.clear();
  active.clear();
  auto tryPlace = [&](float qx, float qz) {
    if (!(qx >= b.x0 && qx < b.x1 && qz >= b.z0 && qz < b.z1)) return false;
    float r = radius, density = 1.f;
    if constexpr (kVariable) {
      const float reach = grid.maxRadiusNear(qx, qz, maxRadius);
      if (reach > 0.f && blockedByOwnRadius(grid, qx, qz, reach)) return false;
      if (blockedByOthers(qx, qz)) return false;
      density = field->density(cls, qx, qz);
      if (!(density > 0.f)) return false;
      r = sampleRadius(klass, density);
      if (r > radius && blockedWithin(grid, qx, qz, r, r * r * kSpacingMargin)) return false;
    } else {
      if (blockedUniform(grid, qx, qz, radius2)) return false;
      if (!s.others.empty() && blockedByOthers(qx, qz)) return false;
    }
    const int cell = grid.insert(qx, qz, r, true);
    active.push_back(uint32_t(placed.size()));
    placed.push_back({qx, qz, r, density, cell, true});
    return true;
  };

  const Direction* dirs = directionTable();
  const int k = p.candidates;
  Rng rng(hashCombine(tileSeed, 2 * uint64_t(cls)));
  auto grow = [&] {
    while (!active.empty()) {
      const size_t a = size_t((uint64_t(uint32_t(rng.next())) * active.size()) >> 32);
      const PlacedSample from = placed[active[a]];
      bool grew = false;
      for (int t = 0; t < k && !grew; ++t) {
        const Point q = annulusPoint(dirs, rng.next(), from.x, from.z, from.r);
        grew = tryPlace(q.x, q.z);
      }
      if (!grew) {
        active[a] = active.back();
        active.pop_back();
      }
    }
  };

  // Seed candidates on a jittered grid of about 2 radii, tried in order once the previous
  // seed's growth has died out: fills islands of density > 0 that growth cannot reach.
  Rng seedRng(hashCombine(tileSeed, 2 * uint64_t(cls) + 1));
  const float w = b.x1 - b.x0, h = b.z1 - b.z0;
  const int sx = std::clamp(int(std::ceil(w / (2.f * radius))), 1, 256);
  const int sz = std::clamp(int(std::ceil(h / (2.f * radius))), 1, 256);
  for (int j = 0; j < sz; ++j)
    for (int i = 0; i < sx; ++i) {
      const float qx = b.x0 + (float(i) + seedRng.uniform()) * (w / float(sx));
      const float qz = b.z0 + (float(j) + seedRng.uniform()) * (h / float(sz));
      if (tryPlace(qx, qz)) grow();
    }

  // Survival roulette: where the radius is clamped (variable mode), or everywhere (roulette
  // mode). Removed samples stay in the grid to space their own class.
  if (p.variableRadius && !kVariable) return;
  const float clampedDensity = (radius / klass.maxRadius) * (radius / klass.maxRadius);
  for (PlacedSample& q : placed) {
    float keep = 1.f;
    if (kVariable)
      keep = q.density < clampedDensity ? q.density / clampedDensity : 1.f;
    else if (field)
      keep = field->density(cls, q.x, q.z);
    if (keep < 1.f && !(survivalDraw(p.seed, cls, q.x, q.z) < keep)) {
      q.alive = false;
      grid.kill(q.cell);
    }
  }
}

}  // namespace

SamplerSetup makeSetup(const SamplerParams& params, const DensityField* density) {
  validateSamplerParams(params);
  SamplerSetup s;
  s.params = &params;
  s.density = density;
  s.tilesX = tilesX(params);
  s.tilesZ = tilesZ(params);
  s.margin = interactionDistance(params);
  const int n = int(params.classes.size());
  s.pair.resize(size_t(n) * size_t(n));
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < n; ++d) s.pair[size_t(c) * size_t(n) + size_t(d)] = pairDistance(params, c, d);
  return s;
}

void generateTile(const SamplerSetup& setup, int tx, int tz, std::span<const std::vector<FixedSample>* const> fixed,
                  bool keepBorder, TileScratch& scratch, TileOutput& out) {
  const SamplerParams& p = *setup.params;
  const TileBounds b = tileBounds(p, tx, tz);
  const float m = setup.margin;
  const size_t n = p.classes.size();
  scratch.grids.resize(n);
  for (size_t c = 0; c < n; ++c) scratch.grids[c].reset(p.classes[c].radius, b.x0, b.z0, b.x1, b.z1, m);
  for (const std::vector<FixedSample>* list : fixed)
    for (const FixedSample& f : *list)
      if (f.x >= b.x0 - m && f.x < b.x1 + m && f.z >= b.z0 - m && f.z < b.z1 + m)
        scratch.grids[f.cls].insert(f.x, f.z, f.r, f.alive);

  out.samples.clear();
  out.border.clear();
  const bool variable = p.variableRadius && setup.density;
  const uint64_t tileSeed = hashCombine(hashCombine(p.seed, uint64_t(tx)), uint64_t(tz));
  for (size_t c = 0; c < n; ++c) {
    if (variable)
      placeClass<true>(setup, b, int(c), tileSeed, scratch);
    else
      placeClass<false>(setup, b, int(c), tileSeed, scratch);
    for (const PlacedSample& q : scratch.placed) {
      if (q.alive) out.samples.push_back({q.x, q.z, uint32_t(c)});
      const bool nearEdge = q.x < b.x0 + m || q.x >= b.x1 - m || q.z < b.z0 + m || q.z >= b.z1 - m;
      if (keepBorder && nearEdge) out.border.push_back({q.x, q.z, q.r, uint16_t(c), uint8_t(q.alive)});
    }
  }
}

}  // namespace eco::sampling
