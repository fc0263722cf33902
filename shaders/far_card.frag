#version 460
// A far card's pixels (far_card.vert): inside the crown's outline on the point, the colour of
// the crown's visible side at the pixel's normal (a sphere's for a round crown, a cone's for a
// conifer), blended from the five the vertex shader lit by the normal's share along each.
#include "shared.h"

layout(location = 0) flat in vec4 inShape;
layout(location = 1) flat in vec3 inToward;
layout(location = 2) flat in vec3 inRight;
layout(location = 3) flat in vec3 inLeft;
layout(location = 4) flat in vec3 inUp;
layout(location = 5) flat in vec3 inDown;
layout(location = 6) flat in float inSize;  // the point's size, pixels
layout(location = 0) out vec4 outColor;
layout(constant_id = 0) const int kSampleCount = 4;  // the colour pass's (vegetation_draw.cpp)

// the point's coordinates (x right, y up, -1 to 1 across the point) inside the outline
bool inside(vec2 q) {
  if (inShape.z > 0.5) {
    float along = 0.5 * (inShape.y - q.y) / inShape.y;  // 0 at the apex, 1 at the base
    return along >= 0.0 && along <= 1.0 && abs(q.x) <= inShape.x * along;
  }
  return dot(q / inShape.xy, q / inShape.xy) <= 1.0;
}

// Vulkan's standard sample locations (the pixel's corner at 0, 0, y down) for 1, 2, 4, 8 samples
const vec2 kSamples[15] = vec2[](vec2(0.5, 0.5), vec2(0.75, 0.75), vec2(0.25, 0.25), vec2(0.375, 0.125),
                                 vec2(0.875, 0.375), vec2(0.125, 0.625), vec2(0.625, 0.875), vec2(0.5625, 0.3125),
                                 vec2(0.4375, 0.6875), vec2(0.8125, 0.5625), vec2(0.3125, 0.1875),
                                 vec2(0.1875, 0.8125), vec2(0.0625, 0.4375), vec2(0.6875, 0.9375),
                                 vec2(0.9375, 0.0625));

void main() {
  // Coverage per sample: a card smaller than a pixel covers the samples its outline holds, as a
  // mesh's triangles would (tested at the pixel's centre alone, a pixel the outline reaches
  // into but whose centre it misses kept nothing: the Grand Canyon's sparse woodland, a third
  // of a pixel a tree from 6 km, read 3-6 levels pale).
  const int first = kSampleCount == 1 ? 0 : kSampleCount == 2 ? 1 : kSampleCount == 4 ? 3 : 7;
  int mask = 0;
  for (int i = 0; i < kSampleCount && i < 8; ++i) {
    vec2 at = gl_PointCoord + (kSamples[first + i] - 0.5) / inSize;
    if (inside(vec2(2.0 * at.x - 1.0, 1.0 - 2.0 * at.y))) mask |= 1 << i;
  }
  if (mask == 0) discard;
  gl_SampleMask[0] = mask;
  // the normal where the pixel's centre meets the outline (nearest inside for a sliver)
  vec2 q = clamp(vec2(2.0 * gl_PointCoord.x - 1.0, 1.0 - 2.0 * gl_PointCoord.y), -1.0, 1.0);
  vec3 n;  // across the screen, up it, toward the eye
  if (inShape.z > 0.5) {
    float along = clamp(0.5 * (inShape.y - q.y) / inShape.y, 0.0, 1.0);
    float f = clamp(q.x / max(inShape.x * along, 1e-6), -1.0, 1.0);
    n = vec3(f, 0.0, sqrt(max(1.0 - f * f, 0.0)));  // round the cone (its lean is in the five)
  } else {
    vec2 u = q / inShape.xy;
    u /= max(length(u), 1.0);
    n = vec3(u, sqrt(max(1.0 - dot(u, u), 0.0)));
  }
  vec3 w = abs(n) / (abs(n.x) + abs(n.y) + abs(n.z));
  outColor = vec4(w.z * inToward + w.x * (n.x > 0.0 ? inRight : inLeft) + w.y * (n.y > 0.0 ? inUp : inDown), 1.0);
}
