#pragma once
// Camera and the per-frame constants derived from it. World frame as in core/types.h:
// x east, z south, y up. yaw 0 looks north (-z), 90 degrees east (+x); pitch > 0 looks up.
// Projection: reversed Z with an infinite far plane (depth = near / view depth), so the
// depth buffer clears to 0 and tests GREATER.
#include <array>
#include <cmath>

#include "core/types.h"
#include "shaders/shared.h"

namespace eco::render {

inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float length(Vec3 a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalize(Vec3 a) { return a * (1.0f / length(a)); }

struct Camera {
  Vec3 position{0, 100, 0};
  float yawDeg = 0, pitchDeg = 0;
  float fovYDeg = 60;
  float nearPlane = 0.5f;
};

struct CameraBasis {
  Vec3 right, up, forward;
};
CameraBasis cameraBasis(const Camera& cam);

// Culling and LOD parameters (also used by the CPU reference).
struct CullSettings {
  bool frustum = true;
  bool occlusion = true;
  bool distance = true;      // LOD choice
  bool fade = true;          // per-kind draw distance, handing over to the far field
  float lodFactor = 40;      // LOD 1 beyond lodFactor * sphere radius
  // Per kind (tree, shrub, grass, ground cover): metres from the eye beyond which instances are
  // not drawn; they fade out (stochastically, per instance) over the last fadeBand of it. The renderer
  // caps each at the streaming load radius, inside which every tile is resident, so the near
  // field ends in a circle rather than at tile edges.
  std::array<float, gpu::KIND_COUNT> drawDistance{1e9f, 1200, 600, 300};
  float fadeBand = 0.25f;  // 0: a hard edge
  bool farField = true;    // blend the far-field layers in where instances fade out (needs fade)
  // Skip far trees' pages whole where none of their trees can be drawn (the same trees drawn;
  // off, the cull pass tests each one: the reference tests compare with)
  bool farPages = true;
};

struct Scene;
// A high oblique view from the south (yaw 0, looking north) that frames the whole terrain: its
// four corners, at their heights, project inside the middle 90 % of a width x height screen.
Camera defaultCamera(const Scene& world, int width, int height);

// The terrain's height under (x, z): bilinear in the heights, clamped to the world's edge;
// 0 for a world without heights.
float groundHeight(const Scene& world, float x, float z);
// The least height of the eye above the ground: the near plane must stay above the terrain
// (a camera under it sees the world upside down from below).
constexpr float kMinEyeHeight = 2.0f;
// `cam` raised to kMinEyeHeight above the ground where it is lower; returns how far it was
// raised (0: it was above).
float keepAboveGround(const Scene& world, Camera& cam);

// The terrain point seen at pixel (px, py) (pixel centres at + 0.5, row 0 at the top) of a
// width x height view: the first crossing of the pixel's ray with the heightfield, marched in
// steps of half a cell inside the world and refined by bisection. False where the ray leaves
// the world without meeting the ground (the sky, past the world's edge).
bool pickTerrain(const Scene& world, const Camera& cam, int width, int height, float px, float py, Vec3& hit);

// fadeStart/fadeEnd of FrameData for these settings and a streaming load radius.
void setFadeDistances(gpu::FrameData& frame, const CullSettings& cull, float loadRadius);

// Also fills frame.frustum from frame.clip (frustumPlanes): culling and drawing share one matrix.
gpu::FrameData makeFrameData(const Camera& cam, int width, int height, const CullSettings& cull);

// Gribb-Hartmann planes of a view-projection (rows of `clip`) in Vulkan's clip space
// (-w <= x, y <= w, 0 <= z <= w), normalised so dot(n, p) + d is the signed distance in
// metres, positive inside. Order and the degenerate far plane: FRUSTUM_* in shaders/shared.h.
void frustumPlanes(const gpu::vec4 clip[4], gpu::vec4 planes[gpu::FRUSTUM_PLANES]);

}  // namespace eco::render
