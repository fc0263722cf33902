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
#include "far_crowns.h"

layout(location = 0) in vec3 inWorld;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec4 inLookShape[FAR_LAYERS];  // terrain_vertex.glsl: the look table toward the eye
layout(location = 6) in vec4 inLookLit[FAR_LAYERS];
layout(location = 10) in vec4 inLookShade[2];
layout(location = 12) flat in vec4 inSunArea;
layout(location = 0) out vec4 outColor;

// Specialised per terrain node by where it lies from the eye (render/terrain_draw.h
// TerrainShadingBits): lavapipe runs every branch for every pixel, so what a node cannot need is
// compiled out rather than branched around.
layout(constant_id = 0) const uint FAR_KINDS = 15u;    // bit k: kind k's far field fades in
layout(constant_id = 1) const uint CROWN_KINDS = 3u;   // bit k: kind k's crowns are over a pixel wide
layout(constant_id = 2) const bool SUN_SHADOWS = true;  // the shadow cascades reach
layout(constant_id = 3) const bool WATER = true;        // the river's water may lie here
bool farKind(int k) { return (FAR_KINDS & (1u << uint(k))) != 0u; }
// (SUN_SHADOWS leaves out the shadow map's reads only: also folding the far field's
// castsShadow to 0 made lavapipe's code for the crown variant 1.3x slower, 1.5 km view)

float hash12(vec2 p) {
  uvec2 q = uvec2(ivec2(floor(p)) + 32768);
  uint h = q.x * 0x9E3779B1u ^ q.y * 0x85EBCA77u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return float(h >> 8) * (1.0 / 16777216.0);
}

// 32 random bits for crown cell c of kind k: one hash gives a crown its centre and its height
uint crownHash(vec2 c, int k) {
  uvec2 q = uvec2(ivec2(c) + 32768);
  uint h = q.x * 0x9E3779B1u ^ q.y * 0x85EBCA77u ^ uint(k) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return h;
}

// smooth value noise in [0, 1] with features of `scale` metres
float valueNoise(vec2 p, float scale) {
  p /= scale;
  vec2 f = fract(p), u = f * f * (3.0 - 2.0 * f);
  vec2 i = floor(p);
  return mix(mix(hash12(i), hash12(i + vec2(1, 0)), u.x), mix(hash12(i + vec2(0, 1)), hash12(i + vec2(1, 1)), u.x), u.y);
}

// Each kind's crown area per ground area around a point, from the far-field layers
// (render/far_field.h) two levels above their finest (32 m at 8 m texels: a stand, not single
// plants). Read once: the ground's colour and the canopy's lift both use it.
vec4 standCover(vec2 uv) {
  vec4 coverMax = vec4(FAR_COVER_MAX);
  return textureLod(farField, vec3(uv, FAR_COVER_LAYER), 2.0) * coverMax;
}

