#pragma once
// The sun and its cascaded shadow maps (design: docs/viewer-look.md). The camera's view depth
// up to ShadowSettings::distance is split into CASCADE_COUNT slices; each gets an orthographic
// light view around the slice's bounding sphere, with its centre snapped to whole texels so
// shadow edges do not crawl as the camera moves. The culling shader fills each cascade's draw
// commands from the same instance pass as the camera's (cull.comp), for shadow-casting species.
#include <functional>

#include "core/types.h"
#include "shaders/shared.h"

namespace eco::render {

// Unit vector toward the sun. azimuthDeg: where the sun shines from, clockwise from north (the
// biome config's sun.azimuth_deg, which drives the aspect mask); elevationDeg above the horizon.
// World frame of core/types.h: x east, z south, y up.
Vec3 sunDirection(float azimuthDeg, float elevationDeg);

struct ShadowSettings {
  // false: no shadow resources at all (ViewSettings::shadows then has no effect). On, each
  // cascade lists each resident shadow caster that can shade it once at most: 4 bytes per such
  // tree or shrub and cascade (render/visible_reach.h casterRegion).
  bool enabled = true;
  uint32_t mapSize = 1024;   // texels per side of each cascade (at most 4096: 3 x 64 MiB)
  float distance = 1500;     // metres of view depth that receive shadows
  float split = 0.75f;       // practical split scheme: 0 uniform slices, 1 logarithmic
};

// The light's basis for the unit vector toward the sun: forward looks from the sun, right and
// up span the shadow map (right is horizontal unless the sun is within 8 degrees of the zenith).
struct LightBasis {
  Vec3 right, up, forward;
};
LightBasis lightBasis(Vec3 toSun);

// Cascade c's slice of the view, depth [begin, end], and the sphere around it before its
// centre is snapped to whole texels: centre `centreDepth` along the view axis, `radius`. tx, ty:
// the view's half extents at depth 1 (1 / proj.x, 1 / proj.y); nearZ: the near plane.
struct CascadeSphere {
  float begin, end, centreDepth, radius;
};
CascadeSphere cascadeSphere(const ShadowSettings& settings, float nearZ, float tx, float ty, uint32_t c);

// Fills frame.shadowClip, shadowPlanes, shadowReceivers, shadowSplits and shadowTexel from the
// camera in `frame` (eye, basis, proj, near, frustum) and frame.sun. minY: the lowest point
// anything receiving a shadow can stand (the terrain's lowest height): a caster's shadow ends
// there. maxY: the world's highest point plus its tallest plant, so casters between the sun and
// a cascade are inside its depth range.
// lowest(planes), when given: the lowest ground inside the convex region of those
// FRUSTUM_PLANES planes (at least minY; +infinity for none), so each cascade's shadows end at
// the lowest ground in its slice of the view.
using LowestGround = std::function<float(const gpu::vec4* planes)>;
void setShadowCascades(gpu::FrameData& frame, const ShadowSettings& settings, float minY, float maxY,
                       const LowestGround& lowest = {});

}  // namespace eco::render
