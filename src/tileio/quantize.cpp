#include "tileio/quantize.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace eco {

uint16_t quantizeUnorm16(double value, double lo, double hi) {
  if (!(hi > lo)) return 0;  // zero-size range (or NaN): everything decodes to lo
  double t = (value - lo) / (hi - lo);
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0);
  return uint16_t(std::lround(t * 65535.0));
}

float dequantizeUnorm16(uint16_t q, float lo, float hi) {
  return float(double(lo) + double(q) / 65535.0 * (double(hi) - double(lo)));
}

uint16_t quantizeYaw(double radians) {
  constexpr double twoPi = 2 * std::numbers::pi;
  double turns = radians / twoPi;
  turns -= std::floor(turns);
  if (std::isnan(turns)) turns = 0;
  return uint16_t(uint32_t(std::lround(turns * 65536.0)) & 0xffff);  // 65536 wraps to 0
}

float dequantizeYaw(uint16_t q) { return float(double(q) / 65536.0 * 2 * std::numbers::pi); }

static int8_t snorm8(float v) { return int8_t(std::clamp(std::lround(v * 127.f), -127l, 127l)); }

static uint16_t packOct(int u, int v) { return uint16_t(uint8_t(int8_t(u)) | (uint8_t(int8_t(v)) << 8)); }

static Vec3 normalize(Vec3 v) {
  float len = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  return len > 0 ? Vec3{v.x / len, v.y / len, v.z / len} : Vec3{0, 1, 0};
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

uint16_t encodeOctahedral(Vec3 up) {
  Vec3 n = normalize(up);
  float l1 = std::abs(n.x) + std::abs(n.y) + std::abs(n.z);
  float u = n.x / l1, v = n.z / l1;
  if (n.y < 0) {
    float fu = (1.f - std::abs(v)) * (u >= 0 ? 1.f : -1.f);
    float fv = (1.f - std::abs(u)) * (v >= 0 ? 1.f : -1.f);
    u = fu;
    v = fv;
  }
  // Rounding each coordinate is not always the closest direction; try the 2x2 neighbourhood.
  // The rounded code is one of the four (round is floor or floor + 1, clamped alike), so its
  // dot is taken from there; a neighbour replaces it only when strictly closer.
  int u0 = std::clamp(int(std::floor(u * 127.f)), -127, 127);
  int v0 = std::clamp(int(std::floor(v * 127.f)), -127, 127);
  const uint16_t rounded = packOct(snorm8(u), snorm8(v));
  uint16_t codes[4];
  float dots[4];
  int roundedAt = -1;
  for (int k = 0; k < 4; ++k) {
    codes[k] = packOct(std::min(u0 + (k >> 1), 127), std::min(v0 + (k & 1), 127));
    Vec3 c = decodeOctahedral(codes[k]);
    dots[k] = c.x * n.x + c.y * n.y + c.z * n.z;
    if (codes[k] == rounded) roundedAt = k;
  }
  Vec3 d = roundedAt < 0 ? decodeOctahedral(rounded) : Vec3{};
  float bestDot = roundedAt < 0 ? d.x * n.x + d.y * n.y + d.z * n.z : dots[roundedAt];
  uint16_t best = rounded;
  for (int k = 0; k < 4; ++k)
    if (dots[k] > bestDot) {
      bestDot = dots[k];
      best = codes[k];
    }
  return best;
}

}  // namespace eco
