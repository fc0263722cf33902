#version 460
#include "shared.h"
#include "common.glsl"

// The selected mask layer through its legend's ramp, over the finished terrain (after the far
// field): a full-screen triangle where the stencil marks terrain (render/terrain_draw.h).
layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 7) uniform sampler2D overlay;       // the layer, 0..1 over its legend
layout(binding = 9) uniform sampler2D terrainDepth;  // per pixel, the terrain's nearest sample
#include "overlay_ramp.h"

layout(location = 0) out vec4 outColor;

void main() {
  // the pixel's centre (from gl_FragCoord, not interpolated over the rectangle: the same
  // value whichever rectangle covers the pixel, so every shading key draws the same bits)
  const vec2 inNdc = gl_FragCoord.xy / frame.proj.zw * 2.0 - 1.0;
  float depth = texelFetch(terrainDepth, ivec2(gl_FragCoord.xy), 0).r;
  vec3 ray = frame.forward.xyz + frame.right.xyz * (inNdc.x / frame.proj.x) - frame.up.xyz * (inNdc.y / frame.proj.y);
  vec3 world = frame.eye.xyz + ray * (frame.eye.w / max(depth, 1e-30));
  float value = texture(overlay, (world.xz / frame.terrain.x + 0.5) / frame.terrain.yz).r;
  outColor = vec4(overlayRamp(value), frame.overlay.y);  // alpha-blended
}
