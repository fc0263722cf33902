#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(location = 0) in vec3 inWorld;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec3 inColor;
layout(location = 0) out vec4 outColor;

void main() {
  vec3 n = normalize(inNormal);
  if (!gl_FrontFacing) n = -n;
  float light = max(dot(n, frame.sun.xyz), 0.0) * 0.8 + frame.sun.w + 0.1;
  outColor = vec4(applyFog(frame, inColor * light, inWorld), 1.0);
}
