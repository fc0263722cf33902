#pragma once
// Rounding without the library call, the one set every stage uses: x86-64's baseline (before
// SSE4.1) has no rounding instruction, so std::floor and std::lround are calls, and these run
// per pixel and per instance. Each gives the library's result on its domain (x - trunc(x) is
// exact there); the comments say what happens outside it.
#include <cstdint>

namespace eco {

// std::floor as an int, exact for |x| < 2^31. NaN gives INT_MIN, as int(std::floor(NaN))
// does on x86.
inline int floorToInt(float x) {
  const int t = int(x);
  return t - int(float(t) > x);
}

// std::lround for 0 <= x < 2^32 (half away from zero).
inline uint32_t roundNonNegative(double x) {
  const uint32_t i = uint32_t(x);
  return i + (x - double(i) >= 0.5);
}
inline uint32_t roundNonNegative(float x) {
  const uint32_t i = uint32_t(x);
  return i + (x - float(i) >= 0.5f);
}

// lround(clamp(v, 0, 1) * 255) and * 65535, in float; NaN gives 0.
inline uint8_t unorm8(float v) { return uint8_t(roundNonNegative(v > 0.f ? (v < 1.f ? v : 1.f) * 255.f : 0.f)); }
inline uint16_t unorm16(float v) { return uint16_t(roundNonNegative(v > 0.f ? (v < 1.f ? v : 1.f) * 65535.f : 0.f)); }

}  // namespace eco
