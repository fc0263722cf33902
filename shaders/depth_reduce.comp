#version 460
// One level of the Hi-Z pyramid: each texel keeps the minimum (farthest, reversed Z) of the
// 2x2 source texels it covers. Sizes halve rounding up, and reads clamp to the source edge,
// so an odd last row or column is never dropped.
layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1, r32f) uniform writeonly image2D dst;
layout(push_constant) uniform Push { uvec2 srcSize; uvec2 dstSize; };

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= dstSize.x || p.y >= dstSize.y) return;
  ivec2 m = ivec2(srcSize) - 1;
  ivec2 s = ivec2(p * 2);
  float d = min(min(texelFetch(src, min(s, m), 0).r, texelFetch(src, min(s + ivec2(1, 0), m), 0).r),
                min(texelFetch(src, min(s + ivec2(0, 1), m), 0).r, texelFetch(src, min(s + ivec2(1, 1), m), 0).r));
  imageStore(dst, ivec2(p), vec4(d));
}
