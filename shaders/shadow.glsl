// Sun shadow lookup in the cascaded shadow map (render/shadows.h). Include after common.glsl
// with `frame` and a sampler2DArrayShadow `shadowMap` declared.

// Fraction of sunlight reaching worldPos (1 lit, 0 shadowed); n: the surface normal on the
// side being shaded. Beyond the last cascade everything is lit; the last cascade fades out
// over its final 15 % so the shadow's end is not a line.
float sunShadow(vec3 worldPos, vec3 n) {
  if (frame.shadowSplits.w < 0.5) return 1.0;
  float depth = dot(worldPos - frame.eye.xyz, frame.forward.xyz);
  int c = depth > frame.shadowSplits.x ? (depth > frame.shadowSplits.y ? 2 : 1) : 0;
  float end = frame.shadowSplits[c];
  if (depth > end) return 1.0;
  float texel = frame.shadowTexel[c];
  // normal offset: moving the lookup off the surface by about a texel removes self-shadowing
  // acne on slopes at grazing sun without the light leaks of a large depth bias
  vec4 p = vec4(worldPos + n * (1.5 * texel), 1.0);
  vec3 ndc = vec3(dot(frame.shadowClip[c * 4], p), dot(frame.shadowClip[c * 4 + 1], p),
                  dot(frame.shadowClip[c * 4 + 2], p));
  vec2 uv = ndc.xy * 0.5 + 0.5;
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || ndc.z > 1.0) return 1.0;
  // 4 bilinear comparisons (hardware 2x2 PCF each) over a 2-texel footprint
  float o = 0.5 / frame.shadowTexel.w;
  float lit = 0.0;
  lit += texture(shadowMap, vec4(uv + vec2(-o, -o), float(c), ndc.z));
  lit += texture(shadowMap, vec4(uv + vec2(o, -o), float(c), ndc.z));
  lit += texture(shadowMap, vec4(uv + vec2(-o, o), float(c), ndc.z));
  lit += texture(shadowMap, vec4(uv + vec2(o, o), float(c), ndc.z));
  lit *= 0.25;
  if (c == int(CASCADE_COUNT) - 1) lit = mix(lit, 1.0, smoothstep(0.85 * end, end, depth));
  return lit;
}
