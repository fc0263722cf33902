// Terrain vertex shader body (render/terrain_draw.h), included by terrain.vert, with
// TERRAIN_DEPTH_ONLY defined by terrain_depth.vert and with TERRAIN_CAPTURE defined by
// terrain_capture.vert.
//
// Each instance is one selected quadtree node (TerrainNode): a patch of n x n quads at level L,
// one quad per 2^L cells. Vertices carry no attributes: gl_VertexIndex < (n + 1)^2 is a grid
// vertex, the rest are quad centres (the 4-triangle split; see the index buffer in
// terrain_draw.cpp). Heights come from the heightmap buffer.
//
// Morphing (CDLOD-style): past a level's morph start every vertex moves toward the level
// L + 1 mesh, which the patch becomes exactly at the morph end. Grid vertices on a coarse
// vertex stay; those halfway along a coarse edge slide onto the edge's first vertex (so the
// patch's border then has the coarse vertices only, bit for bit: no T-junctions); those at a
// coarse quad's centre take the coarse centre's height, and quad centres the height of the
// coarse triangle edge they lie on (the 4-triangle split nests: each fine quad's triangles
// fall inside coarse triangles). The CPU selects nodes so that where a level-L node touches a
// level L + 1 node, the former has fully morphed and the latter not yet started: their
// shared edge has the same vertices on both sides (no cracks).
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 1) readonly buffer Heights { float heights[]; };
layout(binding = 6) uniform sampler2D river;  // distance to the river (terrain.frag), the canopy's gaps
layout(binding = 3) readonly buffer Nodes { TerrainNode nodes[]; };
layout(binding = 2) uniform sampler2DArray farField;  // render/far_field.h (the canopy below)
#ifndef TERRAIN_DEPTH_ONLY
layout(binding = 8) uniform sampler2DArray farLook;  // render/far_look.h: each kind's look by direction
#endif
#ifdef TERRAIN_CAPTURE
// Debug: each vertex's world position at instance * TERRAIN_PATCH_VERTICES + vertex.
layout(binding = 4) writeonly buffer Capture { vec4 captured[]; };
#endif
layout(push_constant) uniform Push { TerrainPush push; };

layout(location = 0) out vec3 outWorld;
layout(location = 1) out vec3 outNormal;
#ifndef TERRAIN_DEPTH_ONLY
// Each kind's area seen from the sun (the same for every vertex of a frame), for the far field's
// shadow on the ground (terrain.frag)
layout(location = 2) flat out vec4 outSunArea;
layout(location = 3) flat out float outConiferSunArea;  // the conifer trees' (FAR_LOOK_CONIFER)
#endif
// The depth pre-pass and the colour pass compile this file apart (the colour pass reads the
// look table as well): their depths must match bit for bit (the colour pass tests >=).
precise gl_Position;

ivec2 samples;  // heightmap size
int step;       // cells per quad at this level

float heightAt(ivec2 s) { return heights[s.y * samples.x + s.x]; }

// The sample a level's grid vertex g sits on: outside the heightmap, clamped to its edge
// (nodes along the far edges can reach past it; their vertices collapse onto the edge).
ivec2 sampleOf(ivec2 g) { return clamp(g * step, ivec2(0), samples - 1); }
float gridHeight(ivec2 g) { return heightAt(sampleOf(g)); }

// Height change per sample along d from g - d to g + d (0 where both clamp to one sample).
float slopeAcross(ivec2 g, ivec2 d) {
  ivec2 s0 = sampleOf(g - d), s1 = sampleOf(g + d);
  int span = abs(s1.x - s0.x) + abs(s1.y - s0.y);
  return span > 0 ? (heightAt(s1) - heightAt(s0)) / float(span) : 0.0;
}

float coarseCentre(ivec2 o) {  // o: a grid vertex with both indices odd
  return 0.25 * (gridHeight(o + ivec2(-1, -1)) + gridHeight(o + ivec2(1, -1)) + gridHeight(o + ivec2(-1, 1)) +
                 gridHeight(o + ivec2(1, 1)));
}

