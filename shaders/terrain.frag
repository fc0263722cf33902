#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(location = 0) in vec3 inWorld;
layout(location = 1) in vec3 inNormal;
layout(location = 0) out vec4 outColor;

void main() {
  vec3 n = normalize(inNormal);
  float slope = 1.0 - n.y;  // 0 flat .. 1 vertical
  vec3 grass = vec3(0.32, 0.42, 0.20);
  vec3 rock = vec3(0.45, 0.42, 0.38);
  vec3 base = mix(grass, rock, smoothstep(0.15, 0.35, slope));
  float light = max(dot(n, frame.sun.xyz), 0.0) + frame.sun.w;
  outColor = vec4(applyFog(frame, base * light, inWorld), 1.0);
}
