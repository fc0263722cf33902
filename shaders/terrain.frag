#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 2) uniform sampler2DArray farField;  // render/far_field.h: premultiplied rgb, coverage
layout(binding = 5) uniform sampler2DArrayShadow shadowMap;
layout(binding = 6) uniform sampler2D river;    // distance to the river: frame.water.w + texel * frame.water.y metres
layout(binding = 7) uniform sampler2D overlay;  // the selected mask layer, 0..1 over its legend
#include "shadow.glsl"
#include "overlay_ramp.h"

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

// What grows around a point, from the far-field layers (render/far_field.h) two levels above
// their finest (32 m at 8 m texels: a stand, not single plants): x the share of the ground under
// tree and shrub crowns, y under grass and ground cover. (-1, -1) before any survey data.
vec2 plantsAround(vec2 uv) {
  if (frame.farField.w < 0.5) return vec2(-1.0);
  float a[FAR_LAYERS];
  for (int k = 0; k < int(FAR_LAYERS); ++k) a[k] = textureLod(farField, vec3(uv, k), 2.0).a;
  return vec2(a[0] + a[1], a[2] + a[3]);
}

// Ground albedo from the config's palette (FrameData.palette): grass where grass and ground
// cover grow, by how much of them there is; soil where nothing does, darker as litter under
// crowns; sand on river banks; rock on steep slopes; snow above the snow line on gentle ground
// where nothing dense grows.
vec3 groundAlbedo(vec3 n, float height, float noise, vec2 plants, float riverDistance) {
  float slope = 1.0 - n.y;  // 0 flat .. 1 vertical
  float jitter = noise - 0.5;
  vec3 soil = frame.palette[GROUND_SOIL].rgb, grass = frame.palette[GROUND_GRASS].rgb;
  vec3 rock = frame.palette[GROUND_ROCK].rgb, sand = frame.palette[GROUND_SAND].rgb;
  vec3 snow = frame.palette[GROUND_SNOW].rgb;
  // A grass instance stands for the sward around it: its crowns cover a small share of the
  // ground that is green (0.02-0.05 in the sample's meadows and moss), so the green saturates
  // early. Before the survey has data, grass on gentle slopes as a stand-in.
  float green = plants.y < 0.0 ? 0.7 * (1.0 - smoothstep(0.10, 0.22, slope + 0.08 * jitter))
                               : 1.0 - exp(-60.0 * plants.y * (0.7 + 0.6 * noise));
  float litter = clamp(max(plants.x, 0.0), 0.0, 1.0);
  vec3 c = mix(soil, soil * 0.7, litter);  // the forest floor: needles, leaves, shade-dark soil
  c = mix(c, grass, green);
  // river banks: sand out to about twice the water's edge, where the sward is thin
  float bank = 1.0 - smoothstep(frame.water.z * 1.5, frame.water.z * 3.0 + 2.0, riverDistance);
  c = mix(c, sand, bank * (1.0 - 0.6 * green));
  c = mix(c, rock, smoothstep(0.22, 0.40, slope + 0.10 * jitter));
  // snow: above the snow line (40 m to full cover, +-25 m of noise), on slopes under ~30
  // degrees, never where grass, moss or crowns are dense
  float s = smoothstep(frame.elevation.z, frame.elevation.z + 40.0, height + 50.0 * jitter);
  s *= 1.0 - smoothstep(0.25, 0.45, slope);
  // (noise on the threshold: the far field's 32 m texels must not show as a chequer)
  s *= 1.0 - smoothstep(0.1, 0.45, max(green * step(0.0, plants.y), 3.0 * litter) + 0.3 * jitter);
  c = mix(c, snow, s);
  return c * (0.85 + 0.3 * noise);
}

void main() {
  vec3 n = normalize(inNormal);
  float noise = 0.6 * valueNoise(inWorld.xz, 23.0) + 0.4 * valueNoise(inWorld.xz, 5.0);
  vec2 layerUv = (inWorld.xz / frame.terrain.x + 0.5) / frame.terrain.yz;  // heightmap samples
  float riverDistance = frame.water.x > 0.5 ? frame.water.w + texture(river, layerUv).r * frame.water.y : 1e30;
  vec3 albedo = groundAlbedo(n, inWorld.y, noise, plantsAround(inWorld.xz * frame.farField.xy), riverDistance);
  float shadow = sunShadow(inWorld, n);
  vec3 ambient = ambientLight(frame, n);
  vec3 color = albedo * (sunLight(frame, n) * shadow + ambient);

  // far field: each kind's layer fades in where its instances fade out
  if (frame.farField.z > 0.5) {
    vec3 toEye = frame.eye.xyz - inWorld;
    float d = length(toEye);
    vec3 v = toEye / max(d, 1e-3);
    float cosTheta = clamp(v.y, 0.0, 1.0), sinTheta = sqrt(1.0 - cosTheta * cosTheta);
    float surface = n.y / max(dot(n, v), 0.2);  // capped: grazing slopes are mostly hidden by what is in front
    vec2 uv = inWorld.xz * frame.farField.xy;
    // Lit like the instances' crowns (vegetation.frag) averaged over a crown seen from above
    // (mean n.sun about half the sun's elevation term), following the slope a little.
    vec3 up = vec3(0.0, 1.0, 0.0);
    float sunDot = max(dot(n, frame.sun.xyz), 0.0);
    // 0.8 and the ground's 0.3 below: the far field's region signal matches the near field's
    // best at these (render_farfield_test, shadows on)
    vec3 crownLight = sunLight(frame, up) * 0.8 * mix(1.0, sunDot / max(frame.sun.y, 0.1), 0.3) * shadow +
                      ambientLight(frame, up);
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
      // the ground between the crowns of a stand lies mostly in their shadow: darken the
      // terrain by the layer's coverage before painting the crowns over it
      color *= 1.0 - 0.3 * min(layer.a, 1.0) * t;
      color = mix(color, mean * crownLight * vary, alpha);
    }
  }

  // rivers: still water where the river field says the channel is, reflecting the sky
  if (frame.water.x > 0.5) {
    float wet = 1.0 - smoothstep(frame.water.z * 0.8, frame.water.z, riverDistance);
    if (wet > 0.0) {
      vec3 v = normalize(frame.eye.xyz - inWorld);
      vec3 wn = normalize(vec3(0.04 * (valueNoise(inWorld.xz + frame.eye.w, 3.0) - 0.5), 1.0,
                               0.04 * (valueNoise(inWorld.zx, 3.0) - 0.5)));
      float fresnel = 0.02 + 0.98 * pow(1.0 - max(dot(wn, v), 0.0), 5.0);
      // the sky's reflection, and the sun's only where the sun reaches the water
      vec3 r = reflect(-v, wn);
      vec3 reflected = skyDome(frame, r) + sunGlow(frame, r) * shadow;
      vec3 deep = vec3(0.02, 0.06, 0.07) * (sunLight(frame, wn) * shadow + ambient);
      vec3 water = mix(deep, reflected, fresnel);
      color = mix(color, water, wet);
    }
  }

  color = applyFog(frame, color, inWorld);
  vec3 result = toneMap(frame, color);
  // mask overlay: the layer's value through the legend's ramp, over the lit picture
  if (frame.overlay.x > 0.5) {
    float value = texture(overlay, layerUv).r;
    result = mix(result, overlayRamp(value), frame.overlay.y);
  }
  outColor = vec4(result, 1.0);
}
