// Pool placement (SamplerMethod::Pool): one class of one tile from the Poisson pool, seen
// through its own orientation and offset in every window (sampling/pool.h).
#include <algorithm>
#include <bit>
#include <cmath>

#include "core/hash.h"
#include "sampling/bridson.h"
#include "sampling/grid_checks.h"
#include "sampling/pattern.h"

namespace eco::sampling {
namespace {

// A pool point blocked by another class's sample `o`, inside its exclusion disc (radius d) but
// within one radius of the disc's edge. The pool cannot pack up to the disc: its points there
// are blocked, and the next ones out are where the pool put them, leaving a gap around every
// obstacle. The blocked point moved radially out onto the disc's edge fills it (the exact
// tests then decide, as for any point).
struct Hole {
  float x, z, ox, oz, d;
};

// The first sample of another class closer than its exclusion distance to (x, z), as a hole.
bool findBlocker(const std::vector<OtherClass>& others, float x, float z, Hole& h) {
  Point at{};
  float d = 0.f;
  if (!otherClassBlocker(others, x, z, &at, &d)) return false;
  h = {x, z, at.x, at.z, d};
  return true;
}

// A pool point near its window's edge. Two windows show unrelated parts of the pool, so their
// points conflict across a seam. Each window's points reach past its edge, and those near the
// seam on either side are placed after the rest, by decreasing delta over the whole tile, the
// order the pool itself was built in: the seam keeps the points that space the others out and
// packs like the interior, with no band of missing points.
struct SeamPoint {
  float x, z, delta;
};

// Places class `cls` in the tile; leaves its samples in scratch.placed. A pool point is a
// sample where its delta reaches the local spacing, the density keeps it (survival where the
// radius is clamped, or everywhere in roulette mode) and the exact tests pass.
template <bool kVariable>
void placeFromPool(const SamplerSetup& setup, const TileBounds& b, int cls, TileScratch& s) {
  const SamplerParams& p = *setup.params;
  const SampleClass& klass = p.classes[size_t(cls)];
  const DensityField* field = setup.density;
  ClassGrid& grid = s.grids[size_t(cls)];
  const float radius = klass.radius, radius2 = radius * radius * kSpacingMargin;
  collectOthers(setup, b, cls, s, /*withNear=*/true);
  std::vector<PlacedSample>& placed = s.placed;
  placed.clear();
  std::vector<Hole> holes;
  std::vector<SeamPoint> seam;
  const float clampedDensity = (radius / klass.maxRadius) * (radius / klass.maxRadius);
  const bool sized = kVariable && klass.sizeSpread > 1.f, patterned = hasPattern(klass);
  const CanopyGrid* canopy = klass.respondsToCanopy() ? s.canopy : nullptr;
  const float patternMax = patternBound(klass);

  // Density and spacing at (x, z): false where no sample may stand.
  auto spacingAt = [&](float x, float z, float& r, float& density) {
    r = radius;
    density = 1.f;
    if constexpr (kVariable) {
      density = unitDensity(field, s, cls, x, z);
      if (!(density > 0.f)) return false;
      r = sampleRadius(klass, density);
    } else if (field) {
      density = unitDensity(field, s, cls, x, z);
    }
    return true;
  };
  // The sample's own spacing (size coupling): at least r, so a point already too close for r
  // is out without the size draw.
  auto sizedRadius = [&](float x, float z, float r) {
    return sized ? r * (1.f + (klass.sizeSpread - 1.f) * sizeDraw(p.seed, cls, x, z)) : r;
  };
  // The position's own rules (water), after the spacing test kept it: most points never get here.
  auto excludedAt = [&](float x, float z) { return field && field->excluded(cls, x, z); };
  // Survival: where the radius is clamped, or everywhere in roulette mode; times the pattern's.
  // A patterned class's survival draw: one hash step of the position (most of its points are
  // thinned, so the draw is on the hot path), from the seed and the class like survivalDraw.
  const uint64_t drawKey = hashCombine(p.seed ^ 0x7061747465726e64ull, uint64_t(cls));
  auto patternDraw = [&](float x, float z) {
    const uint64_t pos = uint64_t(std::bit_cast<uint32_t>(x)) << 32 | std::bit_cast<uint32_t>(z);
    return float(mix64(pos ^ drawKey) >> 40) * (1.f / 16777216.f);
  };
  // `draw`: the point's patternDraw when already made (preDraw), else < 0; `patches` its
  // patchFactor then.
  float patches = 0.f;
  auto survives = [&](float x, float z, float density, float draw) {
    float keep = 1.f;
    if constexpr (kVariable)
      keep = density < clampedDensity ? density / clampedDensity : 1.f;
    else
      keep = field && density < 1.f ? density : 1.f;
    if (!patterned) return !(keep < 1.f) || survivalDraw(p.seed, cls, x, z) < keep;
    // The draw first: most thinned points are out before the pattern is looked at.
    float f;
    if (draw < 0.f) {
      draw = patternDraw(x, z);
      if (!(draw < keep * patternMax)) return false;
      f = patchFactor(klass, s.clumps, s.gaps, x, z);
    } else {
      f = patches;
    }
    if (canopy && f > 0.f) f *= canopy->shaded(x, z) ? klass.underCrown : klass.inOpen;
    return draw < keep * f;
  };
  // The pattern's part of the survival without the density (clumps and gaps: bit lookups), an
  // upper bound of the whole: a point it rejects is out before its density is read. Only
  // where a non-survivor leaves no spacer (inside a window, variable radius). `draw`: the pool
  // point's own draw in its window (the loop below rejects most points on it before their
  // transform).
  const float canopyMax = klass.respondsToCanopy() ? std::max(klass.underCrown, klass.inOpen) : 1.f;
  auto preDraw = [&](float x, float z, float draw) {
    if (!(draw < patternMax)) return -1.f;
    patches = patchFactor(klass, s.clumps, s.gaps, x, z);
    if (!(draw < canopyMax * patches)) return -1.f;
    return draw;
  };
  // The exact tests. Other classes first: they reject ~8x more points than the own class does,
  // and their test is one bit for most points. 1: blocked by another class (the blocker in
  // `hole`), 2: by its own.
  auto blocked = [&](float x, float z, float r, Hole& hole) {
    if (grid.isNear(x, z) && findBlocker(s.others, x, z, hole)) return 1;
    return (kVariable ? blockedByOwn(grid, x, z, r) : blockedNear(grid, x, z, radius2)) ? 2 : 0;
  };
  // A sample that does not survive (roulette mode, and seam and hole points) stays in the grid
  // as a spacer until the class is placed, and in the tile's samples for its neighbours, so
  // no other point takes its place.
  std::vector<int>& spacers = s.spacers;
  spacers.clear();
  auto insert = [&](float x, float z, float r, float density, bool alive) {
    const int cell = grid.insert(x, z, r, alive, /*markDisc=*/false);
    placed.push_back({x, z, r, density, cell, alive});
    if (!alive) spacers.push_back(cell);
  };
  // Deeper than one radius inside the blocker's disc, a point marks no gap at its edge.
  auto addHole = [&](const Hole& h) {
    const float dx = h.x - h.ox, dz = h.z - h.oz, e = h.d - radius;
    if (!(e > 0.f && dx * dx + dz * dz < e * e)) holes.push_back(h);
  };
  // A pool point whose delta (times the radius) is `spacing`, past the bucket's bound; `idDraw`
  // its draw in the window (interior points of a patterned class; seam points draw from their
  // position when they survive the spacing tests).
  auto consider = [&](float x, float z, float spacing, bool seamPoint, float idDraw) {
    float draw = -1.f;
    if (kVariable && patterned && !seamPoint && (draw = preDraw(x, z, idDraw)) < 0.f) return;
    float r, density;
    if (!spacingAt(x, z, r, density)) return;
    if (kVariable && spacing < r) return;
    // Variable radius thins only where the radius is clamped, most of a sparse region's
    // points: inside a window the draw comes first (no exact test, no spacer), as the pool is
    // spaced already. A seam point that does not survive still becomes a spacer, or the other
    // window's points would take its place and double the density along seams.
    const bool alive = survives(x, z, density, draw);
    if (kVariable && !alive && !seamPoint) return;
    // The size draw after the survival draw: most points thinned by the pattern never need it.
    // A spacer keeps the base spacing: in a window's interior the points a draw thins hold
    // their neighbours off by the pool's spacing only, and a seam must pack like that.
    if (alive) r = sizedRadius(x, z, r);
    if (kVariable && spacing < r) return;
    if (excludedAt(x, z)) return;
    Hole h;
    if (const int by = blocked(x, z, r, h)) {
      if (by == 1) addHole(h);
      return;
    }
    insert(x, z, r, density, alive);
  };
  // A neighbour's pool point: a hole if another class blocks it near its disc's edge.
  auto marginHole = [&](float x, float z, float spacing) {
    float r, density;
    Hole h;
    if (grid.isNear(x, z) && findBlocker(s.others, x, z, h) && spacingAt(x, z, r, density) && !(kVariable && spacing < r) &&
        !(kVariable && spacing < sizedRadius(x, z, r)))
      addHole(h);
  };
  const uint64_t classKey = hashCombine(p.seed ^ 0x706f6f6c5f636c73ull, uint64_t(cls));
  const double window = double(kPoolWindow) * double(radius);
  // The window grid is shifted per class, so its seams do not follow the tile grid.
  const double gridX = double(classKey >> 40) * (window / 16777216.0), gridZ = double((classKey >> 16) & 0xffffff) * (window / 16777216.0);
  const float reach = 2.f * radius;
  // Pool points of the neighbouring tiles within the largest exclusion distance are looked at
  // too, only as holes: a neighbour's blocked point moved onto an obstacle's disc edge may land
  // in this tile (and this tile's may land in the neighbour, which did the same).
  float holeReach = 0.f;
  for (const OtherClass& o : s.others) holeReach = std::max(holeReach, o.distance);
  const float ex0 = b.x0 - holeReach, ex1 = b.x1 + holeReach, ez0 = b.z0 - holeReach, ez1 = b.z1 + holeReach;
  const int64_t wx0 = int64_t(std::floor((double(ex0 - reach) - gridX) / window));
  const int64_t wx1 = int64_t(std::floor((double(ex1 + reach) - gridX) / window));
  const int64_t wz0 = int64_t(std::floor((double(ez0 - reach) - gridZ) / window));
  const int64_t wz1 = int64_t(std::floor((double(ez1 + reach) - gridZ) / window));
  for (int64_t wz = wz0; wz <= wz1; ++wz)
    for (int64_t wx = wx0; wx <= wx1; ++wx) {
      // Window w's points are taken out to `reach` beyond its edges (within the tile), so
      // near a seam both windows' points compete, by decreasing delta; those within their
      // reach of the window's edge wait for that (SeamPoint).
      const float wx0f = float(gridX + double(wx) * window), wx1f = float(gridX + double(wx + 1) * window);
      const float wz0f = float(gridZ + double(wz) * window), wz1f = float(gridZ + double(wz + 1) * window);
      const float x0 = std::max(ex0, wx0f - reach), x1 = std::min(ex1, wx1f + reach);
      const float z0 = std::max(ez0, wz0f - reach), z1 = std::min(ez1, wz1f + reach);
      if (!(x0 < x1 && z0 < z1)) continue;
      const PoolView view = poolView(classKey, wx, wz);
      const ArrangedPool& pool = arrangedBase();
      // The window's bits for the points' survival draws (ArrangedPoint::bits).
      const uint32_t windowBits = uint32_t(mix64(hashCombine(hashCombine(drawKey, uint64_t(wx)), uint64_t(wz))) >> 32);
      // world = centre + radius * M (t + k * period - offset) for a torus point t and a copy k
      // per axis (the window's square of the torus may wrap): local coordinates l = t + k *
      // period - offset, in class radii.
      const double m00 = view.m00, m01 = view.m01, m10 = view.m10, m11 = view.m11;
      const double centreX = gridX + (double(wx) + 0.5) * window, centreZ = gridZ + (double(wz) + 0.5) * window;
      // The region's corners in local coordinates, in order around it.
      double cornerX[4], cornerZ[4], lz0 = 1e30, lz1 = -1e30;
      for (int k = 0; k < 4; ++k) {
        const double dx = (double(k == 1 || k == 2 ? x1 : x0) - centreX) / double(radius);
        const double dz = (double(k >= 2 ? z1 : z0) - centreZ) / double(radius);
        cornerX[k] = m00 * dx + m10 * dz;  // M^T: M is orthogonal
        cornerZ[k] = m01 * dx + m11 * dz;
        lz0 = std::min(lz0, cornerZ[k]), lz1 = std::max(lz1, cornerZ[k]);
      }
      // The local x range of the region within the band za <= z <= zb: its corners there and
      // its edges' crossings of the band's lines. Buckets outside it are never visited.
      auto rowSpan = [&](double za, double zb, double& xa, double& xb) {
        xa = 1e30, xb = -1e30;
        for (int k = 0; k < 4; ++k) {
          const double px = cornerX[k], pz = cornerZ[k], qx = cornerX[(k + 1) & 3], qz = cornerZ[(k + 1) & 3];
          if (pz >= za && pz <= zb) xa = std::min(xa, px), xb = std::max(xb, px);
          for (const double zc : {za, zb})
            if ((pz - zc) * (qz - zc) <= 0.0 && pz != qz) {
              const double x = px + (zc - pz) / (qz - pz) * (qx - px);
              xa = std::min(xa, x), xb = std::max(xb, x);
            }
        }
        return xa <= xb;
      };
      const double T = double(kPoolPeriod), B = T / kPoolBuckets;
      for (const int kz : {-1, 0, 1})
        for (const int kx : {-1, 0, 1}) {
          // Local coordinates of torus point t in this copy: t + shift.
          const double shiftX = kx * T - double(view.offsetX), shiftZ = kz * T - double(view.offsetZ);
          const int bj0 = std::max(0, int(std::floor((lz0 - shiftZ) / B)));
          const int bj1 = std::min(kPoolBuckets - 1, int(std::floor((lz1 - shiftZ) / B)));
          // Points within this distance of the window's centre (local units, below its half side
          // less the seam reach and a margin for rounding) are interior, whatever the turn.
          const float shiftXf = float(shiftX), shiftZf = float(shiftZ);
          constexpr float kInterior2 = (0.5f * kPoolWindow - 3.f) * (0.5f * kPoolWindow - 3.f);
          auto toWorldX = [&](double lx, double lz) { return centreX + double(radius) * (m00 * lx + m01 * lz); };
          auto toWorldZ = [&](double lx, double lz) { return centreZ + double(radius) * (m10 * lx + m11 * lz); };
          for (int bj = bj0; bj <= bj1; ++bj) {
            double xa, xb;
            if (!rowSpan(bj * B + shiftZ, (bj + 1) * B + shiftZ, xa, xb)) continue;
            const int bi0 = std::max(0, int(std::floor((xa - shiftX) / B)));
            const int bi1 = std::min(kPoolBuckets - 1, int(std::floor((xb - shiftX) / B)));
            for (int bi = bi0; bi <= bi1; ++bi) {
              float minRadius = radius;
              if (field) {
                // The bucket's world bounding box, within the region.
                double bx0 = 1e30, bx1 = -1e30, bz0 = 1e30, bz1 = -1e30;
                for (const int u : {bi, bi + 1})
                  for (const int v : {bj, bj + 1}) {
                    const double lx = u * B + shiftX, lz = v * B + shiftZ;
                    const double wxw = toWorldX(lx, lz), wzw = toWorldZ(lx, lz);
                    bx0 = std::min(bx0, wxw), bx1 = std::max(bx1, wxw), bz0 = std::min(bz0, wzw), bz1 = std::max(bz1, wzw);
                  }
                const float rx0 = std::max(x0, float(bx0)), rx1 = std::min(x1, float(bx1));
                const float rz0 = std::max(z0, float(bz0)), rz1 = std::min(z1, float(bz1));
                if (!(rx0 <= rx1 && rz0 <= rz1)) continue;
                const float bound = unitMaxDensity(field, s, cls, rx0, rz0, rx1, rz1);
                if (!(bound > 0.f)) continue;
                if (kVariable) minRadius = sampleRadius(klass, bound);
              }
              const size_t first = pool.start[size_t(bj * kPoolBuckets + bi)];
              const size_t last = pool.start[size_t(bj * kPoolBuckets + bi) + 1];
              for (size_t k = first; k < last; ++k) {
                const ArrangedPoint& q = pool.points[k];
                const float spacing = q.delta * radius;
                if (spacing < minRadius) break;
                // A patterned class thins most interior points on their draw alone: out before
                // the transform (the same outcome as below, where such a point is dropped by
                // preDraw in the tile or by marginHole outside it).
                float draw = 2.f;
                if (kVariable && patterned) {
                  draw = float((q.bits + windowBits) >> 8) * (1.f / 16777216.f);
                  const float cx = q.x + shiftXf, cz = q.z + shiftZf;
                  if (!(draw < patternMax) && cx * cx + cz * cz < kInterior2) continue;
                }
                const double lx = double(q.x) + shiftX, lz = double(q.z) + shiftZ;
                const float x = float(toWorldX(lx, lz)), z = float(toWorldZ(lx, lz));
                if (!((x >= x0) & (x < x1) & (z >= z0) & (z < z1))) continue;
                const float band = std::min(reach, 2.f * spacing);
                const bool interior = x >= wx0f + band && x < wx1f - band && z >= wz0f + band && z < wz1f - band;
                if (!((x >= b.x0) & (x < b.x1) & (z >= b.z0) & (z < b.z1))) {
                  // A neighbour's interior point its draw thins makes no hole there either.
                  if (!(kVariable && patterned && interior && !(draw < patternMax))) marginHole(x, z, spacing);
                  continue;
                }
                if (interior)
                  consider(x, z, spacing, false, draw);
                else if (x >= wx0f - band && x < wx1f + band && z >= wz0f - band && z < wz1f + band)
                  seam.push_back({x, z, q.delta});
              }
            }
          }
        }
    }

  // By decreasing delta, ties in collection order: one 64-bit key per point (delta > 0, so
  // its bits order like its value).
  std::vector<uint64_t>& order = s.seamOrder;
  order.resize(seam.size());
  for (size_t i = 0; i < seam.size(); ++i)
    order[i] = uint64_t(~std::bit_cast<uint32_t>(seam[i].delta)) << 32 | uint64_t(i);
  std::sort(order.begin(), order.end());
  for (const uint64_t k : order) {
    const SeamPoint& q = seam[size_t(uint32_t(k))];
    consider(q.x, q.z, q.delta * radius, true, -1.f);
  }

  for (const Hole& h : holes) {
    const float dx = h.x - h.ox, dz = h.z - h.oz, len = std::sqrt(dx * dx + dz * dz);
    if (!(len > 0.f)) continue;
    const float scale = h.d * (1.f + 1.f / 4096.f) / len;
    const float x = h.ox + dx * scale, z = h.oz + dz * scale;
    if (!((x >= b.x0) & (x < b.x1) & (z >= b.z0) & (z < b.z1))) continue;
    float r, density;
    Hole blocker;
    if (!spacingAt(x, z, r, density)) continue;
    // A spacer if it does not survive, at the base spacing (as above).
    const bool alive = survives(x, z, density, -1.f);
    if (alive) r = sizedRadius(x, z, r);
    if (excludedAt(x, z) || blocked(x, z, r, blocker)) continue;
    insert(x, z, r, density, alive);
  }
  for (const int cell : spacers) grid.erase(cell);
}

}  // namespace

// Here, not in pool.cpp: the build tool that generates basePool() links pool.cpp.
const ArrangedPool& arrangedBase() {
  static const ArrangedPool arranged = arrangePool(basePool());
  return arranged;
}

void placeClassFromPool(const SamplerSetup& setup, const TileBounds& b, int cls, TileScratch& s, bool variable) {
  if (variable)
    placeFromPool<true>(setup, b, cls, s);
  else
    placeFromPool<false>(setup, b, cls, s);
}

}  // namespace eco::sampling
