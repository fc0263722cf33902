#pragma once
// Quantization used by the tile format (schemas/tile.fbs). Encoding and decoding live side by
// side so the error bounds are easy to check:
//   unorm16 over [lo, hi]: step (hi - lo) / 65535, error <= step / 2.
//   yaw u16 over [0, 2 pi): error <= pi / 65536.
//   up vector, octahedral snorm8x2: angular error < 0.012 rad (0.7 degrees), from the best of
//   the four nearest codes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "core/rounding.h"
#include "core/types.h"

namespace eco {

// Inline: four per instance, in the tile encoder's loop.
inline uint16_t quantizeUnorm16(double value, double lo, double hi) {  // clamps to [lo, hi]
  if (!(hi > lo)) return 0;  // zero-size range (or NaN): everything decodes to lo
  double t = (value - lo) / (hi - lo);
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0);
  return uint16_t(roundNonNegative(t * 65535.0));
}
float dequantizeUnorm16(uint16_t q, float lo, float hi);

inline uint16_t quantizeYaw(double radians) {  // any angle; wrapped to [0, 2 pi)
  constexpr double kTwoPi = 2 * std::numbers::pi;
  double turns = radians / kTwoPi;
  // turns - floor(turns) without the library call: truncation, one lower for negative
  // non-integers. From 2^52 on every double is an integer; NaN and infinities give 0, as
  // the library's inf - inf = NaN did.
  if (!(std::abs(turns) < 4503599627370496.0)) {
    turns = 0;
  } else {
    double whole = double(int64_t(turns));
    if (whole > turns) whole -= 1.0;
    turns -= whole;
  }
  return uint16_t(roundNonNegative(turns * 65536.0) & 0xffff);  // 65536 wraps to 0
}
float dequantizeYaw(uint16_t q);

// Octahedral encoding with y as the pole: low byte u (x), high byte v (z), snorm8 each.
// (0, 0) is straight up. `up` need not be normalized; zero or non-finite vectors give up (0).
uint16_t encodeOctahedral(Vec3 up);
Vec3 decodeOctahedral(uint16_t packed);  // unit length

}  // namespace eco
