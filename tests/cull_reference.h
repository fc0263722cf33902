#pragma once
// CPU reference of the culling shader's frustum, draw-distance and LOD decisions (no
// occlusion), written independently of the shader's plane formula: the frustum is rebuilt in
// double precision from the 8 corners of the INVERSE view-projection (NDC x, y = +-1 at the
// near plane, depth 1 with reversed Z, and at a tiny depth standing in for the infinite far
// plane), each plane through three corners by a cross product and turned to face the corners'
// centroid. A wrong plane formula in the shader or in camera.cpp cannot be copied into it.
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "shaders/shared.h"
#include "tileio/tileio.h"

namespace eco::test {

using Vec4d = std::array<double, 4>;
using Mat4d = std::array<Vec4d, 4>;  // rows

inline Mat4d inverse(Mat4d m) {  // Gauss-Jordan with partial pivoting
  Mat4d inv{};
  for (size_t i = 0; i < 4; ++i) inv[i][i] = 1;
  for (size_t c = 0; c < 4; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < 4; ++r)
      if (std::abs(m[r][c]) > std::abs(m[p][c])) p = r;
    if (std::abs(m[p][c]) < 1e-30) throw std::runtime_error("singular view-projection");
    std::swap(m[c], m[p]);
    std::swap(inv[c], inv[p]);
    double s = 1 / m[c][c];
    for (size_t k = 0; k < 4; ++k) m[c][k] *= s, inv[c][k] *= s;
    for (size_t r = 0; r < 4; ++r) {
      if (r == c) continue;
      double f = m[r][c];
      for (size_t k = 0; k < 4; ++k) m[r][k] -= f * m[c][k], inv[r][k] -= f * inv[c][k];
    }
  }
  return inv;
}

struct Frustum {
  std::array<Vec4d, 6> planes;  // unit normal, inside where dot(n, p) + d >= 0
  std::array<std::array<double, 3>, 8> corners;
};

inline Frustum frustumFromCorners(const gpu::FrameData& f) {
  Mat4d m;
  for (size_t i = 0; i < 4; ++i)
    m[i] = {double(f.clip[i].x), double(f.clip[i].y), double(f.clip[i].z), double(f.clip[i].w)};
  Mat4d inv = inverse(m);
  Frustum fr;
  const double depth[2] = {1.0, 1e-7};  // near, far (reversed Z: far is depth -> 0)
  for (size_t k = 0; k < 8; ++k) {
    Vec4d ndc{(k & 1) ? 1.0 : -1.0, (k & 2) ? 1.0 : -1.0, depth[k >> 2], 1.0};
    Vec4d p{};
    for (size_t r = 0; r < 4; ++r)
      for (size_t c = 0; c < 4; ++c) p[r] += inv[r][c] * ndc[c];
    fr.corners[k] = {p[0] / p[3], p[1] / p[3], p[2] / p[3]};
  }
  std::array<double, 3> mid{};
  for (auto& c : fr.corners)
    for (size_t a = 0; a < 3; ++a) mid[a] += c[a] / 8;
  // each face: three of its corners (bit 0 = x, bit 1 = y, bit 2 = far)
  const size_t faces[6][3] = {{0, 2, 4}, {1, 3, 5}, {0, 1, 4}, {2, 3, 6}, {0, 1, 2}, {4, 5, 6}};
  for (size_t i = 0; i < 6; ++i) {
    const auto &a = fr.corners[faces[i][0]], &b = fr.corners[faces[i][1]], &c = fr.corners[faces[i][2]];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    Vec4d pl{n[0] / len, n[1] / len, n[2] / len, 0};
    pl[3] = -(pl[0] * a[0] + pl[1] * a[1] + pl[2] * a[2]);
    if (pl[0] * mid[0] + pl[1] * mid[1] + pl[2] * mid[2] + pl[3] < 0)
      for (double& x : pl) x = -x;
    fr.planes[i] = pl;
  }
  return fr;
}

