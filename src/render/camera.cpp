#include "render/camera.h"

namespace eco::render {

namespace {
constexpr float kDegToRad = 3.14159265358979f / 180.0f;
gpu::vec4 v4(Vec3 v, float w) { return {v.x, v.y, v.z, w}; }
}  // namespace

CameraBasis cameraBasis(const Camera& cam) {
  float yaw = cam.yawDeg * kDegToRad, pitch = cam.pitchDeg * kDegToRad;
  Vec3 forward{std::sin(yaw) * std::cos(pitch), std::sin(pitch), -std::cos(yaw) * std::cos(pitch)};
  Vec3 right = normalize(cross(forward, Vec3{0, 1, 0}));
  Vec3 up = cross(right, forward);
  return {right, up, forward};
}

gpu::FrameData makeFrameData(const Camera& cam, int width, int height, const CullSettings& cull) {
  CameraBasis b = cameraBasis(cam);
  float fy = 1.0f / std::tan(cam.fovYDeg * kDegToRad * 0.5f);
  float fx = fy * float(height) / float(width);
  Vec3 e = cam.position;
  gpu::FrameData f{};
  // clip = (fx * x, -fy * y, near, z) with (x, y, z) the view-space position
  f.clip[0] = v4(b.right * fx, -fx * dot(b.right, e));
  f.clip[1] = v4(b.up * -fy, fy * dot(b.up, e));
  f.clip[2] = {0, 0, 0, cam.nearPlane};
  f.clip[3] = v4(b.forward, -dot(b.forward, e));
  f.eye = v4(e, cam.nearPlane);
  f.right = v4(b.right, 0);
  f.up = v4(b.up, 0);
  f.forward = v4(b.forward, 0);
  f.proj = {fx, fy, float(width), float(height)};
  f.sun = v4(normalize(Vec3{0.4f, 0.8f, 0.35f}), 0.25f);
  f.fog = {0.62f, 0.72f, 0.85f, 0.00012f};
  f.lod = {cull.lodFactor, cull.drawFactor, 0, 0};
  f.cull.y = (cull.frustum ? gpu::CULL_FRUSTUM : 0) | (cull.occlusion ? gpu::CULL_OCCLUSION : 0) |
             (cull.distance ? gpu::CULL_DISTANCE : 0);
  return f;
}

}  // namespace eco::render
