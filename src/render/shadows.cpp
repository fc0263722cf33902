#include "render/shadows.h"

#include <algorithm>
#include <cmath>

#include "render/camera.h"

namespace eco::render {

namespace {
constexpr float kPi = 3.14159265358979f;
gpu::vec4 plane(Vec3 n, float d) { return {n.x, n.y, n.z, d}; }
}  // namespace

Vec3 sunDirection(float azimuthDeg, float elevationDeg) {
  float az = azimuthDeg * kPi / 180.f, el = elevationDeg * kPi / 180.f;
  // azimuth 0 = north = -z, 90 = east = +x
  return normalize(Vec3{std::sin(az) * std::cos(el), std::sin(el), -std::cos(az) * std::cos(el)});
}

LightBasis lightBasis(Vec3 toSun) {
  const Vec3 lf = toSun * -1.f;
  const Vec3 lr = normalize(cross(lf, std::abs(lf.y) > 0.99f ? Vec3{0, 0, 1} : Vec3{0, 1, 0}));
  return {lr, cross(lr, lf), lf};
}

CascadeSphere cascadeSphere(const ShadowSettings& s, float nearZ, float tx, float ty, uint32_t c) {
  const float farZ = std::max(s.distance, nearZ * 2);
  auto split = [&](uint32_t i) {
    if (i == 0) return nearZ;
    const float t = float(i) / float(gpu::CASCADE_COUNT);
    return s.split * nearZ * std::pow(farZ / nearZ, t) + (1 - s.split) * (nearZ + (farZ - nearZ) * t);
  };
  const float begin = split(c), end = split(c + 1);
  // centre on the view axis at depth m, chosen so the near and far corners are equidistant
  // (m clamped into the slice)
  const float k2 = tx * tx + ty * ty;
  const float m = std::clamp(0.5f * (begin + end) * (1 + k2), begin, end);
  const float dFar = std::hypot(end - m, end * std::sqrt(k2)), dNear = std::hypot(m - begin, begin * std::sqrt(k2));
  return {begin, end, m, std::max(dFar, dNear)};
}

void setShadowCascades(gpu::FrameData& f, const ShadowSettings& s, float minY, float maxY, const LowestGround& lowest) {
  const Vec3 eye{f.eye.x, f.eye.y, f.eye.z};
  const Vec3 forward{f.forward.x, f.forward.y, f.forward.z};
  const Vec3 toSun = normalize(Vec3{f.sun.x, f.sun.y, f.sun.z});
  const LightBasis light = lightBasis(toSun);
  const Vec3 lr = light.right, lu = light.up, lf = light.forward;
  // half extents of the view at depth 1 (ndc = x * fx / depth)
  const float tx = 1.f / f.proj.x, ty = 1.f / f.proj.y;
  const float nearZ = f.eye.w;
  float texels[gpu::CASCADE_COUNT];
  for (uint32_t c = 0; c < gpu::CASCADE_COUNT; ++c) {
    const CascadeSphere sphere = cascadeSphere(s, nearZ, tx, ty, c);
    const float begin = sphere.begin, end = sphere.end, r = sphere.radius;
    (&f.shadowSplits.x)[c] = end;
    Vec3 centre = eye + forward * sphere.centreDepth;
    // snap the centre to whole texels in the light's plane
    float texel = 2 * r / float(s.mapSize);
    float x = std::floor(dot(centre, lr) / texel) * texel, y = std::floor(dot(centre, lu) / texel) * texel;
    float z = dot(centre, lf);
    centre = lr * x + lu * y + lf * z;
    // depth range: from r behind the centre back toward the sun far enough to hold everything
    // up to maxY above the sphere (casters), plus a margin
    float towardSun = r + std::max(0.f, maxY - (centre.y - r)) / std::max(toSun.y, 0.05f) + 50.f;
    towardSun = std::min(towardSun, r + 20000.f);
    float zNear = -towardSun, zFar = r;
    gpu::vec4* clip = &f.shadowClip[c * 4];
    clip[0] = plane(lr * (1 / r), -dot(lr, centre) / r);
    clip[1] = plane(lu * (1 / r), -dot(lu, centre) / r);
    clip[2] = plane(lf * (1 / (zFar - zNear)), (-dot(lf, centre) - zNear) / (zFar - zNear));
    clip[3] = {0, 0, 0, 1};
    gpu::vec4* planes = &f.shadowPlanes[c * gpu::FRUSTUM_PLANES];
    planes[gpu::FRUSTUM_LEFT] = plane(lr, -dot(lr, centre) + r);
    planes[gpu::FRUSTUM_RIGHT] = plane(lr * -1.f, dot(lr, centre) + r);
    planes[gpu::FRUSTUM_BOTTOM] = plane(lu, -dot(lu, centre) + r);
    planes[gpu::FRUSTUM_TOP] = plane(lu * -1.f, dot(lu, centre) + r);
    planes[gpu::FRUSTUM_NEAR] = {0, 0, 0, 1};  // toward the sun: never rejects
    planes[gpu::FRUSTUM_FAR] = plane(lf * -1.f, dot(lf, centre) + zFar);
    // The cascade is read only by pixels in the camera's view between begin and end (`slice`),
    // none below the lowest ground in that slice (`ground`), and a lookup reaches at most 2.5
    // texels from its pixel (1.5 of normal offset, 1 of filtering). A caster's shadow runs from
    // it away from the sun, down to that ground (less the reach, `floor`): from a sphere (c, r)
    // it is the segment from c to c - T toSun, T = (c.y + r - floor) / toSun.y, widened by r.
    // For each plane (n, d) of the slice the segment's far end is the farther inside when
    // n.toSun < 0; there n.(c - T toSun) + d with q = n.toSun / toSun.y is
    // (n - q y).c + d + q floor - q r, so the test `>= -r` of that end is one plane scaled by
    // 1 / (1 - q). One plane at a time is conservative: the shadow map keeps every texel a
    // visible pixel reads.
    gpu::vec4* receivers = &f.shadowReceivers[c * gpu::FRUSTUM_PLANES];
    gpu::vec4 slice[gpu::FRUSTUM_PLANES];
    for (uint32_t k = 0; k < gpu::FRUSTUM_PLANES; ++k) slice[k] = f.frustum[k];
    slice[gpu::FRUSTUM_NEAR] = plane(forward, -dot(forward, eye) - begin);
    slice[gpu::FRUSTUM_FAR] = plane(forward * -1.f, dot(forward, eye) + end);
    // nothing of the ground in the slice: no receivers (maxY keeps the planes finite)
    const float ground = lowest ? std::clamp(lowest(slice), minY, std::max(minY, maxY)) : minY;
    const float reach = 3 * texel, floor = ground - reach;
    for (uint32_t k = 0; k < gpu::FRUSTUM_PLANES; ++k) {
      const gpu::vec4 p = slice[k];
      const float q = (p.x * toSun.x + p.y * toSun.y + p.z * toSun.z) / std::max(toSun.y, 1e-3f);
      if (q >= 0) {
        receivers[k] = {p.x, p.y, p.z, p.w + reach};
      } else {
        const float scale = 1 / (1 - q);
        receivers[k] = {p.x * scale, (p.y - q) * scale, p.z * scale, (p.w + q * floor + reach) * scale};
      }
    }
    texels[c] = texel;
  }
  f.shadowSplits.w = 1;
  f.shadowTexel = {texels[0], texels[1], texels[2], float(s.mapSize)};
  static_assert(gpu::CASCADE_COUNT == 3, "shadowSplits and shadowTexel hold three cascades");
}

}  // namespace eco::render
