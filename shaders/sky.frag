#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(location = 0) in vec2 inNdc;
layout(location = 0) out vec4 outColor;

void main() {
  // the view ray through this pixel
  vec3 dir = normalize(viewRay(frame, inNdc));
  // Past the world's edge the ground goes on: a plane at the terrain's lowest height in the
  // palette's soil and grass, lit like flat terrain and fogged by its distance, instead of a
  // void of sky under the horizon (not with the flat sky, which tests use as a plain backdrop).
  if ((frame.look.x & LOOK_FLAT_SKY) == 0u && dir.y < -1e-4 && frame.eye.y > frame.elevation.x) {
    float t = (frame.elevation.x - frame.eye.y) / dir.y;
    vec3 p = frame.eye.xyz + dir * t;
    vec3 up = vec3(0.0, 1.0, 0.0);
    vec3 albedo = mix(frame.palette[GROUND_SOIL].rgb, frame.palette[GROUND_GRASS].rgb, 0.5);
    vec3 c = albedo * (sunLight(frame, up) + ambientLight(frame, up));
    outColor = vec4(toneMap(frame, applyFog(frame, c, p)), 1.0);
    return;
  }
  outColor = vec4(toneMap(frame, skyColor(frame, dir)), 1.0);
}
