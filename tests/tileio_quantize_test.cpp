// The quantizers' fast paths against the straightforward formulations they replaced (library
// lround, decoding every candidate): tiles must keep every byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "tileio/quantize.h"

using namespace eco;

namespace {

uint16_t referenceUnorm16(double value, double lo, double hi) {
  if (!(hi > lo)) return 0;
  double t = (value - lo) / (hi - lo);
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0);
  return uint16_t(std::lround(t * 65535.0));
}

uint16_t referenceYaw(double radians) {
  constexpr double twoPi = 2 * std::numbers::pi;
  double turns = radians / twoPi;
  turns -= std::floor(turns);
  if (std::isnan(turns)) turns = 0;
  return uint16_t(uint32_t(std::lround(turns * 65536.0)) & 0xffff);
}

uint16_t pack(int u, int v) { return uint16_t(uint8_t(int8_t(u)) | (uint8_t(int8_t(v)) << 8)); }

// The encoder's specification, written plainly: project onto the octahedron, round, then the
// best of the 2x2 neighbourhood by dot product with `up` (which needs no normalising: the
// projection and the ranking ignore its length). Zero or non-finite vectors give up.
uint16_t referenceOctahedral(Vec3 n) {
  float l1 = std::abs(n.x) + std::abs(n.y) + std::abs(n.z);
  if (!std::isfinite(l1) || l1 == 0) return 0;
  float u = n.x / l1, v = n.z / l1;
  if (n.y < 0) {
    float fu = (1.f - std::abs(v)) * (u >= 0 ? 1.f : -1.f);
    float fv = (1.f - std::abs(u)) * (v >= 0 ? 1.f : -1.f);
    u = fu;
    v = fv;
  }
  auto snorm8 = [](float s) { return int(std::clamp(std::lround(s * 127.f), -127l, 127l)); };
  auto dot = [&](uint16_t code) {
    Vec3 c = decodeOctahedral(code);
    return c.x * n.x + c.y * n.y + c.z * n.z;
  };
  int u0 = std::clamp(int(std::floor(u * 127.f)), -127, 127);
  int v0 = std::clamp(int(std::floor(v * 127.f)), -127, 127);
  uint16_t best = pack(snorm8(u), snorm8(v));
  float bestDot = dot(best);
  for (int k = 0; k < 4; ++k) {
    uint16_t code = pack(std::min(u0 + (k >> 1), 127), std::min(v0 + (k & 1), 127));
    if (dot(code) > bestDot) {
      bestDot = dot(code);
      best = code;
    }
  }
  return best;
}

}  // namespace

TEST(TileIoQuantize, Unorm16MatchesLroundIncludingHalfSteps) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> any(-10.0, 110.0);
  for (int i = 0; i < 2'000'000; ++i) {
    double v = any(rng);
    ASSERT_EQ(quantizeUnorm16(v, 0.0, 100.0), referenceUnorm16(v, 0.0, 100.0)) << v;
    const double f = double(float(v));  // a float coordinate, as packRecord passes it
    ASSERT_EQ(quantizeUnorm16(f, -3.5, 96.25), referenceUnorm16(f, -3.5, 96.25)) << v;
  }
  // Values whose scaled position is k + 0.5 and its neighbours, where rounding decides.
  for (int k = 0; k < 65535; ++k) {
    double mid = (k + 0.5) / 65535.0;
    for (double t : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1.0), double(k) / 65535.0})
      ASSERT_EQ(quantizeUnorm16(t, 0.0, 1.0), referenceUnorm16(t, 0.0, 1.0)) << k;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double v : {nan, inf, -inf, 0.0, -0.0, 1.0, 1e300})
    for (auto [lo, hi] : {std::pair{0.0, 1.0}, {1.0, 1.0}, {2.0, 1.0}, {nan, 1.0}, {-inf, inf}})
      EXPECT_EQ(quantizeUnorm16(v, lo, hi), referenceUnorm16(v, lo, hi)) << v << " " << lo << " " << hi;
}