void main() {
  TerrainNode node = nodes[gl_InstanceIndex];
  samples = ivec2(frame.terrain.yz);
  int level = int(node.cell.z), n = int(node.cell.w);
  step = 1 << level;
  ivec2 origin = ivec2(node.cell.xy) / step;  // grid index of the node's first vertex (exact)
  int corners = (n + 1) * (n + 1);
  int v = gl_VertexIndex;

  vec2 pos, coarsePos;           // in samples: this level's vertex and where it morphs to
  float fine, coarse;            // heights there
  vec2 slopeFine, slopeCoarse;  // per sample
  if (v < corners) {
    ivec2 g = origin + ivec2(v % (n + 1), v / (n + 1));
    ivec2 s = sampleOf(g);
    pos = coarsePos = vec2(s);
    fine = coarse = heightAt(s);
    ivec2 odd = g & 1;
    if (odd.x + odd.y == 2) {
      coarse = coarseCentre(g);
    } else if (odd.x + odd.y == 1) {
      ivec2 a = sampleOf(g - odd);
      coarsePos = vec2(a);
      coarse = heightAt(a);
    }
    slopeFine = vec2(slopeAcross(g, ivec2(1, 0)), slopeAcross(g, ivec2(0, 1)));
    slopeCoarse = vec2(slopeAcross(g, ivec2(2, 0)), slopeAcross(g, ivec2(0, 2)));
  } else {
    int c = v - corners;
    ivec2 g = origin + ivec2(c % n, c / n);  // the quad's first grid vertex
    pos = coarsePos = min((vec2(g) + 0.5) * float(step), vec2(samples - 1));
    float h00 = gridHeight(g), h10 = gridHeight(g + ivec2(1, 0));
    float h01 = gridHeight(g + ivec2(0, 1)), h11 = gridHeight(g + ivec2(1, 1));
    fine = 0.25 * (h00 + h10 + h01 + h11);  // the bilinear surface's height at the centre
    ivec2 e = g + (g & 1);      // the quad's corner on the coarse grid
    ivec2 o = g + 1 - (g & 1);  // its corner at a coarse quad's centre
    coarse = 0.5 * (gridHeight(e) + coarseCentre(o));
    slopeFine = vec2(h10 - h00 + h11 - h01, h01 - h00 + h11 - h10) * (0.5 / float(step));
    slopeCoarse = slopeFine;
  }

  float cell = frame.terrain.x;
  float k = 0.0;
  if (level < int(push.lod.w)) {
    float range = push.lod.x * float(step);
    k = clamp((distance(pos * cell, frame.eye.xz) - push.lod.y * range) / ((push.lod.z - push.lod.y) * range), 0.0, 1.0);
  }
  // x * (1 - k) + y * k: exactly x at k = 0 and exactly y at k = 1, which the shared edges
  // between levels rely on
  vec2 xz = (pos * (1.0 - k) + coarsePos * k) * cell;
  float h = fine * (1.0 - k) + coarse * k;
  vec2 slope = mix(slopeFine, slopeCoarse, k);
  outNormal = normalize(vec3(-slope.x, cell, -slope.y));
  outWorld = vec3(xz.x, h, xz.y);
  // The far field's canopy: beyond the instances a stand of trees or shrubs still stands up from
  // the ground, so a forested ridge keeps its tree line against the sky (canopyLift). A vertex's
  // lift depends on its position only: shared edges between LOD levels still meet.
  if (frame.farField.z > 0.5) {
    float d = distance(outWorld, frame.eye.xyz);
    vec2 uv = outWorld.xz * frame.farField.xy;
    vec2 cover = textureLod(farField, vec3(uv, FAR_COVER_LAYER), 2.0).xy * vec4(FAR_COVER_MAX).xy;
    vec2 fade = clamp((vec2(d) - vec2(frame.fadeStart[0], frame.fadeStart[1])) /
                          max(vec2(frame.fadeEnd[0], frame.fadeEnd[1]) - vec2(frame.fadeStart[0], frame.fadeStart[1]), vec2(1e-3)),
                      0.0, 1.0);
    float riverDistance = 1e30;
    if (frame.water.x > 0.5) {
      vec2 layerUv = (outWorld.xz / cell + 0.5) / frame.terrain.yz;
      riverDistance = frame.water.w + textureLod(river, layerUv, 0.0).r * frame.water.y;
    }
    outWorld.y += canopyLift(frame, cover, fade, riverDistance);
  }
  gl_Position = viewClip(frame, push.capture.y, outWorld);
#ifndef TERRAIN_DEPTH_ONLY
  vec2 sunUv = vec2(0.0, asin(clamp(frame.sun.y, 0.0, 1.0)) * (2.0 / 3.14159265));
  for (int k = 0; k < int(FAR_LAYERS); ++k) outSunArea[k] = textureLod(farLook, vec3(sunUv, int(FAR_LOOK_LAYERS) * k), 0.0).x;
  outConiferSunArea = textureLod(farLook, vec3(sunUv, int(FAR_LOOK_LAYERS * FAR_LOOK_CONIFER)), 0.0).x;
#endif
#ifdef TERRAIN_CAPTURE
  uint index = uint(gl_InstanceIndex) * TERRAIN_PATCH_VERTICES + uint(gl_VertexIndex);
  if (index < push.capture.x) captured[index] = vec4(outWorld, 1.0);
#endif
}
