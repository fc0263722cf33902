// GLSL helpers shared by the shaders. Include after shared.h.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#include "transform.h"

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer InstancePage {
  PackedInstance items[];
};

// An instance decoded from its 16-byte record (shared.h PackedInstance).
struct Instance {
  vec3 position;   // base of the trunk / stem, world metres
  vec3 up;         // unit
  float yaw;       // radians
  vec3 size;       // scale * (crownRadius, meshHeight, crownRadius)
  float scale;
  vec3 color;      // linear 0..1 from the RGB8 tint
  uint kind;
  uint hash;       // a per-instance value independent of where the instance sits in memory and its box
};

float unorm16(uint q, float lo, float hi) { return lo + float(q) * (1.0 / 65535.0) * (hi - lo); }

// tileio/quantize.cpp decodeOctahedral: y is the pole, low byte u (x), high byte v (z)
vec3 decodeOctahedral(uint code) {
  float u = max(float(int(code << 24) >> 24) / 127.0, -1.0);
  float v = max(float(int(code << 16) >> 24) / 127.0, -1.0);
  float y = 1.0 - abs(u) - abs(v);
  if (y < 0.0) {
    float fu = (1.0 - abs(v)) * (u >= 0.0 ? 1.0 : -1.0);
    float fv = (1.0 - abs(u)) * (v >= 0.0 ? 1.0 : -1.0);
    u = fu;
    v = fv;
  }
  return normalize(vec3(u, y, v));
}

Instance decodeWith(PackedInstance p, GpuTile tile, GpuSpecies sp) {
  Instance o;
  o.position = vec3(unorm16(p.x & 0xffffu, tile.boundsMin.x, tile.boundsMax.x),
                    unorm16(p.y & 0xffffu, tile.boundsMin.y, tile.boundsMax.y),
                    unorm16(p.x >> 16, tile.boundsMin.z, tile.boundsMax.z));
  o.yaw = float(p.y >> 16) * (6.283185307179586 / 65536.0);
  float scale = unorm16(p.z & 0xffffu, sp.shape.z, sp.shape.w);
  o.up = decodeOctahedral(p.z >> 16);
  o.size = scale * vec3(sp.shape.y, sp.shape.x, sp.shape.y);
  o.scale = scale;
  o.color = unpackUnorm4x8(p.w).rgb;
  o.kind = min(sp.info.x, KIND_COUNT - 1);
  // from the fields no quantization box changes (yaw, scale, up, tint): a far tree's copy,
  // quantized over its group's box, fades exactly against its tile's (cull.comp)
  uint h = (p.y >> 16) * 0x9E3779B1u ^ (p.z + 0x7F4A7C15u) * 0x85EBCA77u ^ (p.w + 0x165667B1u) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  o.hash = h;
  return o;
}

// Unit-mesh point and normal to world: transform.h, shared with the C++ tests.
vec3 instancePoint(Instance inst, vec3 p) { return placeInstancePoint(inst.position, inst.up, inst.yaw, inst.size, p); }
vec3 instanceNormal(Instance inst, vec3 n) { return placeInstanceNormal(inst.up, inst.yaw, inst.size, n); }

// Bounding sphere of the instance's mesh: the species' mesh sphere placed like a vertex.
vec4 instanceSphere(Instance inst, GpuSpecies sp) {
  return vec4(instancePoint(inst, sp.sphere.xyz), sp.sphere.w * inst.scale);
}

bool speciesHidden(FrameData f, uint s) { return ((f.hidden[s >> 7u][(s >> 5u) & 3u] >> (s & 31u)) & 1u) != 0u; }

float hash01(uint h) { return float(h >> 8) * (1.0 / 16777216.0); }

// The camera's ray through ndc (x, y) (ndc = view x * fx / depth; Vulkan's ndc y points down),
// forward component 1: the point at view depth d is eye + viewRay * d.
vec3 viewRay(FrameData f, vec2 ndc) { return f.forward.xyz + f.right.xyz * (ndc.x / f.proj.x) - f.up.xyz * (ndc.y / f.proj.y); }

// Texture coordinates of the bake's heightmap-sized layers (river, masks) at world xz.
vec2 layerUvAt(FrameData f, vec2 xz) { return (xz / f.terrain.x + 0.5) / f.terrain.yz; }

vec4 toClip(FrameData f, vec3 p) {
  vec4 h = vec4(p, 1.0);
  return vec4(dot(f.clip[0], h), dot(f.clip[1], h), dot(f.clip[2], h), dot(f.clip[3], h));
}

// Clip position in view `view`: 0 the camera, 1 + c shadow cascade c.
vec4 viewClip(FrameData f, uint view, vec3 p) {
  if (view == 0u) return toClip(f, p);
  vec4 h = vec4(p, 1.0);
  uint c = (view - 1u) * 4u;
  return vec4(dot(f.shadowClip[c], h), dot(f.shadowClip[c + 1u], h), dot(f.shadowClip[c + 2u], h),
              dot(f.shadowClip[c + 3u], h));
}

// ---- Light (design: docs/viewer-look.md) ----

