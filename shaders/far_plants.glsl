// The far field's plants (render/far_field.h, render/far_look.h): included by terrain.frag,
// which shades the ground under them (their shadow where the cascades reach), and by
// far_composite.frag, which draws them over the finished ground. The includer declares
// `frame`, the farField sampler and the constants FAR_KINDS and CROWN_KINDS (farKind), and
// FAR_COVER_ONLY where it needs the plants' cover but not their colour (terrain.frag).
#ifndef ECO_FAR_PLANTS_GLSL
#define ECO_FAR_PLANTS_GLSL
#include "far_crowns.h"

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

// The far look table toward the eye (render/far_look.h), per kind; for trees the broadleaves'.
struct FarLook {
  vec4 shape[FAR_LAYERS];  // area, foliage share, bark sun, bark up
  vec4 lit[FAR_LAYERS];    // share facing the sun, its n.sun, n.y, spread
  vec4 shade[FAR_LAYERS];  // the rest's -n.sun, n.y
  vec4 sunArea;            // each kind's area seen from the sun
  // the conifer trees' (FAR_LOOK_CONIFER): shape, lit as above; shade: -n.sun, n.y, the area
  // seen from the sun
  vec4 coniferShape, coniferLit, coniferShade;
};

// Two looks of one kind where a share f of its crown area has the second (trees: broadleaves
// and conifers): the projected areas per crown area add, and each part's means are means over
// the parts' areas, as far_look.cpp mixes species into a look (a conifer shows some 2.5 times
// its crown disc from the side, a beech about one: mixed by crown area alone, a beech wood took
// the spruce's look from 2 km on).
void mixLooks(inout vec4 shape, inout vec4 lit, inout vec4 shade, vec4 shape2, vec4 lit2, vec2 shade2, float f) {
  float w1 = (1.0 - f) * shape.x, w2 = f * shape2.x;  // projected area per crown area
  float area = w1 + w2;
  if (area <= 0.0) return;
  float f1 = w1 * shape.y, f2 = w2 * shape2.y;  // foliage
  float b1 = w1 - f1, b2 = w2 - f2;             // bark
  float l1 = f1 * lit.x, l2 = f2 * lit2.x;      // foliage facing the sun
  float s1 = f1 - l1, s2 = f2 - l2;             // the rest of the foliage
  float foliage = f1 + f2, litArea = l1 + l2;
  vec2 bark = (b1 * shape.zw + b2 * shape2.zw) / max(b1 + b2, 1e-6);
  vec2 litMean = (l1 * lit.yz + l2 * lit2.yz) / max(litArea, 1e-6);
  // the lit side's spread: its mean square over both, less the square of its mean
  float litSquare = (l1 * (lit.w * lit.w + lit.y * lit.y) + l2 * (lit2.w * lit2.w + lit2.y * lit2.y)) / max(litArea, 1e-6);
  shade.xy = (s1 * shade.xy + s2 * shade2) / max(s1 + s2, 1e-6);
  shape = vec4(area, foliage / area, bark);
  lit = vec4(litArea / max(foliage, 1e-6), litMean, sqrt(max(litSquare - litMean.x * litMean.x, 0.0)));
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
  float crownSun[FAR_LAYERS];  // share of the sun-facing foliage its neighbours leave in sun (the rest's shade fades with castsShadow: farOver)
};

