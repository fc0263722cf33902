#include "shared.h"
#include "common.glsl"

// The far field's plants over the finished ground (render/terrain_draw.h: after the colour
// pass, per shading key the screen tiles its nodes cover, the stencil picking its samples).
// far_composite.frag for one sample per pixel, far_composite_ms.frag for more.
// Run once per pixel rather than once per terrain triangle a multisampled pixel meets: far
// terrain triangles are a few pixels wide, and lavapipe shaded the same pixel 2-3 times over
// their edges. What it draws is affine in the ground's colour (far_plants.glsl farOver), so it
// writes (add, 1 - keep) through premultiplied blending.
layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 1) readonly buffer Heights { float heights[]; };
layout(binding = 2) uniform sampler2DArray farField;  // render/far_field.h: premultiplied rgb, coverage
layout(binding = 6) uniform sampler2D river;          // distance to the river (terrain.frag)
layout(push_constant) uniform Push { TerrainPush push; };


layout(location = 0) in vec4 inLookShape[FAR_LAYERS];  // composite.vert: the far look table toward the eye
layout(location = 4) in vec4 inLookLit[FAR_LAYERS];
layout(location = 8) in vec4 inLookShade[2];
layout(location = 10) flat in vec4 inSunArea;
layout(location = 11) in vec4 inConiferShape;
layout(location = 12) in vec4 inConiferLit;
layout(location = 13) in vec4 inConiferShade;
layout(location = 0) out vec4 outColor;

layout(constant_id = 0) const uint FAR_KINDS = 15u;    // terrain.frag's, by the same key
layout(constant_id = 1) const uint CROWN_KINDS = 3u;
layout(constant_id = 2) const bool SUN_SHADOWS = true;
bool farKind(int k) { return (FAR_KINDS & (1u << uint(k))) != 0u; }
#include "far_plants.glsl"
#include "terrain_point.glsl"

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

void main() {
  vec3 world = terrainPoint(frame, gl_FragCoord.xy, terrainDepthAt(ivec2(gl_FragCoord.xy)));
  vec3 n = terrainNormal(world.xz);
  vec2 layerUv = layerUvAt(frame, world.xz);
  float riverDistance = frame.water.x > 0.5 ? frame.water.w + texture(river, layerUv).r * frame.water.y : 1e30;
  vec4 stands = standCover(world.xz * frame.farField.xy);
  FarLook look;
  for (int k = 0; k < int(FAR_LAYERS); ++k) {
    look.shape[k] = inLookShape[k];
    look.lit[k] = inLookLit[k];
    look.shade[k] = vec4(k % 2 == 0 ? inLookShade[k / 2].xy : inLookShade[k / 2].zw, 0.0, 0.0);
  }
  look.sunArea = inSunArea;
  look.coniferShape = inConiferShape;
  look.coniferLit = inConiferLit;
  look.coniferShade = inConiferShade;
  FarPlants far = farPlants(world, n, riverDistance, stands, look);
  Over o = farOver(world, n, far);
  outColor = vec4(o.add, 1.0 - o.keep);
}
