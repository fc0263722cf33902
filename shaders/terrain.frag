#version 460
#include "shared.h"
#include "common.glsl"

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 2) uniform sampler2DArray farField;  // render/far_field.h
layout(location = 0) in vec3 inWorld;
layout(location = 1) in vec3 inNormal;
layout(location = 0) out vec4 outColor;

void main() {
  vec3 n = normalize(inNormal);
  float slope = 1.0 - n.y;  // 0 flat .. 1 vertical
  vec3 grass = vec3(0.32, 0.42, 0.20);
  vec3 rock = vec3(0.45, 0.42, 0.38);
  vec3 base = mix(grass, rock, smoothstep(0.15, 0.35, slope));
  // far field: each kind's layer fades in where its instances fade out
  if (frame.farField.z > 0.5) {
    float d = length(inWorld - frame.eye.xyz);
    vec2 uv = inWorld.xz * frame.farField.xy;
    for (int k = int(FAR_LAYERS) - 1; k >= 0; --k) {
      vec4 layer = texture(farField, vec3(uv, k));
      float w = smoothstep(frame.fadeStart[k], frame.fadeEnd[k], d);
      base = mix(base, layer.rgb, layer.a * w);
    }
  }
  float light = max(dot(n, frame.sun.xyz), 0.0) + frame.sun.w;
  outColor = vec4(applyFog(frame, base * light, inWorld), 1.0);
}
