#version 460
#include "shared.h"
#include "common.glsl"
// One screen rectangle per instance (render/terrain_draw.h TerrainDraw::compositeRects, in
// pixels, a tile each), as two triangles at depth 0: the far-field composite and the overlay
// shade only there, and the stencil picks the pixels within. The far look table toward the eye
// depends on the view direction alone, which turns slowly across a tile: read at the corners
// and interpolated (sixteen texture reads a pixel fewer; 40 ms of the 3 km view's composite).
layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 8) uniform sampler2DArray farLook;  // render/far_look.h: each kind's look by direction
layout(binding = 10) readonly buffer Rects { uvec4 rects[]; };
layout(location = 0) out vec4 outLookShape[FAR_LAYERS];  // area, foliage share, bark sun, bark up
layout(location = 4) out vec4 outLookLit[FAR_LAYERS];    // share facing the sun, its n.sun, n.y, spread
layout(location = 8) out vec4 outLookShade[2];           // the rest's -n.sun, n.y: kinds 0, 1 in [0], 2, 3 in [1]
layout(location = 10) flat out vec4 outSunArea;          // each kind's area seen from the sun
// the conifer trees' look (FAR_LOOK_CONIFER): area, foliage share, bark sun, bark up; share
// facing the sun, its n.sun, n.y, spread; the rest's -n.sun, n.y, and the area seen from the sun
layout(location = 11) out vec4 outConiferShape;
layout(location = 12) out vec4 outConiferLit;
layout(location = 13) out vec4 outConiferShade;
void main() {
  uvec4 r = rects[gl_InstanceIndex];
  int v = gl_VertexIndex;  // (x0 y0, x1 y0, x1 y1), (x0 y0, x1 y1, x0 y1)
  vec2 corner = vec2((v == 1 || v == 2 || v == 4) ? r.z : r.x, (v == 2 || v == 4 || v == 5) ? r.w : r.y);
  vec2 ndc = corner / frame.proj.zw * 2.0 - 1.0;
  gl_Position = vec4(ndc, 0.0, 1.0);
  vec2 lookUv = farLookUv(frame, -normalize(viewRay(frame, ndc)));
  vec2 sunUv = vec2(0.0, asin(clamp(frame.sun.y, 0.0, 1.0)) * (2.0 / 3.14159265));
  for (int k = 0; k < int(FAR_LAYERS); ++k) {
    int base = int(FAR_LOOK_LAYERS) * k;
    outLookShape[k] = textureLod(farLook, vec3(lookUv, base), 0.0);
    outLookLit[k] = textureLod(farLook, vec3(lookUv, base + 1), 0.0);
    vec2 shade = textureLod(farLook, vec3(lookUv, base + 2), 0.0).xy;
    if (k % 2 == 0) outLookShade[k / 2].xy = shade;
    else outLookShade[k / 2].zw = shade;
    outSunArea[k] = textureLod(farLook, vec3(sunUv, base), 0.0).x;
  }
  const int conifer = int(FAR_LOOK_LAYERS * FAR_LOOK_CONIFER);
  outConiferShape = textureLod(farLook, vec3(lookUv, conifer), 0.0);
  outConiferLit = textureLod(farLook, vec3(lookUv, conifer + 1), 0.0);
  outConiferShade = vec4(textureLod(farLook, vec3(lookUv, conifer + 2), 0.0).xy, textureLod(farLook, vec3(sunUv, conifer), 0.0).x, 0.0);
}