// Draw index (species * LOD_COUNT + lod) or -1 when culled, for an instance as tileio decodes
// it (not as the shader does). `sphere`: the species mesh's bounding sphere as the renderer
// lists it (meshes/meshes.h SpeciesMesh::sphere: unit-space centre, radius in metres at scale
// 1), placed here with its own double-precision rotations: yaw about y (+x toward -z), then
// the rotation about y x up taking y onto up (Rodrigues). `margin` receives the smallest
// distance in metres between the sphere and any decision boundary: float rounding on the GPU
// can flip only decisions with a tiny margin.
inline int referenceCull(const Instance& inst, const SpeciesRecord& sp, const float sphere[4], const gpu::FrameData& f,
                         const Frustum& fr, double* margin = nullptr) {
  const double scale = double(inst.scale);
  const double r = double(sphere[3]) * scale;
  double local[3] = {double(sphere[0]) * double(sp.crownRadius) * scale, double(sphere[1]) * double(sp.meshHeight) * scale,
                 double(sphere[2]) * double(sp.crownRadius) * scale};
  const double cy = std::cos(double(inst.yaw)), sy = std::sin(double(inst.yaw));
  double q[3] = {cy * local[0] + sy * local[2], local[1], -sy * local[0] + cy * local[2]};
  const double upLength = std::sqrt(double(inst.up.x) * double(inst.up.x) + double(inst.up.y) * double(inst.up.y) +
                                    double(inst.up.z) * double(inst.up.z));
  const double u[3] = {double(inst.up.x) / upLength, double(inst.up.y) / upLength, double(inst.up.z) / upLength};
  // axis y x u = (u.z, 0, -u.x), angle acos(u.y)
  double ax = u[2], az = -u[0];
  const double sinA = std::sqrt(ax * ax + az * az), cosA = u[1];
  double w[3] = {q[0], q[1], q[2]};
  if (sinA > 1e-12) {
    ax /= sinA, az /= sinA;
    const double kx = ax, ky = 0, kz = az;
    const double kxq[3] = {ky * q[2] - kz * q[1], kz * q[0] - kx * q[2], kx * q[1] - ky * q[0]};
    const double kdq = kx * q[0] + ky * q[1] + kz * q[2];
    for (int i = 0; i < 3; ++i) {
      const double k = i == 0 ? kx : i == 1 ? ky : kz;
      w[i] = q[i] * cosA + kxq[i] * sinA + k * kdq * (1 - cosA);
    }
  } else if (cosA < 0) {
    w[1] = -q[1], w[2] = -q[2];  // straight down: a half turn about x
  }
  const double c[3] = {double(inst.position.x) + w[0], double(inst.position.y) + w[1], double(inst.position.z) + w[2]};
  double m = 1e300;
  bool keep = true;
  if (f.cull.y & gpu::CULL_FRUSTUM) {
    for (const Vec4d& p : fr.planes) {
      double d = p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] + r;
      m = std::min(m, std::abs(d));
      keep = keep && d >= 0;
    }
  }
  int lod = 0;
  const int kind = int(std::min<uint32_t>(sp.kind, gpu::KIND_COUNT - 1));
  double dx = c[0] - double(f.eye.x), dy = c[1] - double(f.eye.y), dz = c[2] - double(f.eye.z);
  double dist = std::sqrt(dx * dx + dy * dy + dz * dz);
  if (f.cull.y & gpu::CULL_DISTANCE) {
    double toLod = dist - r * double(f.lod.x);
    m = std::min(m, std::abs(toLod));
    lod = toLod > 0 ? 1 : 0;
  }
  if (f.cull.y & gpu::CULL_FADE) {
    // drawn up to fadeStart, never beyond fadeEnd; in between a per-instance coin decides,
    // so the whole band counts as a boundary (margin 0: either answer is right)
    const float* start = &f.fadeStart.x;
    const float* end = &f.fadeEnd.x;
    if (dist > double(end[kind])) keep = false;
    if (dist > double(start[kind]) && dist <= double(end[kind])) m = 0;
    m = std::min({m, std::abs(dist - double(start[kind])), std::abs(dist - double(end[kind]))});
  }
  if (margin) *margin = m;
  if (!keep) return -1;
  return int(inst.species) * int(gpu::LOD_COUNT) + lod;
}

}  // namespace eco::test
