#version 460
// Auto-exposure metering (render/exposure.h): a histogram of the scene luminance behind each
// pixel of the finished (tone-mapped, resolved) picture. The picture holds display values, so
// each pixel's luminance goes back through the tone curve (toneMapInverse) and the frame's
// exposure is divided out: the histogram is of the scene, whatever exposure drew it.
#include "shared.h"

layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D picture;
layout(binding = 1) buffer Histogram { uint bins[METER_BINS]; };
layout(push_constant) uniform Push { uvec2 size; float exposure; };

shared uint local[METER_BINS];

// The inverse of common.glsl toneMap's curve y = x (2.51 x + 0.03) / (x (2.43 x + 0.59) + 0.14)
// for y in [0, 1): the positive root of (2.43 y - 2.51) x^2 + (0.59 y - 0.03) x + 0.14 y = 0.
float toneMapInverse(float y) {
  y = clamp(y, 0.0, 0.995);
  float a = 2.43 * y - 2.51, b = 0.59 * y - 0.03, c = 0.14 * y;
  return (-b - sqrt(max(b * b - 4.0 * a * c, 0.0))) / (2.0 * a);
}

void main() {
  uint i = gl_LocalInvocationIndex;
  if (i < METER_BINS) local[i] = 0u;
  barrier();
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x < size.x && p.y < size.y) {
    vec3 c = texelFetch(picture, ivec2(p), 0).rgb;
    // the curve per channel, luminance of the result (Rec. 709)
    vec3 scene = vec3(toneMapInverse(c.r), toneMapInverse(c.g), toneMapInverse(c.b)) / exposure;
    float l = dot(scene, vec3(0.2126, 0.7152, 0.0722));
    float t = (log2(max(l, 1e-9)) - METER_LOG_MIN) / (METER_LOG_MAX - METER_LOG_MIN);
    atomicAdd(local[uint(clamp(t * float(METER_BINS), 0.0, float(METER_BINS) - 1.0))], 1u);
  }
  barrier();
  if (i < METER_BINS && local[i] > 0u) atomicAdd(bins[i], local[i]);
}
