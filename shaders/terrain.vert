#version 460
// Terrain grid without vertex attributes: an index buffer over (quadsX + 1) x (quadsZ + 1)
// grid vertices; heights are fetched from the heightmap buffer at every `step` cells.
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 1) readonly buffer Heights { float heights[]; };
layout(push_constant) uniform Push { uint quadsX; };

layout(location = 0) out vec3 outWorld;
layout(location = 1) out vec3 outNormal;

float heightAt(ivec2 p) {
  ivec2 size = ivec2(frame.terrain.yz);
  p = clamp(p, ivec2(0), size - 1);
  return heights[p.y * size.x + p.x];
}

void main() {
  uint columns = quadsX + 1;
  ivec2 q = ivec2(gl_VertexIndex % columns, gl_VertexIndex / columns);
  int step = int(frame.terrain.w);
  ivec2 size = ivec2(frame.terrain.yz);
  ivec2 p = min(q * step, size - 1);
  float cell = frame.terrain.x;
  float h = heightAt(p);
  float dx = heightAt(p + ivec2(step, 0)) - heightAt(p - ivec2(step, 0));
  float dz = heightAt(p + ivec2(0, step)) - heightAt(p - ivec2(0, step));
  outNormal = normalize(vec3(-dx, 2.0 * step * cell, -dz));
  outWorld = vec3(p.x * cell, h, p.y * cell);
  gl_Position = toClip(frame, outWorld);
}
