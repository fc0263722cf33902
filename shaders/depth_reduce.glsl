// One level of the Hi-Z pyramid: each texel keeps the minimum (farthest, reversed Z) of the
// 2x2 source texels it covers. Sizes halve rounding up, and reads clamp to the source edge,
// so an odd last row or column is never dropped. With DEPTH_MS the source is the multisampled
// depth itself and every sample of each pixel counts (the minimum again: conservative).
layout(local_size_x = 8, local_size_y = 8) in;

layout(push_constant) uniform Push { uvec2 srcSize; uvec2 dstSize; uint samples; };
#ifdef DEPTH_MS
layout(binding = 0) uniform sampler2DMS src;
float depthAt(ivec2 p) {
  float d = texelFetch(src, p, 0).r;
  for (int i = 1; i < int(samples); ++i) d = min(d, texelFetch(src, p, i).r);
  return d;
}
#else
layout(binding = 0) uniform sampler2D src;
float depthAt(ivec2 p) { return texelFetch(src, p, 0).r; }
#endif
layout(binding = 1, r32f) uniform writeonly image2D dst;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= dstSize.x || p.y >= dstSize.y) return;
  ivec2 m = ivec2(srcSize) - 1;
  ivec2 s = ivec2(p * 2);
  float d = min(min(depthAt(min(s, m)), depthAt(min(s + ivec2(1, 0), m))),
                min(depthAt(min(s + ivec2(0, 1), m)), depthAt(min(s + ivec2(1, 1), m))));
  imageStore(dst, ivec2(p), vec4(d));
}
