#pragma once
// Rounding without the library call: x86-64's baseline (before SSE4.1) has no rounding
// instruction, so std::floor is a call. Exact for |x| < 2^31.

namespace eco {

// std::floor as an int: truncation, one lower for negative non-integers. NaN gives INT_MIN, as
// int(std::floor(NaN)) does on x86.
inline int floorToInt(float x) {
  const int t = int(x);
  return t - int(float(t) > x);
}

}  // namespace eco