FarPlants farPlants(vec3 world, vec3 n, float riverDistance, vec4 stands, FarLook look) {
  FarPlants p;
  for (int k = 0; k < int(FAR_LAYERS); ++k) p.seen[k] = p.t[k] = p.sunDepth[k] = 0.0, p.crownSun[k] = 1.0;
  p.castsShadow = 0.0;
  if (FAR_KINDS == 0u || frame.farField.z < 0.5) return p;
  vec3 toEye = frame.eye.xyz - world;
  float d = length(toEye);
  vec3 v = toEye / max(d, 1e-3);
  if (frame.shadowSplits.w > 0.5) {
    float depth = dot(world - frame.eye.xyz, frame.forward.xyz), end = frame.shadowSplits.z;
    p.castsShadow = 1.0 - smoothstep(0.85 * end, end, depth);
  }
  // Plants of a horizontal density rho, each showing area A along v, hide the ground of normal
  // n seen along v with probability 1 - exp(-rho A n.y / n.v) (Beer-Lambert over randomly
  // placed crowns); rho A = a (crown area per ground area) x the table's A / pi r^2.
  float surface = n.y / max(dot(n, v), 0.1);
  float sunSurface = n.y / max(dot(n, frame.sun.xyz), 0.1);
  vec2 uv = world.xz * frame.farField.xy;
  vec4 coverMax = vec4(FAR_COVER_MAX);
  // light variation at stand scale, so the far field does not read as flat paint
  float vary = 0.9 + 0.2 * (0.65 * valueNoise(world.xz, 60.0) + 0.35 * valueNoise(world.xz, 17.0));
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
  // every kind's crown area here, at the level the kinds' looks are read
  vec4 here = texture(farField, vec3(uv, FAR_COVER_LAYER), 1.0);
  vec2 towardEye = length(v.xz) > 1e-4 ? normalize(v.xz) : vec2(0.0);
  float cotElevation = length(v.xz) / max(v.y, 0.1);
  for (int k = 0; k < int(FAR_LAYERS); ++k) {
    // cull.comp keeps a fraction 1 - t of the instances at t = (d - start) / (end - start):
    // the far field comes in linearly over the same band
    if (!farKind(k) || p.t[k] <= 0.0) continue;
    // one mip level coarser than the screen asks for: a texel holds a handful of crowns,
    // magnified it would read as blotches rather than as a stand of plants
    // (the cover alone needs the layer's second-look share, and trees alone have one)
#ifdef FAR_COVER_ONLY
    vec4 layer = vec4(0.0, 0.0, 0.0, k == 0 ? texture(farField, vec3(uv, k), 1.0).a : 0.0);
#else
    vec4 layer = texture(farField, vec3(uv, k), 1.0);
#endif
    float a = here[k];
    if (k < 2) {
      vec2 run = towardEye * (max(frame.canopy[k] - lift, 0.0) * cotElevation) * frame.farField.xy;
      if (dot(run, run) > 0.0)  // trapezoid rule over the run
        a = 0.25 * a + 0.5 * texture(farField, vec3(uv + 0.5 * run, FAR_COVER_LAYER), 1.0)[k] +
            0.25 * texture(farField, vec3(uv + run, FAR_COVER_LAYER), 1.0)[k];
    }
    if (a < 1.0 / 512.0) continue;
    p.shape[k] = look.shape[k];
    p.lit[k] = look.lit[k];
    p.shade[k] = look.shade[k];
    float sunArea = look.sunArea[k];
    if (k == 0 && layer.a > 0.0) {  // the trees' conifers
#ifndef FAR_COVER_ONLY
      mixLooks(p.shape[0], p.lit[0], p.shade[0], look.coniferShape, look.coniferLit, look.coniferShade.xy, layer.a);
#endif
      sunArea = mix(sunArea, look.coniferShade.z, layer.a);
    }
    a *= coverMax[k];
    // Over the fade band the far field stands for the fraction t of the instances cull.comp has
    // dropped (at random): their optical depth t a A s, so the ground the kept instances and
    // the layer leave together is exp(-a A s) as with all drawn (t times the full cover left
    // 5-13 levels of pale ground showing through the band)
    p.seen[k] = 1.0 - exp(-a * p.shape[k].x * surface * p.t[k]);
    p.sunDepth[k] = a * sunArea * sunSurface;
    p.tint[k] = layer.rgb * vary;
    p.crownSun[k] = exp(-CROWN_SHADE * p.sunDepth[k]);
  }
  return p;
}

// Sun-facing foliage of colour `tint` (mean n.sun sunDot, mean n.y up) with `sun` of its sun,
// as a pixel shows it: lit, fogged, tone-mapped.
vec3 litTone(vec3 tint, float sunDot, float up, float sun, vec3 world) {
  return toneMap(frame, applyFog(frame, tint * plantLight(frame, sunDot, 0.0, up, 1.0, sun), world));
}

// What the far field does to a pixel of ground whose finished colour (fogged, tone-mapped) is
// `result`: result * keep + add. Each kind's layer is mixed over what is there, so the whole is
// affine in it, and far_composite.frag draws it once per pixel with blending (render/
// far_composite.h) instead of once per terrain triangle a multisampled pixel meets.
struct Over {
  float keep;
  vec3 add;
};
// mix(x, c, w) after x -> x * o.keep + o.add
Over overMix(Over o, vec3 c, float w) { return Over(o.keep * (1.0 - w), mix(o.add, c, w)); }

