#include "noise.h"

#include <cmath>

#include "core/noise.h"

namespace eco::sample {
namespace {

// Each octave is rotated so lattice axes do not line up across octaves.
constexpr float kRotCos = 0.8f, kRotSin = 0.6f;

}  // namespace

float fbm(float x, float y, int octaves, uint64_t seed) {
  float sum = 0, amplitude = 1, total = 0;
  for (int o = 0; o < octaves; ++o) {
    sum += amplitude * gradientNoise64(seed + uint64_t(o), x, y);
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
    float signal = 1 - std::abs(gradientNoise64(seed + 101 + uint64_t(o), x, y));
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
