#include "tileio/quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/rounding.h"

namespace eco {

float dequantizeUnorm16(uint16_t q, float lo, float hi) {
  return float(double(lo) + double(q) / 65535.0 * (double(hi) - double(lo)));
}

float dequantizeYaw(uint16_t q) { return float(double(q) / 65536.0 * 2 * std::numbers::pi); }

// clamp(lround(v * 127), -127, 127), NaN giving -127 as x86's lround does; rounding half away
// from zero by hand (a - trunc(a) is exact) saves the library call.
static int8_t snorm8(float v) {
  float x = v * 127.f, a = std::abs(x);
  if (!(a <= 127.f)) return x > 0 ? 127 : -127;
  int r = int(a) + (a - float(int(a)) >= 0.5f);
  return int8_t(x < 0 ? -r : r);
}

static uint16_t packOct(int u, int v) { return uint16_t(uint8_t(int8_t(u)) | (uint8_t(int8_t(v)) << 8)); }

using f4 = float __attribute__((vector_size(16)));

// The three divisions as one 4-lane division: each lane is the same IEEE division, so the
// same bits with one division latency instead of three.
static Vec3 normalize(Vec3 v) {
  const float len = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  if (!(len > 0)) return {0, 1, 0};
  const f4 q = f4{v.x, v.y, v.z, 0.f} / f4{len, len, len, 1.f};
  return {q[0], q[1], q[2]};
}

Vec3 decodeOctahedral(uint16_t packed) {
  float u = std::max(float(int8_t(packed & 0xff)) / 127.f, -1.f);
  float v = std::max(float(int8_t(packed >> 8)) / 127.f, -1.f);
  float y = 1.f - std::abs(u) - std::abs(v);
  if (y < 0) {  // lower hemisphere: the corners of the square fold back over the diamond
    float fu = (1.f - std::abs(v)) * (u >= 0 ? 1.f : -1.f);
    float fv = (1.f - std::abs(u)) * (v >= 0 ? 1.f : -1.f);
    u = fu;
    v = fv;
  }
  return normalize({u, y, v});
}

// decodeOctahedral of every code, for encodeOctahedral's candidates.
static const Vec3* decodedCodes() {
  static const std::vector<Vec3> table = [] {
    std::vector<Vec3> t(65536);
    for (size_t c = 0; c < t.size(); ++c) t[c] = decodeOctahedral(uint16_t(c));
    return t;
  }();
  return table.data();
}

uint16_t encodeOctahedral(Vec3 up) {
  if (up.x == 0 && up.y == 1 && up.z == 0) return 0;  // every untilted instance; what the search finds
  // The projection and the ranking of candidates by dot product are both independent of the
  // length of `up`, so it is never normalised.
  const float l1 = std::abs(up.x) + std::abs(up.y) + std::abs(up.z);
  if (!(l1 > 0.f && l1 <= std::numeric_limits<float>::max())) return 0;  // zero or not finite: up
  // Both divisions by l1 in one 4-lane division, as in normalize().
  const f4 uv = f4{up.x, up.z, 0.f, 0.f} / f4{l1, l1, 1.f, 1.f};
  float u = uv[0], v = uv[1];
  if (up.y < 0) {
    float fu = (1.f - std::abs(v)) * (u >= 0 ? 1.f : -1.f);
    float fv = (1.f - std::abs(u)) * (v >= 0 ? 1.f : -1.f);
    u = fu;
    v = fv;
  }
  // Rounding each coordinate is not always the closest direction; try the 2x2 neighbourhood
  // (which holds the rounded code too). A neighbour replaces the rounded code only when
  // strictly closer.
  const int u0 = std::clamp(floorToInt(u * 127.f), -127, 127), v0 = std::clamp(floorToInt(v * 127.f), -127, 127);
  const int u1 = std::min(u0 + 1, 127), v1 = std::min(v0 + 1, 127);
  const Vec3* decoded = decodedCodes();
  const uint16_t codes[4] = {packOct(u0, v0), packOct(u0, v1), packOct(u1, v0), packOct(u1, v1)};
  float dots[4];
  for (int k = 0; k < 4; ++k) {
    const Vec3& c = decoded[codes[k]];
    dots[k] = c.x * up.x + c.y * up.y + c.z * up.z;
  }
  // The rounded code is one of the four (lround is floor or floor + 1).
  int best = (snorm8(u) == u0 ? 0 : 2) + (snorm8(v) == v0 ? 0 : 1);
  for (int k = 0; k < 4; ++k)
    if (dots[k] > dots[best]) best = k;
  return codes[best];
}

}  // namespace eco
