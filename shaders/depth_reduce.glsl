// One level of the Hi-Z pyramid: each texel keeps the minimum (farthest, reversed Z) of the
// 2x2 source texels it covers. Sizes halve rounding up, and reads clamp to the source edge,
// so an odd last row or column is never dropped. With DEPTH_MS the source is the multisampled
// depth itself and every sample of each pixel counts (the minimum again: conservative).
// The first level (`nearest` 1) also writes each source pixel's terrain depth to `nearestOut`,
// where far_composite.frag and overlay.frag place their points: the mean of the largest group
// of samples within 1 % of each other (the nearer group on a tie; sky, depth 0, only where all
// samples are sky). The samples sit symmetrically about the pixel's centre, so on a plane
// their mean is the centre's depth (one sample alone put points up to 0.4 pixels off); the
// group leaves out farther ground or sky behind a ridge's edge, and a lone sample of a sliver
// triangle far nearer than the rest (the nearest sample alone put one pixel's point over a
// kilometre off in RenderOverlay's top-down view).
layout(local_size_x = 8, local_size_y = 8) in;

layout(push_constant) uniform Push { uvec2 srcSize; uvec2 dstSize; uint samples; uint nearest; };
#ifdef DEPTH_MS
layout(binding = 0) uniform sampler2DMS src;
// Vulkan's standard sample locations (in the pixel, from its corner) for 2, 4 and 8 samples
vec2 samplePosition(int i) {
  if (samples == 2u) return i == 0 ? vec2(0.75) : vec2(0.25);
  if (samples == 4u) {
    const vec2 p4[4] = vec2[](vec2(0.375, 0.125), vec2(0.875, 0.375), vec2(0.125, 0.625), vec2(0.625, 0.875));
    return p4[i];
  }
  const vec2 p8[8] = vec2[](vec2(0.5625, 0.3125), vec2(0.4375, 0.6875), vec2(0.8125, 0.5625), vec2(0.3125, 0.1875),
                            vec2(0.1875, 0.8125), vec2(0.0625, 0.4375), vec2(0.6875, 0.9375), vec2(0.9375, 0.0625));
  return p8[i];
}
bool together(float a, float b) { return abs(a - b) <= 0.01 * max(a, b); }
vec2 depthRange(ivec2 p) {  // farthest, the terrain's depth at the centre
  float d[8];
  float farthest = 1.0;
  for (int i = 0; i < int(samples); ++i) {
    d[i] = texelFetch(src, p, i).r;
    farthest = min(farthest, d[i]);
  }
  int best = 0, bestCount = 0;
  for (int i = 0; i < int(samples); ++i) {
    int count = 0;
    for (int j = 0; j < int(samples); ++j) count += together(d[i], d[j]) ? 1 : 0;
    if (d[i] > 0.0 && (count > bestCount || (count == bestCount && d[i] > d[best]))) best = i, bestCount = count;
  }
  // the group's plane d = a + b x + c y (x, y the samples' standard positions from the pixel's
  // centre) by least squares: its value at the centre, a (the mean where the group is every
  // sample, or too few for a plane)
  float n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, syy = 0.0, sd = 0.0, sxd = 0.0, syd = 0.0;
  for (int i = 0; i < int(samples); ++i) {
    if (!together(d[best], d[i])) continue;
    vec2 q = samplePosition(i) - 0.5;
    n += 1.0, sx += q.x, sy += q.y, sxx += q.x * q.x, sxy += q.x * q.y, syy += q.y * q.y;
    sd += d[i], sxd += q.x * d[i], syd += q.y * d[i];
  }
  float det = n * (sxx * syy - sxy * sxy) - sx * (sx * syy - sxy * sy) + sy * (sx * sxy - sxx * sy);
  if (n < 3.0 || abs(det) < 1e-6) return vec2(farthest, sd / n);
  float a = (sd * (sxx * syy - sxy * sxy) - sx * (sxd * syy - sxy * syd) + sy * (sxd * sxy - sxx * syd)) / det;
  return vec2(farthest, a);
}
#else
layout(binding = 0) uniform sampler2D src;
vec2 depthRange(ivec2 p) { return vec2(texelFetch(src, p, 0).r); }
#endif
layout(binding = 1, r32f) uniform writeonly image2D dst;
layout(binding = 2, r32f) uniform writeonly image2D nearestOut;

float depthAt(ivec2 p) {
  vec2 r = depthRange(p);
  if (nearest != 0u && all(lessThan(p, ivec2(srcSize)))) imageStore(nearestOut, p, vec4(r.y));
  return r.x;
}

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= dstSize.x || p.y >= dstSize.y) return;
  ivec2 m = ivec2(srcSize) - 1;
  ivec2 s = ivec2(p * 2);
  // (a clamped read repeats an edge pixel: its nearest depth is stored twice, the same value)
  float d = min(min(depthAt(min(s, m)), depthAt(min(s + ivec2(1, 0), m))),
                min(depthAt(min(s + ivec2(0, 1), m)), depthAt(min(s + ivec2(1, 1), m))));
  imageStore(dst, ivec2(p), vec4(d));
}
