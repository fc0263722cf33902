// The instance transform the viewer's vertex shader runs (shaders/transform.h, compiled here
// as C++) against hand-derived cases and an independent matrix formulation.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/hash.h"
#include "shaders/transform.h"

namespace {

using eco::gpu::vec3;
constexpr float kPi = std::numbers::pi_v<float>;

vec3 normalized(vec3 v) {
  const float n = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  return {v.x / n, v.y / n, v.z / n};
}

// Column j of the linear part: where the unit mesh's basis vector e_j goes.
vec3 column(vec3 up, float yaw, float scale, int j) {
  const vec3 e[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  return eco::gpu::placeInstancePoint({0, 0, 0}, up, yaw, {scale, scale, scale}, e[j]);
}

void expectNear(vec3 a, vec3 b, float tol, const char* what) {
  EXPECT_NEAR(a.x, b.x, tol) << what;
  EXPECT_NEAR(a.y, b.y, tol) << what;
  EXPECT_NEAR(a.z, b.z, tol) << what;
}

// Rotation matrix of the same transform built another way: Rodrigues' formula for the
// rotation about the axis up x (0, 1, 0) by the angle between them, times the yaw matrix.
void referenceMatrix(vec3 u, float yaw, double m[3][3]) {
  double tilt[3][3];
  const double ax = double(u.z), az = -double(u.x);  // (0, 1, 0) x u, |a| = sin(angle)
  const double s = std::sqrt(ax * ax + az * az), c = double(u.y);
  if (double(u.y) <= -0.9999) {
    const double r[3][3] = {{1, 0, 0}, {0, -1, 0}, {0, 0, -1}};
    std::copy(&r[0][0], &r[0][0] + 9, &tilt[0][0]);
  } else if (s < 1e-12) {
    const double r[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    std::copy(&r[0][0], &r[0][0] + 9, &tilt[0][0]);
  } else {
    const double kx = ax / s, kz = az / s;  // unit axis (kx, 0, kz)
    const double K[3][3] = {{0, -kz, 0}, {kz, 0, -kx}, {0, kx, 0}};
    double K2[3][3] = {};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) K2[i][j] += K[i][k] * K[k][j];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) tilt[i][j] = (i == j) + s * K[i][j] + (1 - c) * K2[i][j];
  }
  const double cy = std::cos(double(yaw)), sy = std::sin(double(yaw));
  const double rot[3][3] = {{cy, 0, sy}, {0, 1, 0}, {-sy, 0, cy}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      m[i][j] = 0;
      for (int k = 0; k < 3; ++k) m[i][j] += tilt[i][k] * rot[k][j];
    }
}

TEST(InstanceTransform, KnownInstances) {
  // Yaw a quarter turn, scale 2: local +x goes to world -z, local +z to world +x.
  expectNear(column({0, 1, 0}, kPi / 2, 2, 0), {0, 0, -2}, 1e-6f, "yaw: x");
  expectNear(column({0, 1, 0}, kPi / 2, 2, 1), {0, 2, 0}, 1e-6f, "yaw: y");
  expectNear(column({0, 1, 0}, kPi / 2, 2, 2), {2, 0, 0}, 1e-6f, "yaw: z");
  // Translation: the mesh origin lands on the position.
  expectNear(eco::gpu::placeInstancePoint({1, 2, 3}, {0, 1, 0}, 0.3f, {2, 5, 2}, {0, 0, 0}), {1, 2, 3}, 0, "origin");
  // Per-axis size: crown radius on x and z, height on y.
  expectNear(eco::gpu::placeInstancePoint({1, 2, 3}, {0, 1, 0}, 0, {2, 5, 3}, {1, 1, 1}), {3, 7, 6}, 1e-6f, "size");
  // Tilt 45 degrees toward +x: a rotation about -z. Local up goes to up, local +x to
  // (h, -h, 0).
  const float h = std::sqrt(0.5f);
  expectNear(column(normalized({1, 1, 0}), 0, 1, 0), {h, -h, 0}, 1e-6f, "tilt: x");
  expectNear(column(normalized({1, 1, 0}), 0, 1, 1), {h, h, 0}, 1e-6f, "tilt: y");
  expectNear(column(normalized({1, 1, 0}), 0, 1, 2), {0, 0, 1}, 1e-6f, "tilt: z");
  // Upside down: local up maps to world down.
  expectNear(column({0, -1, 0}, 0, 1, 1), {0, -1, 0}, 1e-6f, "down");
}

TEST(InstanceTransform, MatchesRodriguesAndIsARotation) {
  eco::Rng rng(5);
  for (int n = 0; n < 2000; ++n) {
    const vec3 up = normalized({rng.uniform() * 2 - 1, rng.uniform() * 2 - 0.9f, rng.uniform() * 2 - 1});
    const float yaw = rng.uniform() * 7;
    double ref[3][3];
    referenceMatrix(up, yaw, ref);
    // The shortest arc divides by 1 + up.y: float error grows as up turns toward straight down.
    const float tol = 1e-5f + 4e-6f / (1.f + up.y);
    for (int j = 0; j < 3; ++j) {
      const vec3 c = column(up, yaw, 1.5f, j);
      EXPECT_NEAR(c.x, 1.5 * ref[0][j], tol) << n << " column " << j;
      EXPECT_NEAR(c.y, 1.5 * ref[1][j], tol) << n << " column " << j;
      EXPECT_NEAR(c.z, 1.5 * ref[2][j], tol) << n << " column " << j;
    }
    expectNear(column(up, yaw, 1.5f, 1), 1.5f * up, tol, "up");
    // Orthogonal columns of length 1.5, right-handed.
    const vec3 c0 = column(up, yaw, 1.5f, 0), c1 = column(up, yaw, 1.5f, 1), c2 = column(up, yaw, 1.5f, 2);
    EXPECT_NEAR(eco::gpu::dot(c0, c1), 0, 2 * tol);
    EXPECT_NEAR(eco::gpu::dot(c0, c2), 0, 2 * tol);
    EXPECT_NEAR(eco::gpu::dot(c0, c0), 2.25f, 4 * tol);
    EXPECT_NEAR(eco::gpu::dot(eco::gpu::cross(c0, c1), c2), 1.5f * 1.5f * 1.5f, 1e-3f);
  }
}

// Normals use the inverse transpose: perpendicular to every tangent of the placed surface.
TEST(InstanceTransform, NormalsStayPerpendicularUnderNonUniformSize) {
  eco::Rng rng(9);
  for (int n = 0; n < 500; ++n) {
    const vec3 up = normalized({rng.uniform() - 0.5f, 1, rng.uniform() - 0.5f});
    const float yaw = rng.uniform() * 7;
    const vec3 size{0.5f + rng.uniform(), 1 + 4 * rng.uniform(), 0.5f + rng.uniform()};
    const vec3 normal = normalized({rng.uniform() - 0.5f, rng.uniform() - 0.5f, rng.uniform() - 0.5f});
    // A tangent of the plane with that normal: normal x (any other direction).
    const vec3 tangent = eco::gpu::cross(normal, normalized({0.3f, 0.8f, -0.5f}));
    const vec3 placed = eco::gpu::placeInstancePoint({0, 0, 0}, up, yaw, size, tangent);
    EXPECT_NEAR(eco::gpu::dot(eco::gpu::placeInstanceNormal(up, yaw, size, normal), placed), 0, 1e-4f) << n;
  }
}

// The exporters' quaternion rotates like the shader's transform: v + 2 w (q x v) + 2 q x (q x v).
TEST(InstanceTransform, OrientationQuaternionMatchesTheTransform) {
  eco::Rng rng(13);
  for (int n = 0; n < 2000; ++n) {
    vec3 up = n == 0 ? vec3{0, -1, 0} : normalized({rng.uniform() * 2 - 1, rng.uniform() * 2 - 0.9f, rng.uniform() * 2 - 1});
    const float yaw = rng.uniform() * 7;
    const eco::gpu::quat q = eco::gpu::instanceOrientation(up, yaw);
    EXPECT_NEAR(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.f, 1e-5f);
    const vec3 qv{q.x, q.y, q.z};
    const float tol = 2e-5f + 4e-6f / (1.f + up.y);
    for (int j = 0; j < 3; ++j) {
      const vec3 e[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
      const vec3 t = eco::gpu::cross(qv, e[j]);
      const vec3 rotated = e[j] + 2 * q.w * t + 2.f * eco::gpu::cross(qv, t);
      expectNear(rotated, column(up, yaw, 1, j), tol, "quaternion column");
    }
  }
}

}  // namespace
