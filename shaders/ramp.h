// The mask overlay's colour ramp: one definition, compiled as GLSL by the terrain shader and
// as C++ by the viewer's legend and the tests (the common subset, like transform.h).
// t in [0, 1] -> display RGB (screen-encoded, unlit): dark violet through blue and green to
// yellow, luminance rising monotonically, so the order reads in greyscale too.
#ifndef ECO_RAMP_H
#define ECO_RAMP_H

#ifdef __cplusplus
#include <algorithm>
#include "transform.h"
namespace eco::gpu {
inline vec3 mix(vec3 a, vec3 b, float t) { return a + (b + (-1.0f) * a) * t; }
using std::clamp;
#define ECO_RAMP_FN inline
#else
#define ECO_RAMP_FN
#endif

ECO_RAMP_FN vec3 overlayRamp(float t) {
  float x = clamp(t, 0.0f, 1.0f) * 4.0f;
  if (x < 1.0f) return mix(vec3(0.27f, 0.00f, 0.33f), vec3(0.23f, 0.32f, 0.55f), x);
  if (x < 2.0f) return mix(vec3(0.23f, 0.32f, 0.55f), vec3(0.13f, 0.57f, 0.55f), x - 1.0f);
  if (x < 3.0f) return mix(vec3(0.13f, 0.57f, 0.55f), vec3(0.37f, 0.79f, 0.38f), x - 2.0f);
  return mix(vec3(0.37f, 0.79f, 0.38f), vec3(0.99f, 0.91f, 0.14f), x - 3.0f);
}

#ifdef __cplusplus
}  // namespace eco::gpu
#endif
#undef ECO_RAMP_FN
#endif  // ECO_RAMP_H
