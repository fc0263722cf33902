#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 2) uniform sampler2DArray farField;  // render/far_field.h: premultiplied rgb, coverage
layout(binding = 5) uniform sampler2DArrayShadow shadowMap;
layout(binding = 6) uniform sampler2D river;    // distance to the river: frame.water.w + texel * frame.water.y metres
#include "shadow.glsl"

// The ground: its colour from the palette and the bake's layers, lit, shadowed (by the drawn
// instances through the cascades, and by the far field's plants where the cascades reach),
// with the river's water, fogged and tone-mapped. The far field's plants themselves are drawn
// over this afterwards, once per pixel (far_composite.frag), and the mask overlay over those
// (overlay.frag).
layout(location = 0) in vec3 inWorld;
layout(location = 1) in vec3 inNormal;
layout(location = 2) flat in vec4 inSunArea;  // terrain_vertex.glsl: each kind's area seen from the sun
layout(location = 3) flat in float inConiferSunArea;  // the conifer trees'
layout(location = 0) out vec4 outColor;

// Specialised per terrain node by where it lies from the eye (render/terrain_draw.h
// TerrainShadingBits): lavapipe runs every branch for every pixel, so what a node cannot need is
// compiled out rather than branched around. CROWN_KINDS is far_composite.frag's (the same keys).
layout(constant_id = 0) const uint FAR_KINDS = 15u;    // bit k: kind k's far field fades in
layout(constant_id = 1) const uint CROWN_KINDS = 3u;   // bit k: kind k's crowns are over a pixel wide
layout(constant_id = 2) const bool SUN_SHADOWS = true;  // the shadow cascades reach
layout(constant_id = 3) const bool WATER = true;        // the river's water may lie here
bool farKind(int k) { return (FAR_KINDS & (1u << uint(k))) != 0u; }
#define FAR_COVER_ONLY  // the far plants' shadow needs their cover only
#include "far_plants.glsl"

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
  vec3 toEye = normalize(frame.eye.xyz - inWorld);
  float noise = 0.6 * valueNoise(inWorld.xz, 23.0) + 0.4 * valueNoise(inWorld.xz, 5.0);
  vec2 layerUv = layerUvAt(frame, inWorld.xz);
  float riverDistance = frame.water.x > 0.5 ? frame.water.w + texture(river, layerUv).r * frame.water.y : 1e30;
  const vec4 stands = standCover(inWorld.xz * frame.farField.xy);
  vec3 albedo = groundAlbedo(n, inWorld.y, noise, plantsAround(stands), riverDistance);
  float shadow = SUN_SHADOWS ? sunShadow(inWorld, n) : 1.0;
  vec3 ambient = ambientLight(frame, n);

  // The far field's plants hide the ground from the sun where the shadow cascades reach (the
  // instances they stand for would shade the ground there; the cascades hold only the instances
  // drawn: letting the faded-out ones cast too matched the all-instance frame a little better,
  // 12.1 against 12.7 levels worst, but doubled the shadow pass on lavapipe).
  float shadeGround = 1.0;
  if (SUN_SHADOWS && FAR_KINDS != 0u) {
    FarLook look;
    for (int k = 0; k < int(FAR_LAYERS); ++k) look.shape[k] = look.lit[k] = look.shade[k] = vec4(0.0);
    look.sunArea = inSunArea;
    look.coniferShade = vec4(0.0, 0.0, inConiferSunArea, 0.0);
    FarPlants far = farPlants(inWorld, n, riverDistance, stands, look);
    // faded out with the cascades as sunShadow fades the drawn instances' shadows
    float depth = 0.0;
    for (int k = 0; k < int(FAR_LAYERS); ++k) depth += far.sunDepth[k] * far.t[k];
    shadeGround = mix(1.0, exp(-depth), far.castsShadow);
  }
  vec3 color = albedo * (sunLight(frame, n) * shadow * shadeGround + ambient);

  // rivers: still water where the river field says the channel is, reflecting the sky
  if (WATER && frame.water.x > 0.5) {
    float wet = 1.0 - smoothstep(frame.water.z * 0.8, frame.water.z, riverDistance);
    if (wet > 0.0) {
      vec3 wn = normalize(vec3(0.04 * (valueNoise(inWorld.xz + frame.eye.w, 3.0) - 0.5), 1.0,
                               0.04 * (valueNoise(inWorld.zx, 3.0) - 0.5)));
      float fresnel = 0.02 + 0.98 * pow(1.0 - max(dot(wn, toEye), 0.0), 5.0);
      // the sky's reflection, and the sun's only where the sun reaches the water
      vec3 r = reflect(-toEye, wn);
      vec3 reflected = skyDome(frame, r) + sunGlow(frame, r) * shadow;
      vec3 deep = vec3(0.02, 0.06, 0.07) * (sunLight(frame, wn) * shadow + ambient);
      vec3 water = mix(deep, reflected, fresnel);
      color = mix(color, water, wet);
    }
  }

  color = applyFog(frame, color, inWorld);
  outColor = vec4(toneMap(frame, color), 1.0);
}
