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
  vec3 color;      // linear 0..1 from the RGB8 tint
  uint kind;
  uint hash;       // a per-instance value independent of where the instance sits in memory
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
  o.color = unpackUnorm4x8(p.w).rgb;
  o.kind = min(sp.info.x, KIND_COUNT - 1);
  uint h = p.x * 0x9E3779B1u ^ (p.y + 0x7F4A7C15u) * 0x85EBCA77u ^ (p.z + 0x165667B1u) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  o.hash = h;
  return o;
}

// Unit-mesh point and normal to world: transform.h, shared with the C++ tests.
vec3 instancePoint(Instance inst, vec3 p) { return placeInstancePoint(inst.position, inst.up, inst.yaw, inst.size, p); }
vec3 instanceNormal(Instance inst, vec3 n) { return placeInstanceNormal(inst.up, inst.yaw, inst.size, n); }

// Bounding sphere of the scaled unit mesh: centre half-way up the (tilted) axis.
vec4 instanceSphere(Instance inst) {
  float halfHeight = 0.5 * inst.size.y;
  return vec4(inst.position + inst.up * halfHeight, sqrt(halfHeight * halfHeight + inst.size.x * inst.size.x));
}

float hash01(uint h) { return float(h >> 8) * (1.0 / 16777216.0); }

vec4 toClip(FrameData f, vec3 p) {
  vec4 h = vec4(p, 1.0);
  return vec4(dot(f.clip[0], h), dot(f.clip[1], h), dot(f.clip[2], h), dot(f.clip[3], h));
}

vec3 applyFog(FrameData f, vec3 color, vec3 worldPos) {
  float d = length(worldPos - f.eye.xyz);
  float k = exp(-d * f.fog.w);
  return mix(f.fog.rgb, color, k);
}
