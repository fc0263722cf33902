#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 2) uniform sampler2DArray farField;  // render/far_field.h: premultiplied rgb, coverage
layout(location = 0) in vec3 inWorld;
layout(location = 1) in vec3 inNormal;
layout(location = 0) out vec4 outColor;

// How much more ground a kind's plants hide when seen at an angle. A plant of crown radius r
// and crown height h seen along v (unit, toward the eye) at theta from the vertical shows
// pi r^2 cos(theta) + r h sin(theta); the ground under it, seen along v on a surface of normal
// n, shows (n.v / n.y) per unit of horizontal area. Their ratio to the view from straight above
// is n.y (cos(theta) + c sin(theta)) / (n.v), c = h / (pi r) for each kind's typical shape
// (tree, shrub, grass, ground cover).
const vec4 kObliqueGrowth = vec4(1.0, 0.6, 0.3, 0.1);

float hash12(vec2 p) {
  uvec2 q = uvec2(ivec2(floor(p)) + 32768);
  uint h = q.x * 0x9E3779B1u ^ q.y * 0x85EBCA77u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return float(h >> 8) * (1.0 / 16777216.0);
}

// smooth value noise in [0, 1] with features of `scale` metres
float valueNoise(vec2 p, float scale) {
  p /= scale;
  vec2 f = fract(p), u = f * f * (3.0 - 2.0 * f);
  vec2 i = floor(p);
  return mix(mix(hash12(i), hash12(i + vec2(1, 0)), u.x), mix(hash12(i + vec2(0, 1)), hash12(i + vec2(1, 1)), u.x), u.y);
}

void main() {
  vec3 n = normalize(inNormal);
  float slope = 1.0 - n.y;  // 0 flat .. 1 vertical
  vec3 grass = vec3(0.32, 0.42, 0.20);
  vec3 rock = vec3(0.45, 0.42, 0.38);
  vec3 base = mix(grass, rock, smoothstep(0.15, 0.35, slope));
  float sunDot = max(dot(n, frame.sun.xyz), 0.0);
  vec3 color = base * (sunDot + frame.sun.w);
  // far field: each kind's layer fades in where its instances fade out
  if (frame.farField.z > 0.5) {
    vec3 toEye = frame.eye.xyz - inWorld;
    float d = length(toEye);
    vec3 v = toEye / max(d, 1e-3);
    float cosTheta = clamp(v.y, 0.0, 1.0), sinTheta = sqrt(1.0 - cosTheta * cosTheta);
    float surface = n.y / max(dot(n, v), 0.2);  // capped: grazing slopes are mostly hidden by what is in front
    vec2 uv = inWorld.xz * frame.farField.xy;
    // Lit like the instances' crowns (vegetation.frag: 0.8 * n.sun + ambient + 0.1) averaged
    // over a crown seen from above (mean n.sun ~ 0.6), following the slope a little.
    float crownLight = 0.8 * 0.5 * mix(1.0, sunDot / max(frame.sun.y, 0.1), 0.3) + frame.sun.w + 0.1;
    // light variation at stand scale, so the far field does not read as flat paint
    float vary = 0.9 + 0.2 * (0.65 * valueNoise(inWorld.xz, 60.0) + 0.35 * valueNoise(inWorld.xz, 17.0));
    for (int k = int(FAR_LAYERS) - 1; k >= 0; --k) {
      // one mip level coarser than the screen asks for: a texel holds a handful of crowns,
      // magnified it would read as blotches rather than as a stand of plants
      vec4 layer = texture(farField, vec3(uv, k), 1.0);
      if (layer.a < 1.0 / 512.0) continue;
      vec3 mean = layer.rgb / layer.a;
      float ratio = max(surface * (cosTheta + kObliqueGrowth[k] * sinTheta), 1.0);
      float seen = 1.0 - pow(1.0 - min(layer.a, 0.999), ratio);
      // cull.comp keeps a fraction 1 - t of the instances at t = (d - start) / (end - start):
      // the far field comes in linearly over the same band. (Compensating for the ground the
      // remaining instances hide, alpha = seen t / (1 - seen (1 - t)), measured worse on
      // render_farfield_test: the plants drawn in the band cover less than their share.)
      float t = clamp((d - frame.fadeStart[k]) / max(frame.fadeEnd[k] - frame.fadeStart[k], 1e-3), 0.0, 1.0);
      float alpha = seen * t;
      color = mix(color, mean * crownLight * vary, alpha);
    }
  }
  outColor = vec4(applyFog(frame, color, inWorld), 1.0);
}
