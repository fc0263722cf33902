// The instance transform: the one definition of how an instance's unit mesh (y up, base at
// the origin) is placed in the world. Written in the common subset of GLSL 450 and C++20, so
// the vertex shader (common.glsl instancePoint) and the C++ side (tests) run the same code:
// a yaw about the local y axis (counter-clockwise seen from above: +x turns toward -z), then
// the shortest-arc rotation taking (0, 1, 0) to the instance's up vector.
#ifndef ECO_TRANSFORM_H
#define ECO_TRANSFORM_H

#ifdef __cplusplus
#include <cmath>
namespace eco::gpu {
// Just enough of GLSL's vec3 for the functions below.
struct vec3 {
  float x = 0, y = 0, z = 0;
  constexpr vec3() = default;
  constexpr vec3(float a, float b, float c) : x(a), y(b), z(c) {}
};
inline vec3 operator+(vec3 a, vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline vec3 operator*(float s, vec3 v) { return {s * v.x, s * v.y, s * v.z}; }
inline vec3 operator*(vec3 v, float s) { return {v.x * s, v.y * s, v.z * s}; }
inline vec3 operator*(vec3 a, vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
inline vec3 operator/(vec3 a, vec3 b) { return {a.x / b.x, a.y / b.y, a.z / b.z}; }
inline float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline vec3 cross(vec3 a, vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
using std::cos;
using std::sin;
#define ECO_FN inline
#else
#define ECO_FN
#endif

// Shortest-arc rotation taking (0, 1, 0) to the unit vector u, applied to v:
// R = u.y I + [k]x + k k^T / (1 + u.y) with k = (u.z, 0, -u.x). Straight down has no shortest
// arc: a half turn about x.
ECO_FN vec3 tilt(vec3 u, vec3 v) {
  if (u.y <= -0.9999f) return vec3(v.x, -v.y, -v.z);
  vec3 k = vec3(u.z, 0.0f, -u.x);
  return u.y * v + cross(k, v) + k * (dot(k, v) / (1.0f + u.y));
}

// Rotation by yaw radians about y: +x turns toward -z for positive yaw.
ECO_FN vec3 rotateYaw(float yaw, vec3 v) {
  float c = cos(yaw);
  float s = sin(yaw);
  return vec3(c * v.x + s * v.z, v.y, -s * v.x + c * v.z);
}

// Unit-mesh point p to world, for an instance at `position` with unit `up`, `yaw` and
// per-axis `size` (scale * (crown radius, mesh height, crown radius)).
ECO_FN vec3 placeInstancePoint(vec3 position, vec3 up, float yaw, vec3 size, vec3 p) {
  return position + tilt(up, rotateYaw(yaw, p * size));
}
// Unit-mesh normal to world: the inverse transpose of R * S is R * S^-1.
ECO_FN vec3 placeInstanceNormal(vec3 up, float yaw, vec3 size, vec3 n) { return tilt(up, rotateYaw(yaw, n / size)); }

#ifdef __cplusplus
// The rotation of placeInstancePoint as a unit quaternion {x, y, z, w}: tilt * yaw, for
// exporters whose instancers take orientations (USD PointInstancer, glTF
// EXT_mesh_gpu_instancing). Scale and size stay separate.
struct quat {
  float x = 0, y = 0, z = 0, w = 1;
};
inline quat operator*(quat a, quat b) {  // Hamilton product: b first, then a
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline quat instanceOrientation(vec3 up, float yaw) {
  const quat spin{0, std::sin(0.5f * yaw), 0, std::cos(0.5f * yaw)};
  if (up.y <= -0.9999f) return quat{1, 0, 0, 0} * spin;  // tilt's half turn about x
  // Shortest arc from (0, 1, 0) to up: axis (0, 1, 0) x up, w = 1 + cos(angle), normalised.
  quat arc{up.z, 0, -up.x, 1 + up.y};
  const float n = std::sqrt(arc.x * arc.x + arc.z * arc.z + arc.w * arc.w);
  arc = {arc.x / n, 0, arc.z / n, arc.w / n};
  return arc * spin;
}
}  // namespace eco::gpu
#endif
#undef ECO_FN
#endif  // ECO_TRANSFORM_H
