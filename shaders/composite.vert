#version 460
#include "shared.h"
// One screen rectangle per instance (render/terrain_draw.h TerrainDraw::compositeRects, in
// pixels), as two triangles at depth 0: the far-field composite and the overlay shade only
// there, and the stencil picks the pixels within.
layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 10) readonly buffer Rects { uvec4 rects[]; };
void main() {
  uvec4 r = rects[gl_InstanceIndex];
  int v = gl_VertexIndex;  // (x0 y0, x1 y0, x1 y1), (x0 y0, x1 y1, x0 y1)
  vec2 corner = vec2((v == 1 || v == 2 || v == 4) ? r.z : r.x, (v == 2 || v == 4 || v == 5) ? r.w : r.y);
  gl_Position = vec4(corner / frame.proj.zw * 2.0 - 1.0, 0.0, 1.0);
}
