// The lit, fogged and tone-mapped colour of a plant's surface point (vegetation.frag's meshes,
// far_card.vert's cards), given how much sun reaches it (shadow.glsl sunShadow; 1: all).
// Needs Frame (binding 0).
vec4 shadePlant(vec3 world, vec3 n, vec3 tint, float foliage, float shadow) {
  float s = dot(n, frame.sun.xyz);
  vec3 color = tint * plantLight(frame, max(s, 0.0), max(-s, 0.0), n.y, foliage, shadow);
  return vec4(toneMap(frame, applyFog(frame, color, world)), 1.0);
}
