#version 460
#include "shared.h"
#include "common.glsl"

// The far field's plants over the finished ground (render/terrain_draw.h: a full-screen
// triangle per shading key after the colour pass, where the stencil holds that key's terrain).
// Run once per pixel rather than once per terrain triangle a multisampled pixel meets: far
// terrain triangles are a few pixels wide, and lavapipe shaded the same pixel 2-3 times over
// their edges. What it draws is affine in the ground's colour (far_plants.glsl farOver), so it
// writes (add, 1 - keep) through premultiplied blending.
layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 1) readonly buffer Heights { float heights[]; };
layout(binding = 2) uniform sampler2DArray farField;  // render/far_field.h: premultiplied rgb, coverage
layout(binding = 6) uniform sampler2D river;          // distance to the river (terrain.frag)
layout(binding = 8) uniform sampler2DArray farLook;   // render/far_look.h: each kind's look by direction
layout(binding = 9) uniform sampler2D terrainDepth;   // per pixel, the terrain's nearest sample (depth_reduce.glsl)
layout(push_constant) uniform Push { TerrainPush push; };


layout(location = 0) out vec4 outColor;

layout(constant_id = 0) const uint FAR_KINDS = 15u;    // terrain.frag's, by the same key
layout(constant_id = 1) const uint CROWN_KINDS = 3u;
layout(constant_id = 2) const bool SUN_SHADOWS = true;
bool farKind(int k) { return (FAR_KINDS & (1u << uint(k))) != 0u; }
#include "far_plants.glsl"

ivec2 samples;
float heightAt(ivec2 s) { return heights[s.y * samples.x + s.x]; }
// The terrain's normal as terrain_vertex.glsl gives it at the level drawn this far away: at
// each vertex of that level's grid the height change across its two neighbours, interpolated
// bilinearly between the four vertices around the point (the morph between levels left out).
vec3 terrainNormal(vec2 xz) {
  samples = ivec2(frame.terrain.yz);
  float cell = frame.terrain.x;
  float horizontal = max(distance(xz, frame.eye.xz), 1.0);
  int level = clamp(int(ceil(log2(horizontal / push.lod.x))), 0, int(push.lod.w));
  int step = 1 << level;
  vec2 g = xz / (cell * float(step));
  ivec2 g0 = ivec2(floor(g));
  vec2 f = g - vec2(g0);
  vec2 slope[4];
  for (int i = 0; i < 4; ++i) {
    ivec2 v = g0 + ivec2(i & 1, i >> 1);
    ivec2 lo = clamp((v - 1) * step, ivec2(0), samples - 1), hi = clamp((v + 1) * step, ivec2(0), samples - 1);
    ivec2 mid = clamp(v * step, ivec2(0), samples - 1);
    ivec2 span = hi - lo;
    slope[i] = vec2(span.x > 0 ? (heightAt(ivec2(hi.x, mid.y)) - heightAt(ivec2(lo.x, mid.y))) / float(span.x) : 0.0,
                    span.y > 0 ? (heightAt(ivec2(mid.x, hi.y)) - heightAt(ivec2(mid.x, lo.y))) / float(span.y) : 0.0);
  }
  vec2 s = mix(mix(slope[0], slope[1], f.x), mix(slope[2], slope[3], f.x), f.y);
  return normalize(vec3(-s.x, cell, -s.y));
}

// The far look table toward the eye (terrain_vertex.glsl read it at the vertices before).
FarLook farLookToward(vec3 v) {
  FarLook look;
  vec2 lookUv = farLookUv(frame, v);
  vec2 sunUv = vec2(0.0, asin(clamp(frame.sun.y, 0.0, 1.0)) * (2.0 / 3.14159265));
  for (int k = 0; k < int(FAR_LAYERS); ++k) {
    int base = int(FAR_LOOK_LAYERS) * k;
    look.shape[k] = textureLod(farLook, vec3(lookUv, base), 0.0);
    look.lit[k] = textureLod(farLook, vec3(lookUv, base + 1), 0.0);
    look.shade[k] = vec4(textureLod(farLook, vec3(lookUv, base + 2), 0.0).xy, 0.0, 0.0);
    look.sunArea[k] = textureLod(farLook, vec3(sunUv, base), 0.0).x;
  }
  return look;
}

void main() {
  // the pixel's centre (from gl_FragCoord, not interpolated over the rectangle: the same
  // value whichever rectangle covers the pixel, so every shading key draws the same bits)
  const vec2 inNdc = gl_FragCoord.xy / frame.proj.zw * 2.0 - 1.0;
  // the terrain's point under this pixel: reversed Z, depth = near / view depth
  float depth = texelFetch(terrainDepth, ivec2(gl_FragCoord.xy), 0).r;
  float viewDepth = frame.eye.w / max(depth, 1e-30);
  vec3 ray = frame.forward.xyz + frame.right.xyz * (inNdc.x / frame.proj.x) - frame.up.xyz * (inNdc.y / frame.proj.y);
  vec3 world = frame.eye.xyz + ray * viewDepth;
  vec3 n = terrainNormal(world.xz);
  vec2 layerUv = (world.xz / frame.terrain.x + 0.5) / frame.terrain.yz;
  float riverDistance = frame.water.x > 0.5 ? frame.water.w + texture(river, layerUv).r * frame.water.y : 1e30;
  vec4 stands = standCover(world.xz * frame.farField.xy);
  FarPlants far = farPlants(world, n, riverDistance, stands, farLookToward(normalize(frame.eye.xyz - world)));
  Over o = farOver(world, n, far);
  outColor = vec4(o.add, 1.0 - o.keep);
}
