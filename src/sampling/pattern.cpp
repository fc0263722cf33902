// Natural point patterns: patch fields (a Boolean model of discs), the size draw and the
// canopy grid. Only IEEE arithmetic and integer hashing on the positions (libm only once per
// field, in makePatchField), so every compiler gives the same bits.
#include "sampling/pattern.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

#include "core/hash.h"

namespace eco {

namespace {
// Cells of the patch field, in mean patch radii: a disc's radius is at most 1.5 of them, so
// a point meets only the discs of its own cell and the 8 around it.
constexpr float kPatchCell = 3.f;
constexpr int kMaxPerCell = 64;
float unit(uint64_t h) { return float(h >> 40) * (1.f / 16777216.f); }
}  // namespace

PatchField makePatchField(float share, float radius, uint64_t key) {
  PatchField f;
  if (!(share > 0.f) || !(radius > 0.f)) return f;
  f.share = std::min(share, 0.95f);
  f.radius = radius;
  f.key = key;
  // P(inside) = 1 - exp(-lambda pi E[rho^2]), rho uniform in [0.5, 1.5] R: E[rho^2] = 13/12 R^2.
  // Per cell of (3R)^2: mu = lambda 9 R^2 = -ln(1 - share) * 9 / (pi 13 / 12).
  const double mu = -std::log1p(-double(f.share)) * 9.0 / (std::numbers::pi * 13.0 / 12.0);
  f.perCell = float(mu);
  f.expNegPerCell = float(std::exp(-mu));
  return f;
}

namespace {

// Calls fn(cx, cz, r) for every disc of the cells (i0..i1, j0..j1).
template <class Fn>
void forEachDisc(const PatchField& f, uint64_t seed, int64_t i0, int64_t j0, int64_t i1, int64_t j1, Fn&& fn) {
  const float cell = kPatchCell * f.radius;
  const uint64_t base = hashCombine(seed ^ 0x7061746368657321ull, f.key);
  for (int64_t j = j0; j <= j1; ++j)
    for (int64_t i = i0; i <= i1; ++i) {
      Rng rng(hashCombine(base, uint64_t(i) * 0x9E3779B97F4A7C15ull ^ uint64_t(j)));
      // Poisson count by inversion (float, a bounded number of steps).
      const float u = rng.uniform();
      float p = f.expNegPerCell, cdf = p;
      int n = 0;
      while (u >= cdf && n < kMaxPerCell) {
        ++n;
        p = p * f.perCell / float(n);
        cdf += p;
      }
      for (int k = 0; k < n; ++k) {
        const float px = (float(i) + rng.uniform()) * cell, pz = (float(j) + rng.uniform()) * cell;
        fn(px, pz, f.radius * (0.5f + rng.uniform()));
      }
    }
}

int64_t cellIndex(float v, float cell) { return int64_t(std::floor(v / cell)); }

}  // namespace

bool insidePatch(const PatchField& f, uint64_t seed, float x, float z) {
  if (!f.active()) return false;
  const float pixel = patchPixel(f), inv = 1.f / pixel, cell = kPatchCell * f.radius;
  // The pixel's centre exactly as PatchRaster computes it.
  const float xc = (float(int64_t(std::floor(x * inv))) + 0.5f) * pixel;
  const float zc = (float(int64_t(std::floor(z * inv))) + 0.5f) * pixel;
  const int64_t cx = cellIndex(xc, cell), cz = cellIndex(zc, cell);
  bool inside = false;
  forEachDisc(f, seed, cx - 1, cz - 1, cx + 1, cz + 1, [&](float px, float pz, float r) {
    const float dx = xc - px, dz = zc - pz;
    inside |= dx * dx + dz * dz < r * r;
  });
  return inside;
}

namespace sampling {

void PatchRaster::build() {
  built = true;
  if (!field) return;
  const PatchField& f = pending.f;
  const uint64_t seed = pending.seed;
  const float x0 = pending.x0, z0 = pending.z0, x1 = pending.x1, z1 = pending.z1;
  pixel = patchPixel(f);
  invPixel = 1.f / pixel;
  i0 = int64_t(std::floor(x0 * invPixel)) - 1;
  j0 = int64_t(std::floor(z0 * invPixel)) - 1;
  nx = int(int64_t(std::floor(x1 * invPixel)) + 2 - i0);
  nz = int(int64_t(std::floor(z1 * invPixel)) + 2 - j0);
  words = (nx + 63) / 64;
  bits.assign(size_t(words) * size_t(nz), 0);
  const float cell = kPatchCell * f.radius, reach = 1.5f * f.radius;
  forEachDisc(f, seed, cellIndex(float(i0) * pixel - reach, cell), cellIndex(float(j0) * pixel - reach, cell),
              cellIndex(float(i0 + nx) * pixel + reach, cell), cellIndex(float(j0 + nz) * pixel + reach, cell),
              [&](float px, float pz, float r) {
                // Pixels whose centre lies in the disc: the same test as insidePatch.
                const int64_t a0 = std::max<int64_t>(i0, int64_t(std::floor((px - r) / pixel)) - 1);
                const int64_t a1 = std::min<int64_t>(i0 + nx - 1, int64_t(std::floor((px + r) / pixel)) + 1);
                const int64_t b0 = std::max<int64_t>(j0, int64_t(std::floor((pz - r) / pixel)) - 1);
                const int64_t b1 = std::min<int64_t>(j0 + nz - 1, int64_t(std::floor((pz + r) / pixel)) + 1);
                for (int64_t j = b0; j <= b1; ++j) {
                  const float dz = (float(j) + 0.5f) * pixel - pz;
                  uint64_t* row = bits.data() + size_t(j - j0) * size_t(words);
                  for (int64_t i = a0; i <= a1; ++i) {
                    const float dx = (float(i) + 0.5f) * pixel - px;
                    if (dx * dx + dz * dz < r * r) row[size_t(i - i0) >> 6] |= uint64_t(1) << (size_t(i - i0) & 63);
                  }
                }
              });
}

}  // namespace sampling

float sizeDraw(uint64_t seed, int cls, float x, float z) {
  const uint64_t pos = uint64_t(std::bit_cast<uint32_t>(x)) << 32 | std::bit_cast<uint32_t>(z);
  return unit(hashCombine(hashCombine(seed ^ 0x53697a6544726177ull, uint64_t(cls)), pos));
}

namespace sampling {

void CanopyGrid::build(const std::vector<Crown>& all, float bx0, float bz0, float bx1, float bz1, float maxCrown) {
  // At least the largest crown (a query reads 3 x 3 cells), at most 256 cells a side.
  cell = std::max({maxCrown, 1e-3f, (bx1 - bx0) / 256.f, (bz1 - bz0) / 256.f});
  invCell = 1.f / cell;
  x0 = bx0 - cell;
  z0 = bz0 - cell;
  nx = std::max(1, int((bx1 + cell - x0) * invCell) + 1);
  nz = std::max(1, int((bz1 + cell - z0) * invCell) + 1);
  start.assign(size_t(nx) * size_t(nz) + 1, 0);
  cellOf.clear();
  crowns.clear();
  // Counting sort by cell; crowns outside the grid cannot reach the tile.
  std::vector<uint32_t>& ids = cellOf;
  for (const Crown& c : all) {
    const int i = int(std::floor((c.x - x0) * invCell)), j = int(std::floor((c.z - z0) * invCell));
    ids.push_back(i < 0 || j < 0 || i >= nx || j >= nz ? ~0u : uint32_t(j * nx + i));
  }
  for (const uint32_t id : ids)
    if (id != ~0u) ++start[id + 1];
  for (size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  crowns.resize(start.back());
  std::vector<uint32_t> fill(start.begin(), start.end() - 1);
  for (size_t k = 0; k < all.size(); ++k)
    if (ids[k] != ~0u) crowns[fill[ids[k]]++] = all[k];
}

bool CanopyGrid::shaded(float x, float z) const {
  if (crowns.empty()) return false;
  const int ci = int(std::floor((x - x0) * invCell)), cj = int(std::floor((z - z0) * invCell));
  for (int j = std::max(0, cj - 1); j <= std::min(nz - 1, cj + 1); ++j)
    for (int i = std::max(0, ci - 1); i <= std::min(nx - 1, ci + 1); ++i) {
      const size_t c = size_t(j) * size_t(nx) + size_t(i);
      for (uint32_t k = start[c]; k < start[c + 1]; ++k) {
        const Crown& q = crowns[k];
        const float dx = x - q.x, dz = z - q.z;
        if (dx * dx + dz * dz < q.r2) return true;
      }
    }
  return false;
}


}  // namespace sampling
}  // namespace eco
