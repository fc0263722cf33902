#include "render/camera.h"

#include <algorithm>
#include <array>
#include <tuple>

#include "render/scene.h"
#include "terrain/terrain.h"

namespace eco::render {

namespace {
constexpr float kDegToRad = 3.14159265358979f / 180.0f;
gpu::vec4 v4(Vec3 v, float w) { return {v.x, v.y, v.z, w}; }
}  // namespace

void frustumPlanes(const gpu::vec4 clip[4], gpu::vec4 planes[gpu::FRUSTUM_PLANES]) {
  auto row = [&](int i) {
    return std::array<double, 4>{double(clip[i].x), double(clip[i].y), double(clip[i].z), double(clip[i].w)};
  };
  auto combine = [](const std::array<double, 4>& a, double s, const std::array<double, 4>& b) {
    return std::array<double, 4>{a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2], a[3] + s * b[3]};
  };
  const auto r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  std::array<double, 4> p[gpu::FRUSTUM_PLANES];
  p[gpu::FRUSTUM_LEFT] = combine(r3, 1, r0);     // x >= -w
  p[gpu::FRUSTUM_RIGHT] = combine(r3, -1, r0);   // x <= w
  p[gpu::FRUSTUM_BOTTOM] = combine(r3, 1, r1);   // y >= -w (which screen edge depends on the y flip;
  p[gpu::FRUSTUM_TOP] = combine(r3, -1, r1);     // the pair together is what matters)
  p[gpu::FRUSTUM_NEAR] = combine(r3, -1, r2);    // z <= w: reversed Z puts the near plane at depth 1
  p[gpu::FRUSTUM_FAR] = r2;                      // z >= 0
  for (int i = 0; i < int(gpu::FRUSTUM_PLANES); ++i) {
    double len = std::sqrt(p[i][0] * p[i][0] + p[i][1] * p[i][1] + p[i][2] * p[i][2]);
    // infinite far plane: no normal, and its constant is >= 0 (true everywhere) for any
    // projection that draws anything at all
    if (len < 1e-12) {
      planes[i] = {0, 0, 0, p[i][3] >= 0 ? 1.0f : -1e30f};
      continue;
    }
    planes[i] = {float(p[i][0] / len), float(p[i][1] / len), float(p[i][2] / len), float(p[i][3] / len)};
  }
}

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
  frustumPlanes(f.clip, f.frustum);
  f.eye = v4(e, cam.nearPlane);
  f.right = v4(b.right, 0);
  f.up = v4(b.up, 0);
  f.forward = v4(b.forward, 0);
  f.proj = {fx, fy, float(width), float(height)};
  f.sun = v4(normalize(Vec3{0.4f, 0.8f, 0.35f}), 0.25f);
  f.fog = {0.62f, 0.72f, 0.85f, 0.00012f};
  f.lod = {cull.lodFactor, 0, 0, 0};
  f.cull.y = (cull.frustum ? gpu::CULL_FRUSTUM : 0) | (cull.occlusion ? gpu::CULL_OCCLUSION : 0) |
             (cull.distance ? gpu::CULL_DISTANCE : 0) | (cull.fade ? gpu::CULL_FADE : 0) |
             (cull.fade && cull.farField ? gpu::CULL_FAR_TREES : 0) | (cull.farPages ? gpu::CULL_FAR_PAGES : 0);
  setFadeDistances(f, cull, 1e30f);
  return f;
}

void setFadeDistances(gpu::FrameData& f, const CullSettings& cull, float loadRadius) {
  float end[gpu::KIND_COUNT], start[gpu::KIND_COUNT];
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) {
    end[k] = cull.fade ? std::max(0.0f, std::min(cull.drawDistance[k], loadRadius)) : 1e30f;
    start[k] = cull.fade ? (1.0f - std::clamp(cull.fadeBand, 0.0f, 1.0f)) * end[k] : 1e30f;
  }
  f.fadeStart = {start[0], start[1], start[2], start[3]};
  f.fadeEnd = {end[0], end[1], end[2], end[3]};
}

