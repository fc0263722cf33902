// The far field's crowns where they are a few pixels wide (terrain.frag): one crown per cell
// of a jittered grid, its centre in the middle 0.6 of the cell, each point of the ground
// belonging to the nearest centre. Written in the common subset of GLSL 450 and C++20 (as
// transform.h), so the test measures the table the shader uses.
#ifndef ECO_FAR_CROWNS_H
#define ECO_FAR_CROWNS_H

#ifdef __cplusplus
#include <cmath>
namespace eco::gpu {
using std::acos;
using std::sqrt;
#define ECO_FN inline
#else
#define ECO_FN
#endif

// Where in its cell (0..1 per axis) a crown's centre may lie: [FAR_CROWN_JITTER_MIN,
// FAR_CROWN_JITTER_MIN + FAR_CROWN_JITTER_SPAN), so the nearest centre to any point within
// the largest radius below is in the 2 x 2 cells around the point's nearer cell corner (all
// but 4e-6 of points).
#define FAR_CROWN_JITTER_MIN 0.2f
#define FAR_CROWN_JITTER_SPAN 0.6f

// Crowns are domes (terrain.frag): where several reach a point, the one on top is the highest
// of FAR_CROWN_LIFT x a random height per crown + 1 - rho^2, rho the distance from its centre
// in radii, so crowns overlap with round edges. A crown's colour is scaled by
// 1 + FAR_CROWN_RELIEF (sqrt(1 - rho^2) - farCrownDomeMean(seen)): darker at the rim, lighter
// at the top, the mean kept. Its sunlit side brightens toward the sun's limb by
// FAR_CROWN_SUN_SPREAD standard deviations of the lit foliage's n.sun per unit of the way
// across the lit segment (whose mean point is 0.4 of the way).
#define FAR_CROWN_LIFT 0.5f
#define FAR_CROWN_RELIEF 0.6f
#define FAR_CROWN_SUN_SPREAD 1.5f

// The mean of sqrt(1 - rho^2) over the ground the crowns cover at `seen`: 2/3 for lone discs,
// more as the crowns on top hide their neighbours' rims (0.690 at 0.7, 0.756 at 0.95;
// FarCrowns.DomeMeanIsTheVisibleMean measures it).
ECO_FN float farCrownDomeMean(float seen) {
  float s = seen > 0.0f ? (seen < 1.0f ? seen : 1.0f) : 0.0f;
  const float s3 = s * s * s, s5 = s3 * s * s;
  return 2.0f / 3.0f + 0.062f * s3 + 0.06f * s5 * s5;
}

// The chord across a crown, in radii from its centre toward the sun, beyond which lies `share`
// of its disc: the segment's area (acos c - c sqrt(1 - c^2)) / pi, inverted by three Newton
// steps from 1 - 2 share (exact at one half). The straight 1 - 2 share lit 0.25 of the disc
// for a share of 0.3.
ECO_FN float farCrownTerminator(float share) {
  float s = share > 0.001f ? (share < 0.999f ? share : 0.999f) : 0.001f;
  float c = 1.0f - 2.0f * s;
  for (int i = 0; i < 3; ++i) {
    float root = sqrt(1.0f - c * c > 1e-6f ? 1.0f - c * c : 1e-6f);
    c += ((acos(c) - c * root) / 3.14159265f - s) * 3.14159265f / (2.0f * root);
    c = c > -1.0f ? (c < 1.0f ? c : 1.0f) : -1.0f;
  }
  return c;
}

// The radius (in cells) at which the crowns cover `seen` of the ground: the quantiles of the
// distance from a point to its nearest centre at seen = 0, 1/32, .., 1 (the last at 0.9995),
// measured over 2 million points; their squares are linear in between (area grows with the
// square near 0). Discs of area `seen` (sqrt(seen / pi)) overlap and leave the cells' corners
// bare: they covered 0.78 of the ground at seen 0.9, and a dense stand near the hand-over read
// as crowns on bare soil.
ECO_FN float farCrownRadius(float seen) {
  float x = (seen > 0.0f ? (seen < 1.0f ? seen : 1.0f) : 0.0f) * 32.0f;
  int i = int(x) < 31 ? int(x) : 31;
  float f = x - float(i);
#ifdef __cplusplus
  constexpr float q[33] = {
#else
  const float q[33] = float[](
#endif
      0.0000f, 0.0998f, 0.1411f, 0.1730f, 0.1996f, 0.2233f, 0.2446f, 0.2641f, 0.2824f, 0.2997f, 0.3162f,
      0.3320f, 0.3474f, 0.3624f, 0.3771f, 0.3915f, 0.4057f, 0.4197f, 0.4337f, 0.4477f, 0.4618f, 0.4760f,
      0.4905f, 0.5055f, 0.5210f, 0.5373f, 0.5547f, 0.5738f, 0.5952f, 0.6201f, 0.6508f, 0.6939f, 0.8441f
#ifdef __cplusplus
  };
#else
  );
#endif
  return sqrt(q[i] * q[i] * (1.0f - f) + q[i + 1] * q[i + 1] * f);
}

#ifdef __cplusplus
}  // namespace eco::gpu
#endif
#undef ECO_FN
#endif  // ECO_FAR_CROWNS_H
