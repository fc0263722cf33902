#include "world_synth.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/hash.h"
#include "noise.h"

namespace eco::sample {
namespace {

constexpr float kTwoPi = 2 * std::numbers::pi_v<float>;

float smoothstep(float a, float b, float x) {
  float t = std::clamp((x - a) / (b - a), 0.f, 1.f);
  return t * t * (3 - 2 * t);
}

float segmentDistance(Vec2 a, Vec2 b, float x, float z) {
  float ex = b.x - a.x, ez = b.z - a.z;
  float len2 = ex * ex + ez * ez;
  float t = len2 > 0 ? std::clamp(((x - a.x) * ex + (z - a.z) * ez) / len2, 0.f, 1.f) : 0.f;
  return std::hypot(x - (a.x + t * ex), z - (a.z + t * ez));
}

}  // namespace

static float valleyAxis(float u, float phase) { return 0.66f + 0.05f * std::sin(kTwoPi * (1.6f * u + phase)); }

static float valleyFloor(float u) { return kMinElevation + 15.f + 150.f * std::pow(std::clamp(1 - u, 0.f, 1.f), 1.3f); }

River makeRiver(float extent, uint64_t seed) {
  Rng rng(hashCombine(seed, 0x52495645ull));
  River river;
  float phase1 = rng.uniform(), phase2 = rng.uniform();
  const int n = 700;
  for (int i = 0; i <= n; ++i) {
    float u = -0.03f + 1.06f * float(i) / n;  // past both edges
    float z = valleyAxis(u, phase1) + 0.022f * std::sin(kTwoPi * (4.1f * u + phase2)) +
              0.012f * fbm(u * 9, 3.5f, 3, seed + 7);
    river.points.push_back({u * extent, z * extent});
  }
  return river;
}

float riverZ(const River& river, float x) {
  const std::vector<Vec2>& p = river.points;
  auto above = std::lower_bound(p.begin(), p.end(), x, [](Vec2 v, float value) { return v.x < value; });
  size_t i = size_t(std::clamp<ptrdiff_t>(above - p.begin(), 1, ptrdiff_t(p.size()) - 1));
  float t = std::clamp((x - p[i - 1].x) / (p[i].x - p[i - 1].x), 0.f, 1.f);
  return p[i - 1].z + t * (p[i].z - p[i - 1].z);
}

float riverDistanceAt(const River& river, float x, float z) {
  const std::vector<Vec2>& p = river.points;
  // Vertices are sorted by x, so only segments within the best distance so far along x can
  // be closer; start from the segment straddling x.
  auto above = std::lower_bound(p.begin(), p.end(), x, [](Vec2 v, float value) { return v.x < value; });
  size_t start = size_t(std::clamp<ptrdiff_t>(above - p.begin() - 1, 0, ptrdiff_t(p.size()) - 2));
  float best = INFINITY;
  auto visit = [&](size_t i) { best = std::min(best, segmentDistance(p[i], p[i + 1], x, z)); };
  for (size_t i = start; i + 1 < p.size() && p[i].x <= x + best; ++i) visit(i);
  for (size_t i = start; i-- > 0 && p[i + 1].x >= x - best;) visit(i);
  return best;
}

// The large-scale shape along each north-south line: gentle rise from the river up to
// the crest of the east-west ridge, a shorter drop to the north edge, foothills to the south.
static float macroProfile(float v, float crest, float axis, float floor, float crestHeight) {
  // U-shaped: flat at the river, steepest part well up the flank.
  auto rise = [](float t) { return 0.35f * t * t + 0.65f * smoothstep(0.f, 1.f, t); };
  if (v < crest) return crestHeight - 750.f * smoothstep(0.f, 1.f, (crest - v) / crest);
  if (v < axis) return floor + (crestHeight - floor) * rise((axis - v) / (axis - crest));
  return floor + 950.f * rise((v - axis) / (1 - axis));
}

// Ground before the floodplain is flattened: the macro profile plus ridged detail that grows
// sharper with altitude and a little fine roughness.
static float mountains(float x, float z, float extent, float riverLine, float floor, uint64_t seed) {
  float u = x / extent, v = z / extent;
  float crest = 0.2f + 0.03f * std::sin(kTwoPi * (1.2f * u + 0.3f)) + 0.03f * fbm(u * 3, 0.5f, 3, seed + 1);
  float crestHeight = 2150.f + 150.f * fbm(u * 4, 9.1f, 2, seed + 2);
  float macro = macroProfile(v, crest, riverLine / extent, floor, crestHeight);
  macro += 120.f * fbm(x / 2500.f, z / 2500.f, 3, seed + 3) * smoothstep(0.f, 400.f, macro - floor);
  float rugged = 60.f + 480.f * smoothstep(1000.f, 2200.f, macro);
  float detail = rugged * (ridged(x / 1800.f, z / 1800.f, 7, seed + 4) - 0.3f);
  return macro + detail + 20.f * fbm(x / 400.f, z / 400.f, 5, seed + 5);
}

// Sharp rock steps on the ridge's south flank: where a band of noise is high, height is
// pulled toward a staircase so the risers are steeper than 45 degrees.
static float cliffs(float h, float x, float z, uint64_t seed) {
  float band = smoothstep(0.35f, 0.5f, fbm(x / 1500.f, z / 1500.f, 2, seed + 6)) * smoothstep(1300.f, 1600.f, h);
  const float step = 90.f;
  float k = std::floor(h / step);
  float f = h / step - k;
  float stair = (k + smoothstep(0.6f, 0.9f, f)) * step;
  return h + band * (stair - h);
}

Grid synthesizeHeights(int size, const River& river, uint64_t seed) {
  Grid g(size, size);
  float extent = float(size - 1) * kCellSize;
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < size; ++i) {
      float x = float(i) * kCellSize, z = float(j) * kCellSize;
      float u = x / extent;
      float floor = valleyFloor(u);
      float h = cliffs(mountains(x, z, extent, riverZ(river, x), floor, seed), x, z, seed);
      // Flat floodplain hugging the river.
      float fromRiver = riverDistanceAt(river, x, z);
      h = floor + std::max(h - floor, 0.f) * smoothstep(20.f, 220.f, fromRiver);
      h -= 5.f * (1 - smoothstep(kRiverHalfWidth - 4, kRiverHalfWidth + 4, fromRiver));  // channel
      g.at(i, j) = std::clamp(h, kMinElevation, kMaxElevation);
    }
  return g;
}

Grid riverDistance(int size, float extent, const River& river) {
  Grid g(size, size);
  float cell = extent / float(size - 1);
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < size; ++i)
      g.at(i, j) = std::max(riverDistanceAt(river, float(i) * cell, float(j) * cell) - kRiverHalfWidth, 0.f);
  return g;
}

}  // namespace eco::sample
