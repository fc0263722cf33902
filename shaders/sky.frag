#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(location = 0) in vec2 inNdc;
layout(location = 0) out vec4 outColor;

void main() {
  // the view ray through this pixel (ndc = view x * fx / depth; Vulkan's ndc y points down)
  vec3 dir = normalize(frame.forward.xyz + frame.right.xyz * (inNdc.x / frame.proj.x) -
                       frame.up.xyz * (inNdc.y / frame.proj.y));
  outColor = vec4(toneMap(frame, skyColor(frame, dir)), 1.0);
}
