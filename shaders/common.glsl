// GLSL helpers shared by the shaders. Include after shared.h.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer InstancePage {
  GpuInstance items[];
};

vec3 transformPoint(GpuInstance inst, vec3 p) {
  vec4 h = vec4(p, 1.0);
  return vec3(dot(inst.row0, h), dot(inst.row1, h), dot(inst.row2, h));
}

vec3 instanceOrigin(GpuInstance inst) { return vec3(inst.row0.w, inst.row1.w, inst.row2.w); }
vec3 instanceColumn(GpuInstance inst, int c) { return vec3(inst.row0[c], inst.row1[c], inst.row2[c]); }

vec4 sphereOf(GpuInstance inst) {
  return vec4(instanceOrigin(inst) + 0.5 * instanceColumn(inst, 1), uintBitsToFloat(inst.extra.z));
}

// Uniform in [0, 1), fixed per instance (a hash of its position bits).
float instanceHash01(GpuInstance inst) {
  uvec3 p = floatBitsToUint(instanceOrigin(inst));
  uint h = p.x * 0x9E3779B1u ^ (p.y + 0x7F4A7C15u) * 0x85EBCA77u ^ (p.z + 0x165667B1u) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return float(h >> 8) * (1.0 / 16777216.0);
}

vec4 toClip(FrameData f, vec3 p) {
  vec4 h = vec4(p, 1.0);
  return vec4(dot(f.clip[0], h), dot(f.clip[1], h), dot(f.clip[2], h), dot(f.clip[3], h));
}

vec3 applyFog(FrameData f, vec3 color, vec3 worldPos) {
  float d = length(worldPos - f.eye.xyz);
  float k = exp(-d * f.fog.w);
  return mix(f.fog.rgb, color, k);
}
