#version 460
// A far card's pixels (far_card.vert): inside the crown's outline on the point, the colour of
// the crown's visible side at the pixel's normal (a sphere's for a round crown, a cone's for a
// conifer), blended from the five the vertex shader lit by the normal's share along each.
#include "shared.h"

layout(location = 0) flat in vec4 inShape;
layout(location = 1) flat in vec3 inToward;
layout(location = 2) flat in vec3 inRight;
layout(location = 3) flat in vec3 inLeft;
layout(location = 4) flat in vec3 inUp;
layout(location = 5) flat in vec3 inDown;
layout(location = 0) out vec4 outColor;

void main() {
  vec2 q = vec2(2.0 * gl_PointCoord.x - 1.0, 1.0 - 2.0 * gl_PointCoord.y);  // y up the screen
  vec3 n;  // across the screen, up it, toward the eye
  if (inShape.z > 0.5) {
    float along = 0.5 * (inShape.y - q.y) / inShape.y;  // 0 at the apex, 1 at the base
    float width = inShape.x * along;
    if (along < 0.0 || along > 1.0 || abs(q.x) > width) discard;
    float f = q.x / max(width, 1e-6);
    n = vec3(f, 0.0, sqrt(max(1.0 - f * f, 0.0)));  // round the cone (its lean is in the five)
  } else {
    vec2 u = q / inShape.xy;
    float r2 = dot(u, u);
    if (r2 > 1.0) discard;
    n = vec3(u, sqrt(1.0 - r2));
  }
  vec3 w = abs(n) / (abs(n.x) + abs(n.y) + abs(n.z));
  outColor = vec4(w.z * inToward + w.x * (n.x > 0.0 ? inRight : inLeft) + w.y * (n.y > 0.0 ? inUp : inDown), 1.0);
}
