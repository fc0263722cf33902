#version 460
// Vegetation: gl_InstanceIndex (firstInstance + n) indexes the compacted visible list, which
// holds page/slot references into the resident instance pages.
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 1) readonly buffer Pages { uvec4 pages[]; };
layout(binding = 3) readonly buffer Visible { uint visible[]; };

layout(location = 0) in vec4 inPos;     // unit mesh position, w = 1 tinted by instance colour, 0 bark
layout(location = 1) in vec4 inNormal;

layout(location = 0) out vec3 outWorld;
layout(location = 1) out vec3 outNormal;
layout(location = 2) out vec3 outColor;

void main() {
  uint ref = visible[gl_InstanceIndex];
  uvec4 page = pages[ref >> PAGE_SHIFT];
  GpuInstance inst = InstancePage(page.xy).items[ref & (PAGE_SIZE - 1)];
  outWorld = transformPoint(inst, inPos.xyz);
  // inverse transpose of M = R * S is R * S^-1 = M * S^-2; S^2 from the column lengths
  vec3 s2 = vec3(dot(instanceColumn(inst, 0), instanceColumn(inst, 0)),
                 dot(instanceColumn(inst, 1), instanceColumn(inst, 1)),
                 dot(instanceColumn(inst, 2), instanceColumn(inst, 2)));
  vec3 n = inNormal.xyz / s2;
  outNormal = vec3(dot(inst.row0.xyz, n), dot(inst.row1.xyz, n), dot(inst.row2.xyz, n));
  vec3 tint = unpackUnorm4x8(inst.extra.x).rgb;
  outColor = inPos.w > 0.5 ? tint : vec3(0.30, 0.22, 0.15);
  gl_Position = toClip(frame, outWorld);
}
