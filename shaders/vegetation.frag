#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 3) uniform sampler2DArrayShadow shadowMap;
#include "shadow.glsl"

layout(location = 0) in vec3 inWorld;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec3 inColor;
layout(location = 3) in float inFoliage;
layout(location = 0) out vec4 outColor;

void main() {
  vec3 n = normalize(inNormal);
  if (!gl_FrontFacing) n = -n;
  float shadow = sunShadow(inWorld, n);
  // leaves pass some light through: foliage facing away from the sun still gets a share of it
  float through = inFoliage * 0.35 * max(-dot(n, frame.sun.xyz), 0.0);
  vec3 direct = sunLight(frame, n) + vec3(1.0, 0.9, 0.6) * frame.sun.w * through;
  vec3 color = inColor * (direct * shadow + ambientLight(frame, n));
  outColor = vec4(toneMap(frame, applyFog(frame, color, inWorld)), 1.0);
}
