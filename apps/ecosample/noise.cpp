#include "noise.h"

#include <array>
#include <cmath>
#include <numbers>

#include "core/hash.h"

namespace eco::sample {
namespace {

constexpr int kDirections = 64;

const std::array<std::array<float, 2>, kDirections>& gradients() {
  static const auto table = [] {
    std::array<std::array<float, 2>, kDirections> t{};
    for (int i = 0; i < kDirections; ++i) {
      double a = 2 * std::numbers::pi * (i + 0.5) / kDirections;
      t[size_t(i)] = {float(std::cos(a)), float(std::sin(a))};
    }
    return t;
  }();
  return table;
}

float latticeDot(int ix, int iy, float dx, float dy, uint64_t seed) {
  uint64_t h = hashCombine(hashCombine(seed, uint64_t(uint32_t(ix))), uint64_t(uint32_t(iy)));
  const auto& g = gradients()[h % kDirections];
  return g[0] * dx + g[1] * dy;
}

float fade(float t) { return t * t * t * (t * (t * 6 - 15) + 10); }

// Each octave is rotated so lattice axes do not line up across octaves.
constexpr float kRotCos = 0.8f, kRotSin = 0.6f;

}  // namespace

float gradientNoise(float x, float y, uint64_t seed) {
  float fx = std::floor(x), fy = std::floor(y);
  int ix = int(fx), iy = int(fy);
  float dx = x - fx, dy = y - fy;
  float n00 = latticeDot(ix, iy, dx, dy, seed);
  float n10 = latticeDot(ix + 1, iy, dx - 1, dy, seed);
  float n01 = latticeDot(ix, iy + 1, dx, dy - 1, seed);
  float n11 = latticeDot(ix + 1, iy + 1, dx - 1, dy - 1, seed);
  float u = fade(dx), v = fade(dy);
  float a = n00 + (n10 - n00) * u;
  float b = n01 + (n11 - n01) * u;
  return 1.4f * (a + (b - a) * v);
}

float fbm(float x, float y, int octaves, uint64_t seed) {
  float sum = 0, amplitude = 1, total = 0;
  for (int o = 0; o < octaves; ++o) {
    sum += amplitude * gradientNoise(x, y, seed + uint64_t(o));
    total += amplitude;
    float rx = kRotCos * x - kRotSin * y, ry = kRotSin * x + kRotCos * y;
    x = rx * 2.03f + 17.1f;
    y = ry * 2.03f - 5.3f;
    amplitude *= 0.5f;
  }
  return sum / total;
}

float ridged(float x, float y, int octaves, uint64_t seed) {
  float sum = 0, amplitude = 1, total = 0, weight = 1;
  for (int o = 0; o < octaves; ++o) {
    float signal = 1 - std::abs(gradientNoise(x, y, seed + 101 + uint64_t(o)));
    signal *= signal * weight;
    weight = std::fmin(1.f, signal * 2);
    sum += amplitude * signal;
    total += amplitude;
    float rx = kRotCos * x - kRotSin * y, ry = kRotSin * x + kRotCos * y;
    x = rx * 2.07f - 3.7f;
    y = ry * 2.07f + 11.9f;
    amplitude *= 0.5f;
  }
  return sum / total;
}

}  // namespace eco::sample
