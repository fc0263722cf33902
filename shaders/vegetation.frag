#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 3) uniform sampler2DArrayShadow shadowMap;
#include "shadow.glsl"
#include "plant_shading.glsl"

layout(location = 0) centroid in vec3 inWorld;
layout(location = 1) centroid in vec3 inNormal;
layout(location = 2) centroid in vec3 inColor;
layout(location = 3) centroid in float inFoliage;
layout(location = 0) out vec4 outColor;

void main() {
  vec3 n = normalize(inNormal);
  if (!gl_FrontFacing) n = -n;
  outColor = shadePlant(inWorld, n, inColor, inFoliage, sunShadow(inWorld, n));
}
