#pragma once
// Quantization used by the tile format (schemas/tile.fbs). Encoding and decoding live side by
// side so the error bounds are easy to check:
//   unorm16 over [lo, hi]: step (hi - lo) / 65535, error <= step / 2.
//   yaw u16 over [0, 2 pi): error <= pi / 65536.
//   up vector, octahedral snorm8x2: angular error < 0.012 rad (0.7 degrees), from the best of
//   the four nearest codes.
#include <cstdint>

#include "core/types.h"

namespace eco {

uint16_t quantizeUnorm16(double value, double lo, double hi);  // clamps to [lo, hi]
float dequantizeUnorm16(uint16_t q, float lo, float hi);

uint16_t quantizeYaw(double radians);  // any angle; wrapped to [0, 2 pi)
float dequantizeYaw(uint16_t q);

// Octahedral encoding with y as the pole: low byte u (x), high byte v (z), snorm8 each.
// (0, 0) is straight up. `up` need not be normalized but must be non-zero.
uint16_t encodeOctahedral(Vec3 up);
Vec3 decodeOctahedral(uint16_t packed);  // unit length

}  // namespace eco