// Sky radiance along a unit direction: a gradient from the haze colour at the horizon to the
// zenith colour, a glow around the sun and the sun's disc.
// The sun's glow and disc along dir (skyColor's, apart: a reflection in shade loses them).
vec3 sunGlow(FrameData f, vec3 dir) {
  if ((f.look.x & LOOK_FLAT_SKY) != 0u) return vec3(0.0);
  float toSun = max(dot(dir, f.sun.xyz), 0.0);
  return vec3(1.0, 0.85, 0.6) * (0.25 * pow(toSun, 8.0) + 0.6 * pow(toSun, 64.0)) +
         vec3(1.0, 0.95, 0.85) * 6.0 * smoothstep(0.9995, 0.9998, toSun);
}

// The sky without the sun: the gradient from the horizon haze to the zenith.
vec3 skyDome(FrameData f, vec3 dir) {
  if ((f.look.x & LOOK_FLAT_SKY) != 0u) return f.fog.rgb;
  float up = clamp(dir.y, 0.0, 1.0);
  return mix(f.fog.rgb, f.skyZenith.rgb, pow(up, 0.45));
}

vec3 skyColor(FrameData f, vec3 dir) { return skyDome(f, dir) + sunGlow(f, dir); }

// Hemisphere ambient: sky light from above, ground bounce from below, by the normal's y
// (linear in it: the mean over a surface is the light of its mean n.y).
vec3 ambientUp(FrameData f, float up) {
  vec3 skyAmbient = mix(f.fog.rgb, f.skyZenith.rgb, 0.5);
  return mix(f.ground.rgb, skyAmbient, 0.5 + 0.5 * up) * f.ground.w;
}
vec3 ambientLight(FrameData f, vec3 n) { return ambientUp(f, n.y); }

// Direct sun light reaching a surface whose normal makes max(n.sun, 0) = sunDot with it.
vec3 sunLightDot(FrameData f, float sunDot) { return vec3(1.0, 0.96, 0.88) * (f.sun.w * sunDot); }
vec3 sunLight(FrameData f, vec3 n) { return sunLightDot(f, max(dot(n, f.sun.xyz), 0.0)); }

// The light on a plant's surface (vegetation.frag): sun, the share leaves let through from
// behind (foliage 1: leaves, 0: bark; backDot = max(-n.sun, 0)), shadow, hemisphere ambient.
// Linear in sunDot, backDot and up, so the far field lights a whole plant seen from a
// direction with their means over what it shows (render/far_look.h).
vec3 plantLight(FrameData f, float sunDot, float backDot, float up, float foliage, float shadow) {
  vec3 direct = sunLightDot(f, sunDot) + vec3(1.0, 0.9, 0.6) * f.sun.w * (0.35 * foliage * backDot);
  return direct * shadow + ambientUp(f, up);
}

// Distance fog with aerial perspective: light scattered in along the view ray takes the sky's
// horizon colour, warmer toward the sun; extinction by exp(-density * distance).
vec3 applyFog(FrameData f, vec3 color, vec3 worldPos) {
  if (f.fog.w <= 0.0) return color;
  vec3 toPoint = worldPos - f.eye.xyz;
  float d = length(toPoint);
  vec3 v = toPoint / max(d, 1e-3);
  float k = exp(-d * f.fog.w);
  float toSun = max(dot(v, f.sun.xyz), 0.0);
  vec3 haze = f.fog.rgb + vec3(0.35, 0.25, 0.1) * pow(toSun, 6.0);
  return mix(haze, color, k);
}

// Exposure and a filmic tone curve (Narkowicz's fit of the ACES reference rendering
// transform, 2015): highlights (sky near the sun, snow in full sun) roll off instead of
// clipping. The result goes to the UNORM target as is: the bake's tints are display colours
// (the previous viewer and the exporters show them unconverted), so no sRGB encoding here.
vec3 toneMap(FrameData f, vec3 c) {
  c *= f.skyZenith.w;
  return clamp((c * (2.51 * c + 0.03)) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0);
}

// The far look table's coordinates (render/far_look.h) for unit vector v toward the eye:
// azimuth from the sun's and elevation, both as [0, 1].
vec2 farLookUv(FrameData f, vec3 v) {
  vec2 sunH = f.sun.xz, eyeH = v.xz;
  float h = length(sunH) * length(eyeH);
  return vec2(h > 1e-6 ? acos(clamp(dot(sunH, eyeH) / h, -1.0, 1.0)) / 3.14159265 : 0.0,
              asin(clamp(v.y, 0.0, 1.0)) * (2.0 / 3.14159265));
}

// The far field's canopy lift (terrain_vertex.glsl raises the ground by it; terrain.frag knows
// how far the plants stand above that surface): toward a kind's canopy height where its crowns
// are dense (crown area per ground area `cover` 0.05 to 0.4, read at 32 m texels: a stand, not a
// tree), faded in with the far field (`fade`, its t per kind), and out toward the river: from
// the water's edge to three times that distance plus 24 m (lifted over the water, the 32 m
// texels made a ramp on the far bank that showed the water twice as wide).
float canopyLift(FrameData f, vec2 cover, vec2 fade, float riverDistance) {
  float lift = max(f.canopy[0] * smoothstep(0.05, 0.4, cover.x) * fade.x, f.canopy[1] * smoothstep(0.05, 0.4, cover.y) * fade.y);
  if (f.water.x > 0.5) lift *= smoothstep(f.water.z, f.water.z * 3.0 + 24.0, riverDistance);
  return lift;
}
