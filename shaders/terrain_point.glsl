// The terrain's point under a pixel (far_composite.glsl, overlay.glsl), from the colour pass's
// depth and stencil, bound read-only while the pass draws over them: TERRAIN_MS for a
// multisampled target.
#ifndef ECO_TERRAIN_POINT_GLSL
#define ECO_TERRAIN_POINT_GLSL
#ifdef TERRAIN_MS
layout(binding = 9) uniform sampler2DMS depthSamples;
layout(binding = 11) uniform usampler2DMS stencilSamples;
#else
layout(binding = 9) uniform sampler2D depthSamples;
layout(binding = 11) uniform usampler2D stencilSamples;
#endif

bool together(float a, float b) { return abs(a - b) <= 0.01 * max(a, b); }

// The terrain's depth under pixel p: the mean over the samples whose stencil marks terrain
// (render/terrain_draw.h kStencilTerrain: plants in front of it and sky left out) of the largest
// group within 1 % of each other (the nearer on a tie). The samples sit symmetrically about the
// centre, so on a plane their mean is the centre's depth; the group leaves out farther ground
// behind a ridge's edge and a lone stray sample (lavapipe left one terrain sample of
// RenderOverlay's top-down view over a kilometre nearer than the ground).
float terrainSample(ivec2 p, int i) {
  return (texelFetch(stencilSamples, p, i).r & 0x80u) != 0u ? texelFetch(depthSamples, p, i).r : 0.0;
}
float terrainDepthAt(ivec2 p) {
#ifdef TERRAIN_MS
  if (textureSamples(depthSamples) == 4) {  // the default: a sorting network, no arrays
    float s0 = terrainSample(p, 0), s1 = terrainSample(p, 1), s2 = terrainSample(p, 2), s3 = terrainSample(p, 3), t;
#define ECO_ORDER(a, b) if (a < b) t = a, a = b, b = t;
    ECO_ORDER(s0, s1) ECO_ORDER(s2, s3) ECO_ORDER(s0, s2) ECO_ORDER(s1, s3) ECO_ORDER(s1, s2)
#undef ECO_ORDER
    // nearest first, sky and plants (0) last: the longest run of neighbours together
    bool t01 = s1 > 0.0 && together(s0, s1), t12 = s2 > 0.0 && together(s1, s2), t23 = s3 > 0.0 && together(s2, s3);
    int from0 = 1 + int(t01) + int(t01 && t12) + int(t01 && t12 && t23), from1 = 1 + int(t12) + int(t12 && t23);
    int from2 = 1 + int(t23);
    if (from0 >= from1 && from0 >= from2)
      return (s0 + (from0 > 1 ? s1 : 0.0) + (from0 > 2 ? s2 : 0.0) + (from0 > 3 ? s3 : 0.0)) / float(from0);
    if (from1 >= from2) return (s1 + (from1 > 1 ? s2 : 0.0) + (from1 > 2 ? s3 : 0.0)) / float(from1);
    return 0.5 * (s2 + s3);
  }
  const int n = min(textureSamples(depthSamples), 8);
  float d[8];
  for (int i = 0; i < n; ++i) d[i] = terrainSample(p, i);
  int best = 0, bestCount = 0;
  for (int i = 0; i < n; ++i) {
    int count = 0;
    for (int j = 0; j < n; ++j) count += d[j] > 0.0 && together(d[i], d[j]) ? 1 : 0;
    if (d[i] > 0.0 && (count > bestCount || (count == bestCount && d[i] > d[best]))) best = i, bestCount = count;
  }
  float sum = 0.0, k = 0.0;
  for (int i = 0; i < n; ++i)
    if (d[i] > 0.0 && together(d[best], d[i])) sum += d[i], k += 1.0;
  return k > 0.0 ? sum / k : 0.0;
#else
  return texelFetch(depthSamples, p, 0).r;
#endif
}

// The world point under the pixel's centre at reversed-Z depth (near / view depth).
vec3 terrainPoint(FrameData f, vec2 fragCoord, float depth) {
  // (from gl_FragCoord, not interpolated over the rectangle drawn: the same value whichever
  // rectangle covers the pixel, so every shading key draws the same bits)
  vec2 ndc = fragCoord / f.proj.zw * 2.0 - 1.0;
  return f.eye.xyz + viewRay(f, ndc) * (f.eye.w / max(depth, 1e-30));
}
#endif  // ECO_TERRAIN_POINT_GLSL