// Each kind's layer over the ground where its instances fade out. Mixed after fog and tone
// mapping: the instances it stands for are sub-pixel, and a pixel's samples (or a few pixels
// seen together) average finished colours, not light.
Over farOver(vec3 world, vec3 n, FarPlants far) {
  Over result = Over(1.0, vec3(0.0));
  vec3 toEye = normalize(frame.eye.xyz - world);
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
    // The foliage in its neighbours' shade gets back 1 - castsShadow of its sun where the
    // cascades fade out, in light before the tone curve, as sunShadow fades the drawn
    // instances' shadows: mixing the tone-mapped parts by the fade instead (a share of pixels,
    // which the fade is not) read the fade zone's shadows 1.3-2.8 times the drawn frame's on
    // the sample under three suns (docs/viewer-far-field.md, "Other suns").
    float faded = 1.0 - far.castsShadow;
    vec3 litLow = mix(litTone(tint, lit.y - lit.w, lit.z, faded, world), litTone(tint, lit.y - lit.w, lit.z, 1.0, world), far.crownSun[k]);
    vec3 litHigh = mix(litTone(tint, lit.y + lit.w, lit.z, faded, world), litTone(tint, lit.y + lit.w, lit.z, 1.0, world), far.crownSun[k]);
    vec3 litPart = 0.5 * (litLow + litHigh);
    vec3 shadePart = toneMap(frame, applyFog(frame, tint * plantLight(frame, 0.0, shade.x, shade.y, 1.0, 1.0), world));
    vec3 barkPart = toneMap(frame, applyFog(frame, vec3(BARK_COLOR) * plantLight(frame, shape.z, 0.0, shape.w, 0.0, 1.0), world));
    vec3 plant = mix(barkPart, mix(shadePart, litPart, lit.x), shape.y);
    Over mean = overMix(result, plant, far.seen[k]);
    // The grain of plants smaller than a pixel. The frame drawn with every instance is not
    // smooth there: each of a pixel's samples lands on a crown's lit or shaded side, a trunk or
    // the ground between, and the pixel averages its samples (a far forest drawn as the mean
    // alone read as paint: 0.3-0.5 of that frame's pixel-scale contrast, bench/frame_compare.py,
    // and a tenth in the smoothest rows). One draw per world cell about a crown's radius wide
    // (half a metre for grass and ground cover), with the shares the mean is made of, so it
    // averages to `mean`; pulled toward the mean by 1 / sqrt(samples per pixel), as a pixel's
    // independent samples are. Anchored in the world, it sparkles as the camera moves as the
    // instances it stands for do.
    float grainCell = k < 2 && frame.crownSize[k] > 0.0 ? frame.crownSize[k] : 0.5;
    uint g = crownHash(floor(world.xz / grainCell), k + 4);
    vec3 part = float(g & 1023u) < 1024.0 * shape.y
                    ? (float((g >> 10) & 1023u) < 1024.0 * lit.x ? ((g & 0x80000000u) != 0u ? litHigh : litLow) : shadePart)
                    : barkPart;
    Over drawn = float((g >> 20) & 1023u) < 1024.0 * far.seen[k] ? overMix(result, part, 1.0) : result;
    float grain = inversesqrt(max(frame.terrain.w, 1.0));
    mean = Over(mix(mean.keep, drawn.keep, grain), mix(mean.add, drawn.add, grain));
    // Crowns where they are a few pixels wide: one crown per cell of a jittered grid at the
    // kind's crown spacing, its radius chosen so crowns take `seen` of the ground and its sunlit
    // side `lit.x` of each crown, so the pattern averages to `mean`'s expectation; faded to the
    // grain above as a crown shrinks toward a pixel.
    // (trees and shrubs only: far_field.cpp gives grass and ground cover no crown size. The
    // test on k, known in each unrolled iteration, drops their crown code, which lavapipe, which
    // runs both sides of a branch for every pixel, paid on all the ground: 1.5 km view 10 %)
    float r = k < 2 && (CROWN_KINDS & (1u << uint(k))) != 0u ? frame.crownSize[k] : 0.0;
    // a pixel's width at this distance (ndc = x fy / depth over proj.w pixels)
    float footprint = distance(frame.eye.xyz, world) * 2.0 / (frame.proj.y * frame.proj.w);
    float detail = r > 0.0 ? 1.0 - smoothstep(0.5, 1.0, footprint / r) : 0.0;
    if (detail > 0.0) {
      float cell = 2.5 * r;
      vec2 p = world.xz / cell;
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
      Over speckled = overMix(result, crown, inside);
      result = Over(mix(mean.keep, speckled.keep, detail), mix(mean.add, speckled.add, detail));
    } else {
      result = mean;
    }
  }

  return result;
}

#endif  // ECO_FAR_PLANTS_GLSL