// What grows around a point: x the share of the ground under tree and shrub crowns, y under
// grass and ground cover. (-1, -1) before any survey data.
vec2 plantsAround(vec4 stands) {
  if (frame.farField.w < 0.5) return vec2(-1.0);
  return vec2(min(stands.x + stands.y, 1.0), stands.z + stands.w);
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

// Inside the shadow cascades the frame drawn with every instance has crowns shaded by their
// neighbours; the far field's sun-facing foliage keeps exp(-CROWN_SHADE x the stand's optical
// depth toward the sun) of its sun there. Fitted against that frame at 1.5 and 3 km (0.5 read
// 10-20 levels dark): the neighbours reach little of a crown's sunlit top, so far less than
// the ground's full depth.
const float CROWN_SHADE = 0.15;
// The far field at this fragment (render/far_field.h, render/far_look.h), per kind k.
struct FarPlants {
  float seen[FAR_LAYERS];      // share of the ground its plants hide from the eye (of those faded out: t)
  float t[FAR_LAYERS];         // how far the layer has faded in (0 near: the instances are drawn)
  float sunDepth[FAR_LAYERS];  // optical depth of its plants toward the sun, over this ground
  vec3 tint[FAR_LAYERS];       // mean colour of its plants, with stand-scale variation
  vec4 shape[FAR_LAYERS], lit[FAR_LAYERS], shade[FAR_LAYERS];  // the look table toward the eye
  float castsShadow;           // 1 where the shadow cascades reach, fading out with them
  float crownSun[FAR_LAYERS];  // share of the sun-facing foliage its neighbours leave in sun
};

FarPlants farPlants(vec3 n, float riverDistance, vec4 stands) {
  FarPlants p;
  for (int k = 0; k < int(FAR_LAYERS); ++k) p.seen[k] = p.t[k] = p.sunDepth[k] = 0.0, p.crownSun[k] = 1.0;
  p.castsShadow = 0.0;
  if (FAR_KINDS == 0u || frame.farField.z < 0.5) return p;
  vec3 toEye = frame.eye.xyz - inWorld;
  float d = length(toEye);
  vec3 v = toEye / max(d, 1e-3);
  if (frame.shadowSplits.w > 0.5) {
    float depth = dot(inWorld - frame.eye.xyz, frame.forward.xyz), end = frame.shadowSplits.z;
    p.castsShadow = 1.0 - smoothstep(0.85 * end, end, depth);
  }
  // Plants of a horizontal density rho, each showing area A along v, hide the ground of normal
  // n seen along v with probability 1 - exp(-rho A n.y / n.v) (Beer-Lambert over randomly
  // placed crowns); rho A = a (crown area per ground area) x the table's A / pi r^2.
  float surface = n.y / max(dot(n, v), 0.1);
  float sunSurface = n.y / max(dot(n, frame.sun.xyz), 0.1);
  vec2 uv = inWorld.xz * frame.farField.xy;
  vec4 coverMax = vec4(FAR_COVER_MAX);
  // light variation at stand scale, so the far field does not read as flat paint
  float vary = 0.9 + 0.2 * (0.65 * valueNoise(inWorld.xz, 60.0) + 0.35 * valueNoise(inWorld.xz, 17.0));
  for (int k = 0; k < int(FAR_LAYERS); ++k)
    p.t[k] = farKind(k) ? clamp((d - frame.fadeStart[k]) / max(frame.fadeEnd[k] - frame.fadeStart[k], 1e-3), 0.0, 1.0) : 0.0;
  // How far the trees and shrubs stand above this surface (the vertices lifted it by
  // canopyLift; none near the river): the line of sight crosses their canopy over a run of
  // `above` x cot(elevation) toward the eye, and the plants it meets are those of that run, not
  // of this spot. The mean crown area over the run (the trapezoid rule at its ends and middle;
  // the lift as the vertices have it, not their interpolated one, which put the cover a few
  // metres off: 8.2 against 7.6 levels worst at 1.5 km) puts the cover where the plants' images
  // fall: past a stand's far edge (the near bank's trees hide the water's near
  // half, as drawn ones do) and no longer at its near edge, where the ground shows in front of
  // the first trunks.
  float lift = canopyLift(frame, stands.xy, vec2(p.t[0], p.t[1]), riverDistance);
  vec2 towardEye = length(v.xz) > 1e-4 ? normalize(v.xz) : vec2(0.0);
  float cotElevation = length(v.xz) / max(v.y, 0.1);
  for (int k = 0; k < int(FAR_LAYERS); ++k) {
    // cull.comp keeps a fraction 1 - t of the instances at t = (d - start) / (end - start):
    // the far field comes in linearly over the same band
    if (!farKind(k) || p.t[k] <= 0.0) continue;
    // one mip level coarser than the screen asks for: a texel holds a handful of crowns,
    // magnified it would read as blotches rather than as a stand of plants
    vec4 layer = texture(farField, vec3(uv, k), 1.0);
    if (k < 2) {
      vec2 run = towardEye * (max(frame.canopy[k] - lift, 0.0) * cotElevation) * frame.farField.xy;
      if (dot(run, run) > 0.0)  // trapezoid rule over the run
        layer.a = 0.25 * layer.a + 0.5 * texture(farField, vec3(uv + 0.5 * run, FAR_COVER_LAYER), 1.0)[k] +
                  0.25 * texture(farField, vec3(uv + run, FAR_COVER_LAYER), 1.0)[k];
    }
    if (layer.a < 1.0 / 512.0) continue;
    p.shape[k] = inLookShape[k];  // area, foliage share, bark sun, bark up
    p.lit[k] = inLookLit[k];      // share facing the sun, its n.sun, n.y
    p.shade[k] = vec4(k % 2 == 0 ? inLookShade[k / 2].xy : inLookShade[k / 2].zw, 0.0, 0.0);  // the rest's -n.sun, n.y
    float a = layer.a * coverMax[k];
    // Over the fade band the far field stands for the fraction t of the instances cull.comp has
    // dropped (at random): their optical depth t a A s, so the ground the kept instances and
    // the layer leave together is exp(-a A s) as with all drawn (t times the full cover left
    // 5-13 levels of pale ground showing through the band)
    p.seen[k] = 1.0 - exp(-a * p.shape[k].x * surface * p.t[k]);
    p.sunDepth[k] = a * inSunArea[k] * sunSurface;
    p.tint[k] = layer.rgb * vary;
    p.crownSun[k] = mix(1.0, exp(-CROWN_SHADE * p.sunDepth[k]), p.castsShadow);
  }
  return p;
}

void main() {
  vec3 n = normalize(inNormal);
  vec3 toEye = normalize(frame.eye.xyz - inWorld);
  float noise = 0.6 * valueNoise(inWorld.xz, 23.0) + 0.4 * valueNoise(inWorld.xz, 5.0);
  vec2 layerUv = (inWorld.xz / frame.terrain.x + 0.5) / frame.terrain.yz;  // heightmap samples
  float riverDistance = frame.water.x > 0.5 ? frame.water.w + texture(river, layerUv).r * frame.water.y : 1e30;
  const vec4 stands = standCover(inWorld.xz * frame.farField.xy);
  vec3 albedo = groundAlbedo(n, inWorld.y, noise, plantsAround(stands), riverDistance);
  float shadow = SUN_SHADOWS ? sunShadow(inWorld, n) : 1.0;
  vec3 ambient = ambientLight(frame, n);

  // The far field's plants here: per kind how much of the ground they hide from the eye, and
  // from the sun where the shadow cascades reach (the instances they stand for would shade the
  // ground there; the cascades hold only the instances drawn: letting the faded-out ones cast
  // too matched the all-instance frame a little better, 12.1 against 12.7 levels worst, but
  // doubled the shadow pass on lavapipe). Their crowns' shading by neighbours: farPlants.
  FarPlants far = farPlants(n, riverDistance, stands);
  float shadeGround = 1.0;
  for (int k = int(FAR_LAYERS) - 1; k >= 0; --k) shadeGround *= exp(-far.sunDepth[k] * far.t[k] * far.castsShadow);
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
  vec3 result = toneMap(frame, color);
  // far field: each kind's layer over the ground where its instances fade out. Mixed after fog
  // and tone mapping: the instances it stands for are sub-pixel, and a pixel's samples (or a
  // few pixels seen together) average finished colours, not light.
  // (the crowns' frame below, the same for every kind: the view's and the sun's azimuths, and
  // how much a crown's outline stretches toward the eye)
  vec2 away = length(toEye.xz) > 1e-4 ? normalize(toEye.xz) : vec2(1.0, 0.0);
  vec2 across = vec2(-away.y, away.x);
  float slant = sqrt(clamp(dot(n, toEye), 0.55, 1.0));
  vec2 toSun = length(frame.sun.xz) > 1e-4 ? normalize(frame.sun.xz) : vec2(1.0, 0.0);
  for (int k = int(FAR_LAYERS) - 1; k >= 0 && FAR_KINDS != 0u; --k) {
    if (!farKind(k) || far.seen[k] <= 0.0) continue;
    vec4 shape = far.shape[k], lit = far.lit[k], shade = far.shade[k];
    // the parts lit, each fogged and tone-mapped apart as their pixels would be, then mixed by
    // their shares
    vec3 tint = far.tint[k];
    // the lit side's n.sun spreads over (0, 1] and the tone curve bends: its mean picture is
    // the mean of two points a standard deviation lit.w either side (exact for a cubic curve)
    vec3 litShaded = toneMap(frame, applyFog(frame, tint * plantLight(frame, lit.y, 0.0, lit.z, 1.0, 0.0), inWorld));
    vec3 litLow = mix(litShaded, toneMap(frame, applyFog(frame, tint * plantLight(frame, lit.y - lit.w, 0.0, lit.z, 1.0, 1.0), inWorld)), far.crownSun[k]);
    vec3 litHigh = mix(litShaded, toneMap(frame, applyFog(frame, tint * plantLight(frame, lit.y + lit.w, 0.0, lit.z, 1.0, 1.0), inWorld)), far.crownSun[k]);
    vec3 litPart = 0.5 * (litLow + litHigh);
    vec3 shadePart = toneMap(frame, applyFog(frame, tint * plantLight(frame, 0.0, shade.x, shade.y, 1.0, 1.0), inWorld));
    vec3 barkPart = toneMap(frame, applyFog(frame, vec3(BARK_COLOR) * plantLight(frame, shape.z, 0.0, shape.w, 0.0, 1.0), inWorld));
    vec3 plant = mix(barkPart, mix(shadePart, litPart, lit.x), shape.y);
    vec3 mean = mix(result, plant, far.seen[k]);
    // Crowns where they are a few pixels wide: one crown per cell of a jittered grid at the
    // kind's crown spacing, its radius chosen so crowns take `seen` of the ground and its sunlit
    // side `lit.x` of each crown, so the pattern averages to `mean`; faded to the mean as a
    // crown shrinks toward a pixel (no shimmer).
    // (trees and shrubs only: far_field.cpp gives grass and ground cover no crown size. The
    // test on k, known in each unrolled iteration, drops their crown code, which lavapipe, which
    // runs both sides of a branch for every pixel, paid on all the ground: 1.5 km view 10 %)
    float r = k < 2 && (CROWN_KINDS & (1u << uint(k))) != 0u ? frame.crownSize[k] : 0.0;
    // a pixel's width at this distance (ndc = x fy / depth over proj.w pixels)
    float footprint = distance(frame.eye.xyz, inWorld) * 2.0 / (frame.proj.y * frame.proj.w);
    float detail = r > 0.0 ? 1.0 - smoothstep(0.5, 1.0, footprint / r) : 0.0;
    if (detail > 0.0) {
      float cell = 2.5 * r;
      vec2 p = inWorld.xz / cell;
      float seen = far.seen[k];
      float radius = farCrownRadius(seen);
      // Every crown reaching this point (centres lie in the middle 0.6 of their cell, so the
      // 3 x 3 cells around it hold them all) and the one on top: crowns are domes of random
      // height, so they overlap as round crowns do seen from above instead of splitting the
      // ground along straight lines (nearest centre alone drew a cobbled pavement). The point
      // is covered when any crown reaches it, the nearest-centre rule farCrownRadius is
      // measured for.
      // A crown is a ball standing on the ground, not a disc on it: seen at a slant its outline
      // on the ground stretches away from the eye. The crowns keep their area (the cover) as
      // ellipses 1 / sqrt(s) longer toward the eye and sqrt(s) narrower across, s = n.v, so
      // each reads round on the screen (flat discs read as a pavement of wide flat cobbles);
      // s at least 0.55, so a crown reaches at most 1.05 x 0.844 / sqrt(0.55) = 1.19 cells from its
      // centre, and every crown reaching a point is in the 3 x 3 cells around it (a centre two
      // cells over is at least 1.2 away).
      vec2 base = floor(p) - 1.0;
      float top = -1.0;
      vec2 offset = vec2(0.0);
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) {
          vec2 c = base + vec2(i, j);
          uint h = crownHash(c, k);
          vec2 jitter = vec2(uvec2(h, h >> 10) & 1023u) * (1.0 / 1024.0);
          vec2 d = p - (c + FAR_CROWN_JITTER_MIN + FAR_CROWN_JITTER_SPAN * jitter);
          vec2 o = away * (dot(d, away) * slant) + across * (dot(d, across) / slant);
          float rho2 = dot(o, o) / (radius * radius);
          // the dome's height 1 - rho^2 (a paraboloid: no square root in the loop), out to
          // 1.05 radii for the soft edge below; selects, not branches (lavapipe runs the
          // fragments of a SIMD group in lockstep)
          float height = rho2 < 1.1025 ? FAR_CROWN_LIFT * float(h >> 22) * (1.0 / 1024.0) + 1.0 - rho2 : -1.0;
          bool above = height > top;
          top = above ? height : top;
          offset = above ? o : offset;
        }
      float rho = length(offset) / max(radius, 1e-3);
      float inside = top < 0.0 ? 0.0 : 1.0 - smoothstep(0.95, 1.05, rho);
      // the sunlit side: the segment of the crown toward the sun holding lit.x of its disc,
      // behind a soft terminator, brightening toward the sun's limb; the crown darker toward
      // its rim (far_crowns.h)
      float along = dot(offset, toSun) / max(radius, 1e-3);  // -1 .. 1 across the crown
      float terminator = farCrownTerminator(lit.x);
      float litSide = 1.0 - smoothstep(-0.35, 0.35, terminator - along);
      float towardSun = clamp((along - terminator) / max(1.0 - terminator, 1e-3), 0.0, 1.0);
      vec3 litHere = mix(litLow, litHigh, clamp(0.5 + FAR_CROWN_SUN_SPREAD * (towardSun - 0.4), -0.3, 1.3));
      float dome = 1.0 + FAR_CROWN_RELIEF * (sqrt(max(1.0 - rho * rho, 0.0)) - farCrownDomeMean(seen));
      vec3 crown = mix(barkPart, mix(shadePart, litHere, litSide), shape.y) * dome;
      vec3 speckled = mix(result, crown, inside);
      result = mix(mean, speckled, detail);
    } else {
      result = mean;
    }
  }

  // mask overlay: the layer's value through the legend's ramp, over the lit picture
  if (frame.overlay.x > 0.5) {
    float value = texture(overlay, layerUv).r;
    result = mix(result, overlayRamp(value), frame.overlay.y);
  }
  outColor = vec4(result, 1.0);
}