TEST(TileIoQuantize, YawMatchesLroundIncludingHalfSteps) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> any(-20.0, 20.0);
  for (int i = 0; i < 2'000'000; ++i) {
    double v = any(rng);
    ASSERT_EQ(quantizeYaw(v), referenceYaw(v)) << v;
    ASSERT_EQ(quantizeYaw(double(float(v))), referenceYaw(double(float(v)))) << v;
  }
  for (int k = 0; k < 65536; ++k) {
    double mid = (k + 0.5) / 65536.0 * 2 * std::numbers::pi;
    for (double r : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 10.0), double(float(mid))})
      ASSERT_EQ(quantizeYaw(r), referenceYaw(r)) << k;
  }
  for (double v : {std::numeric_limits<double>::quiet_NaN(), 0.0, -0.0, -1e-300, 1e15})
    EXPECT_EQ(quantizeYaw(v), referenceYaw(v)) << v;
}

TEST(TileIoQuantize, OctahedralMatchesTheReferenceEncoder) {
  std::mt19937 rng(3);
  std::normal_distribution<float> gauss;
  std::uniform_real_distribution<float> unit(-1.f, 1.f), gradient(-2.f, 2.f), scale(1e-3f, 1e3f);
  auto check = [](Vec3 v) { ASSERT_EQ(encodeOctahedral(v), referenceOctahedral(v)) << v.x << " " << v.y << " " << v.z; };
  // Directions all over the sphere, at various lengths.
  for (int i = 0; i < 2'000'000; ++i) {
    Vec3 v{gauss(rng), gauss(rng), gauss(rng)};
    float s = scale(rng);
    check({v.x * s, v.y * s, v.z * s});
  }
  // Up axes as the bake tilts them toward terrain normals.
  for (int i = 0; i < 2'000'000; ++i) {
    float gx = gradient(rng), gz = gradient(rng), inv = 1.f / std::sqrt(gx * gx + gz * gz + 1.f);
    float nx = -gx * inv, nz = -gz * inv, horizontal = std::sqrt(nx * nx + nz * nz);
    float angle = std::min(std::atan(std::sqrt(gx * gx + gz * gz)), unit(rng) * 1.6f);
    float k = std::sin(angle) / horizontal;
    check({nx * k, std::cos(angle), nz * k});
  }
  // Every code's own direction and points between neighbouring codes, where the choice is
  // closest; in the octahedral square, near half steps where rounding flips.
  for (int c = 0; c < 65536; ++c) {
    Vec3 a = decodeOctahedral(uint16_t(c)), b = decodeOctahedral(uint16_t(c + 1)), d = decodeOctahedral(uint16_t(c + 256));
    check(a);
    check({a.x + b.x, a.y + b.y, a.z + b.z});
    check({a.x + d.x, a.y + d.y, a.z + d.z});
    for (float f : {0.5f, 0.49999f, 0.50001f}) {
      float u = (float(int8_t(c & 0xff)) + f) / 127.f, v = (float(int8_t(c >> 8)) + f) / 127.f;
      if (std::abs(u) + std::abs(v) <= 1) {
        check({u, 1 - std::abs(u) - std::abs(v), v});
        check({u, -(1 - std::abs(u) - std::abs(v)), v});
      }
    }
  }
  const float tiny = std::numeric_limits<float>::denorm_min(), inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Vec3 v : {Vec3{0, 1, 0}, {-0.f, 1, -0.f}, {0, -1, 0}, {1, 0, 0}, {0, 0, -1}, {0, 0, 0}, {tiny, tiny, tiny},
                 {0, 1e-30f, 0}, {0, 1e18f, 0}, {1, 1, 1}, {-1, -1, -1}, {1e-20f, 1, 0}, {3e38f, 3e38f, 0},
                 {inf, 0, 0}, {0, -inf, 0}, {nan, 1, 0}})
    check(v);
}
