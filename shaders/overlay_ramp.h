// The colour ramp of the mask overlays: the terrain shader colours a layer's normalised value
// with it and the viewer's legend draws the same function, so the legend cannot drift from the
// picture. Written in the common subset of GLSL 450 and C++20 (as transform.h): GLSL includes
// this file, C++ gets eco::gpu::overlayRamp.
//
// Five stops of the viridis map (van der Walt and Smith, CC0), linear in between: dark violet
// at 0, blue, teal, green, yellow at 1. Its Rec. 709 luminance (of the values as stored)
// rises strictly from 0.084 to 0.870, so lighter always means more, also for colour-blind
// readers and in greyscale. The values are display values: written as is into the UNORM
// target (after tone mapping), as the legend writes them.
#ifndef ECO_OVERLAY_RAMP_H
#define ECO_OVERLAY_RAMP_H

#ifdef __cplusplus
#include "transform.h"  // eco::gpu::vec3 and its operators
namespace eco::gpu {
#define ECO_FN inline
#else
#define ECO_FN
#endif

ECO_FN vec3 overlayRampSegment(vec3 a, vec3 b, float f) { return a * (1.0f - f) + b * f; }

// t in [0, 1] (the layer's valueMin .. valueMax); values outside clamp to the ends, NaN gives
// the colour of 0.
ECO_FN vec3 overlayRamp(float t) {
  float x = t > 0.0f ? (t < 1.0f ? t : 1.0f) : 0.0f;
  float s = x * 4.0f;
  if (s < 1.0f) return overlayRampSegment(vec3(0.267f, 0.005f, 0.329f), vec3(0.230f, 0.322f, 0.546f), s);
  if (s < 2.0f) return overlayRampSegment(vec3(0.230f, 0.322f, 0.546f), vec3(0.128f, 0.567f, 0.551f), s - 1.0f);
  if (s < 3.0f) return overlayRampSegment(vec3(0.128f, 0.567f, 0.551f), vec3(0.369f, 0.789f, 0.383f), s - 2.0f);
  return overlayRampSegment(vec3(0.369f, 0.789f, 0.383f), vec3(0.993f, 0.906f, 0.144f), s - 3.0f);
}

#ifdef __cplusplus
}  // namespace eco::gpu
#endif
#undef ECO_FN
#endif  // ECO_OVERLAY_RAMP_H
