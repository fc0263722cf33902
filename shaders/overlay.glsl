#include "shared.h"
#include "common.glsl"

// The selected mask layer through its legend's ramp, over the finished terrain (after the far
// field): the whole screen, where the stencil marks terrain (render/terrain_draw.h).
// overlay.frag for one sample per pixel, overlay_ms.frag for more.
layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 7) uniform sampler2D overlay;       // the layer, 0..1 over its legend
#include "overlay_ramp.h"
#include "terrain_point.glsl"

layout(location = 0) out vec4 outColor;

void main() {
  vec3 world = terrainPoint(frame, gl_FragCoord.xy, terrainDepthAt(ivec2(gl_FragCoord.xy)));
  float value = texture(overlay, layerUvAt(frame, world.xz)).r;
  outColor = vec4(overlayRamp(value), frame.overlay.y);  // alpha-blended
}
