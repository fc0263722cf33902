#include "core/noise.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "core/hash.h"
#include "core/rounding.h"

namespace eco {

namespace {

float fade(float t) { return t * t * t * (t * (t * 6.f - 15.f) + 10.f); }

// 16 evenly spread unit gradients (cos, sin of k * 22.5 degrees); enough for low-frequency
// moisture variation.
constexpr float kGradients16[16][2] = {
    {1.f, 0.f},         {0.92388f, 0.38268f},   {0.70711f, 0.70711f},   {0.38268f, 0.92388f},
    {0.f, 1.f},         {-0.38268f, 0.92388f},  {-0.70711f, 0.70711f},  {-0.92388f, 0.38268f},
    {-1.f, 0.f},        {-0.92388f, -0.38268f}, {-0.70711f, -0.70711f}, {-0.38268f, -0.92388f},
    {0.f, -1.f},        {0.38268f, -0.92388f},  {0.70711f, -0.70711f},  {0.92388f, -0.38268f}};

// 64 unit gradients at (k + 1/2) * 5.625 degrees, for the finer detail of synthetic terrain.
const float (*gradients64())[2] {
  static const auto table = [] {
    std::array<float[2], 64> t{};
    for (size_t i = 0; i < t.size(); ++i) {
      const double a = 2 * std::numbers::pi * (double(i) + 0.5) / double(t.size());
      t[i][0] = float(std::cos(a));
      t[i][1] = float(std::sin(a));
    }
    return t;
  }();
  return table.data();
}

struct GradientSet {
  const float (*directions)[2];
  uint32_t mask;  // count - 1 (a power of two)
  float scale;    // brings the raw range (about [-0.71, 0.71]) to about [-1, 1]
};

// The gradient index of a lattice corner. Rasters sample the noise far more finely than its
// lattice (a 900 m wavelength over 6 m pixels), so nearly every corner was hashed many times
// in a row: a small per-thread direct-mapped cache returns the same index without the hash.
unsigned cornerGradient(uint64_t seed, uint32_t mask, int32_t ix, int32_t iz) {
  struct Entry {
    uint64_t seed;
    int32_t ix, iz;
    uint8_t gradient, mask, filled;
  };
  thread_local Entry cache[64];
  Entry& e = cache[((uint32_t(ix) * 0x9E3779B1u) ^ (uint32_t(iz) * 0x85EBCA77u) ^ uint32_t(seed)) >> 26];
  if (e.filled && e.seed == seed && e.ix == ix && e.iz == iz && e.mask == mask) return e.gradient;
  const uint64_t h = hashCombine(hashCombine(seed, uint32_t(ix)), uint32_t(iz));
  e = {seed, ix, iz, uint8_t(h & mask), uint8_t(mask), 1};
  return e.gradient;
}

float cornerDot(const GradientSet& set, uint64_t seed, int32_t ix, int32_t iz, float dx, float dz) {
  const float* g = set.directions[cornerGradient(seed, set.mask, ix, iz)];
  return g[0] * dx + g[1] * dz;
}

float latticeNoise(const GradientSet& set, uint64_t seed, float x, float z) {
  const int32_t ix = floorToInt(x), iz = floorToInt(z);
  const float fx = float(ix), fz = float(iz);
  float dx = x - fx, dz = z - fz;
  float n00 = cornerDot(set, seed, ix, iz, dx, dz);
  float n10 = cornerDot(set, seed, ix + 1, iz, dx - 1.f, dz);
  float n01 = cornerDot(set, seed, ix, iz + 1, dx, dz - 1.f);
  float n11 = cornerDot(set, seed, ix + 1, iz + 1, dx - 1.f, dz - 1.f);
  float u = fade(dx), v = fade(dz);
  float a = n00 + (n10 - n00) * u;
  float b = n01 + (n11 - n01) * u;
  return (a + (b - a) * v) * set.scale;
}

}  // namespace

float gradientNoise(uint64_t seed, float x, float z) { return latticeNoise({kGradients16, 15u, 1.41421356f}, seed, x, z); }

float gradientNoise64(uint64_t seed, float x, float z) { return latticeNoise({gradients64(), 63u, 1.4f}, seed, x, z); }

float fbmNoise01(uint64_t seed, float x, float z, float wavelength, int octaves) {
  float frequency = 1.f / wavelength, amplitude = 1.f, sum = 0.f, norm = 0.f;
  for (int o = 0; o < octaves; ++o) {
    sum += amplitude * gradientNoise(hashCombine(seed, uint64_t(o)), x * frequency, z * frequency);
    norm += amplitude;
    frequency *= 2.f;
    amplitude *= 0.5f;
  }
  // Sums of octaves rarely leave [-0.6, 0.6]; stretch so moisture spans [0, 1].
  return std::clamp(0.5f + 0.8f * sum / norm, 0.f, 1.f);
}

}  // namespace eco
