#include <cmath>
#include <numbers>

#include "terrain/terrain.h"

namespace eco {
namespace {

constexpr float kDegrees = float(180.0 / std::numbers::pi);

}  // namespace

Vec2 sunDirectionXZ(float sunAzimuthDeg) {
  // North is -z and east is +x, so azimuth a points along (sin a, -cos a).
  float a = sunAzimuthDeg / kDegrees;
  return {std::sin(a), -std::cos(a)};
}

SurfaceSample surfaceAt(const Heightmap& terrain, float x, float z, Vec2 sunDirXZ, bool withAspect) {
  Vec2 g = terrain.gradientAt(x, z);
  float invLength = 1.f / std::sqrt(g.x * g.x + g.z * g.z + 1.f);
  SurfaceSample s;
  s.normal = {-g.x * invLength, invLength, -g.z * invLength};
  s.slopeDeg = slopeDegrees(terrain.slopeTangentAt(x, z));
  if (withAspect && (g.x != 0 || g.z != 0)) {
    // Downslope (-g.x, -g.z): its east component is -g.x, its north component is +g.z.
    float aspect = std::atan2(-g.x, g.z) * kDegrees;
    s.aspectDeg = aspect < 0 ? aspect + 360.f : aspect;
  }
  s.sunExposure = s.normal.x * sunDirXZ.x + s.normal.z * sunDirXZ.z;
  return s;
}

}  // namespace eco
