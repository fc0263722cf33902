#version 460
// Full-screen triangle at depth 0 (reversed Z: infinitely far): drawn after the scene with
// depth test EQUAL, it fills only the pixels nothing else covered.
layout(location = 0) out vec2 outNdc;
void main() {
  vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2) * 2.0 - 1.0;
  outNdc = p;
  gl_Position = vec4(p, 0.0, 1.0);
}
