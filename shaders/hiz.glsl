// Tests against the Hi-Z pyramid of the terrain's depth (reversed Z, min reduction), shared by
// cull.comp and far_pages.comp. Include after declaring `frame` (FrameData) and `pyramid`.

// Screen rectangle of a sphere fully in front of the camera (view space: x right, y up,
// z forward), from the tangent lines through the eye in the xz and yz planes.
vec4 sphereNdcRect(vec3 c, float r) {
  float zz = c.z * c.z - r * r;
  float tx = sqrt(c.x * c.x + zz);
  float ty = sqrt(c.y * c.y + zz);
  float x0 = (tx * c.x - r * c.z) / (tx * c.z + r * c.x);
  float x1 = (tx * c.x + r * c.z) / (tx * c.z - r * c.x);
  float y0 = (ty * c.y - r * c.z) / (ty * c.z + r * c.y);
  float y1 = (ty * c.y + r * c.z) / (ty * c.z - r * c.y);
  // ndc y points down in Vulkan
  return vec4(x0 * frame.proj.x, -y1 * frame.proj.y, x1 * frame.proj.x, -y0 * frame.proj.y);
}

// The farthest depth (reversed Z: the least) of the terrain over the screen rectangle of a
// sphere fully in front of the near plane: the pyramid's finest level where the rectangle
// touches at most 2 x 2 texels, so over the rectangle and at most a texel around it.
float farthestDepth(vec3 c, float r) {
  vec4 ndc = sphereNdcRect(c, r);
  vec2 size = frame.proj.zw;
  // pixels touched, conservatively: floor on both ends, clamped to the viewport
  ivec2 p0 = ivec2(clamp(floor((ndc.xy * 0.5 + 0.5) * size), vec2(0), size - 1));
  ivec2 p1 = ivec2(clamp(floor((ndc.zw * 0.5 + 0.5) * size), vec2(0), size - 1));
  // pyramid level L texel j covers pixels [j, j + 1) * 2^(L + 1); pick the finest level where
  // the rectangle touches at most 2x2 texels
  int levels = int(frame.cull.z);
  int level = 0;
  for (; level < levels - 1; ++level) {
    int s = level + 1;
    if ((p1.x >> s) - (p0.x >> s) <= 1 && (p1.y >> s) - (p0.y >> s) <= 1) break;
  }
  int s = level + 1;
  ivec2 t0 = p0 >> s, t1 = p1 >> s;
  return min(min(texelFetch(pyramid, t0, level).r, texelFetch(pyramid, ivec2(t1.x, t0.y), level).r),
             min(texelFetch(pyramid, ivec2(t0.x, t1.y), level).r, texelFetch(pyramid, t1, level).r));
}

// Whether the sky (the depth pre-pass's clear value, 0) shows somewhere in or just around the
// sphere's screen rectangle (the pyramid holds the terrain's depth, with the far field's canopy)
bool skyBehind(vec3 c, float r) {
  if (c.z - r <= frame.eye.w) return false;  // a far tree is far: never at the near plane
  return farthestDepth(c, r) <= 0.0;
}

// Whether the sky shows behind a far trees' page: its box holds the trees' origins and
// frame.lod.y is the most a tree's sphere reaches from its origin, so the sphere around the
// grown box holds every tree's sphere. Its screen rectangle holds theirs and the pyramid texels
// it reads cover those theirs read (a min reduction): no sky there is no sky for any of them.
// far_pages.comp runs it once per page (Renderer::listPages already left out the pages within
// the fade or outside the frustum).
bool skyBehindPage(GpuTile box) {
  vec3 lo = box.boundsMin.xyz - frame.lod.y, hi = box.boundsMax.xyz + frame.lod.y;
  vec3 rel = 0.5 * (lo + hi) - frame.eye.xyz;
  vec3 c = vec3(dot(rel, frame.right.xyz), dot(rel, frame.up.xyz), dot(rel, frame.forward.xyz));
  float r = 0.5 * length(hi - lo);
  if (c.z - r <= frame.eye.w) return true;  // reaches the near plane: each tree decides
  return farthestDepth(c, r) <= 0.0;
}