Camera defaultCamera(const Scene& world, int width, int height) {
  const Grid& hm = world.heights;
  float sizeX = float(std::max(hm.width - 1, 1)) * world.cellSize;
  float sizeZ = float(std::max(hm.height - 1, 1)) * world.cellSize;
  float maxHeight = -1e30f, sum = 0;
  for (float v : hm.values) maxHeight = std::max(maxHeight, v), sum += v;
  float mean = hm.values.empty() ? 0.0f : sum / float(hm.values.size());
  if (hm.values.empty()) maxHeight = 0;
  Vec3 corners[4];
  for (int i = 0; i < 4; ++i) {
    int gx = (i & 1) ? hm.width - 1 : 0, gz = (i & 2) ? hm.height - 1 : 0;
    corners[i] = {float(gx) * world.cellSize, hm.values.empty() ? 0.0f : hm.at(gx, gz), float(gz) * world.cellSize};
  }
  Camera cam;
  cam.pitchDeg = -35;  // high oblique: the whole map, relief still readable
  cam.yawDeg = 0;
  const Vec3 target{0.5f * sizeX, mean, 0.5f * sizeZ};
  const Vec3 forward = cameraBasis(cam).forward;
  // Backs away from the centre along the view direction until the corners fit the middle
  // 90 % of the screen and the camera clears the highest terrain.
  auto fits = [&](float distance) {
    cam.position = target - forward * distance;
    if (cam.position.y < maxHeight + 20) return false;
    gpu::FrameData f = makeFrameData(cam, width, height, CullSettings{});
    for (Vec3 c : corners) {
      auto row = [&](int r) { return f.clip[r].x * c.x + f.clip[r].y * c.y + f.clip[r].z * c.z + f.clip[r].w; };
      float w = row(3);
      if (w <= cam.nearPlane) return false;
      if (std::abs(row(0) / w) > 0.9f || std::abs(row(1) / w) > 0.9f) return false;
    }
    return true;
  };
  float lo = 0, hi = std::max({sizeX, sizeZ, 1.0f});
  while (!fits(hi) && hi < 1e8f) hi *= 2;
  for (int i = 0; i < 40; ++i) {
    float mid = 0.5f * (lo + hi);
    (fits(mid) ? hi : lo) = mid;
  }
  fits(hi);
  return cam;
}

float groundHeight(const Scene& world, float x, float z) {
  return world.heights.values.empty() || !(world.cellSize > 0) ? 0.0f : sampleBilinear(world.heights, world.cellSize, x, z);
}

float keepAboveGround(const Scene& world, Camera& cam) {
  const float floor = groundHeight(world, cam.position.x, cam.position.z) + kMinEyeHeight;
  if (!(cam.position.y < floor)) return 0.0f;
  const float raised = floor - cam.position.y;
  cam.position.y = floor;
  return raised;
}

bool pickTerrain(const Scene& world, const Camera& cam, int width, int height, float px, float py, Vec3& hit) {
  const Grid& h = world.heights;
  if (h.values.empty() || !(world.cellSize > 0) || width <= 0 || height <= 0) return false;
  // The pixel's ray through the projection makeFrameData builds: ndc x = fx x / depth,
  // ndc y = -fy y / depth (Vulkan's y points down the screen).
  const CameraBasis b = cameraBasis(cam);
  const float fy = 1.0f / std::tan(cam.fovYDeg * kDegToRad * 0.5f), fx = fy * float(height) / float(width);
  const float ndcX = 2.0f * px / float(width) - 1.0f, ndcY = 2.0f * py / float(height) - 1.0f;
  const Vec3 dir = normalize(b.forward + b.right * (ndcX / fx) + b.up * (-ndcY / fy));
  const Vec3 eye = cam.position;
  // The part of the ray over the world's rectangle (slab test in x and z).
  const float sizeX = float(h.width - 1) * world.cellSize, sizeZ = float(h.height - 1) * world.cellSize;
  float t0 = 0, t1 = 1e30f;
  for (const auto& [o, d, size] : {std::tuple{eye.x, dir.x, sizeX}, std::tuple{eye.z, dir.z, sizeZ}}) {
    if (std::abs(d) < 1e-12f) {
      if (o < 0 || o > size) return false;
      continue;
    }
    float a = (0 - o) / d, c = (size - o) / d;
    if (a > c) std::swap(a, c);
    t0 = std::max(t0, a), t1 = std::min(t1, c);
  }
  if (!(t0 <= t1)) return false;
  auto above = [&](float t) {
    const Vec3 p = eye + dir * t;
    return p.y - groundHeight(world, p.x, p.z);
  };
  const float step = 0.5f * world.cellSize;
  float prev = t0;
  if (above(t0) <= 0) {  // the eye itself at or under the ground
    hit = eye + dir * t0;
    hit.y = groundHeight(world, hit.x, hit.z);
    return true;
  }
  for (float t = t0 + step;; t += step) {
    const float at = std::min(t, t1), a = above(at);
    if (a <= 0) {
      float lo = prev, hi = at;  // above at lo, at or under at hi
      for (int i = 0; i < 40; ++i) {
        const float mid = 0.5f * (lo + hi);
        (above(mid) > 0 ? lo : hi) = mid;
      }
      hit = eye + dir * hi;
      hit.y = groundHeight(world, hit.x, hit.z);
      return true;
    }
    if (at >= t1) return false;
    prev = at;
  }
}

}  // namespace eco::render
