// The procedural mesh of each form: recognisable silhouettes at a few hundred triangles, none
// rotationally symmetric (lobes, tiers and blades at irregular angles, a leaning crown) so an
// instance's yaw shows. Every surface is closed with outward winding: volumes (lobes, trunks,
// cones) are closed solids, thin sheets (blades, leaves) are two-sided, each side its own
// vertices with its own normal. Deterministic: the irregularity comes from an integer hash,
// not from a random generator.
#include <algorithm>
#include <cmath>

#include "meshes/mesh_build.h"
#include "meshes/meshes.h"

namespace eco {

namespace {

constexpr float kPi = 3.14159265358979f;
constexpr float kTwoPi = 2 * kPi;

// A fixed value in [-1, 1] for (seed, i): the irregularity of every form.
float jitter(uint32_t seed, uint32_t i) {
  uint32_t h = seed * 0x9E3779B1u ^ (i + 0x7F4A7C15u) * 0x85EBCA77u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return float(h & 0xFFFFFF) / float(0x7FFFFF) - 1.f;
}

struct V3 {
  float x = 0, y = 0, z = 0;
};
V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V3 operator*(V3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }

struct Builder {
  LoadedMesh mesh;
  uint32_t add(V3 p, float tint) {
    mesh.vertices.push_back({{p.x, p.y, p.z, tint}, {0, 0, 0, 0}});
    return uint32_t(mesh.vertices.size() - 1);
  }
  void tri(uint32_t a, uint32_t b, uint32_t c) { mesh.indices.insert(mesh.indices.end(), {a, b, c}); }

  // A lumpy ellipsoid: `rings` bands from the bottom pole to the top, `segments` around, the
  // radius of each vertex varied by up to `lumps` (relative). Closed, outward winding.
  void lobe(V3 c, V3 radii, int segments, int rings, float lumps, uint32_t seed, float tint) {
    const float turn = kTwoPi * 0.5f * (jitter(seed, 999) + 1);
    const uint32_t bottom = add(c - V3{0, radii.y, 0}, tint);
    const uint32_t first = uint32_t(mesh.vertices.size());
    for (int r = 1; r < rings; ++r) {
      const float phi = kPi * float(r) / float(rings);
      for (int s = 0; s < segments; ++s) {
        const float theta = turn + kTwoPi * float(s) / float(segments);
        const float k = 1 + lumps * jitter(seed, uint32_t(r * 64 + s));
        add(c + V3{radii.x * std::sin(phi) * std::cos(theta) * k, -radii.y * std::cos(phi) * k,
                   radii.z * std::sin(phi) * std::sin(theta) * k},
            tint);
      }
    }
    const uint32_t top = add(c + V3{0, radii.y, 0}, tint);
    auto at = [&](int r, int s) { return first + uint32_t((r - 1) * segments + (s % segments)); };
    for (int s = 0; s < segments; ++s) {
      tri(bottom, at(1, s), at(1, s + 1));
      for (int r = 1; r + 1 < rings; ++r) {
        tri(at(r, s), at(r + 1, s), at(r, s + 1));
        tri(at(r, s + 1), at(r + 1, s), at(r + 1, s + 1));
      }
      tri(at(rings - 1, s), top, at(rings - 1, s + 1));
    }
  }

  // A ring of `segments` points around centre c at radius r (times 1 + jitter * irregular).
  std::vector<uint32_t> ring(V3 c, float r, int segments, float irregular, uint32_t seed, float tint) {
    std::vector<uint32_t> out;
    const float turn = kTwoPi * 0.5f * (jitter(seed, 777) + 1);
    for (int s = 0; s < segments; ++s) {
      const float theta = turn + kTwoPi * float(s) / float(segments);
      const float k = 1 + irregular * jitter(seed, uint32_t(s));
      out.push_back(add(c + V3{r * k * std::cos(theta), 0, r * k * std::sin(theta)}, tint));
    }
    return out;
  }
  // A disk closing a ring (its own vertices, so its normal stays flat), facing up or down.
  void cap(const std::vector<uint32_t>& rim, bool up, float tint) {
    V3 c{};
    std::vector<uint32_t> own;
    for (uint32_t v : rim) {
      const float* p = mesh.vertices[v].position;
      c = c + V3{p[0], p[1], p[2]} * (1.f / float(rim.size()));
      own.push_back(add({p[0], p[1], p[2]}, tint));
    }
    const uint32_t centre = add(c, tint);
    const size_t n = own.size();
    for (size_t s = 0; s < n; ++s) {
      if (up)
        tri(centre, own[(s + 1) % n], own[s]);
      else
        tri(centre, own[s], own[(s + 1) % n]);
    }
  }
  // Side wall between two rings of the same size, `lower` below `upper`.
  void wall(const std::vector<uint32_t>& lower, const std::vector<uint32_t>& upper) {
    const size_t n = lower.size();
    for (size_t s = 0; s < n; ++s) {
      const size_t t = (s + 1) % n;
      tri(lower[s], upper[s], lower[t]);
      tri(lower[t], upper[s], upper[t]);
    }
  }
  // A closed tapered cylinder from base (radius r0) to top (radius r1), the top's centre
  // anywhere (a leaning trunk).
  void trunk(V3 base, float r0, V3 top, float r1, int segments, uint32_t seed, float tint) {
    const std::vector<uint32_t> lo = ring(base, r0, segments, 0.1f, seed, tint);
    const std::vector<uint32_t> hi = ring(top, r1, segments, 0.1f, seed, tint);
    wall(lo, hi);
    cap(lo, false, tint);
    cap(hi, true, tint);
  }
  // A closed cone: an irregular base ring at `base`, the apex anywhere above it.
  void cone(V3 base, float r, V3 apex, int segments, float irregular, uint32_t seed, float tint) {
    const std::vector<uint32_t> rim = ring(base, r, segments, irregular, seed, tint);
    const uint32_t tip = add(apex, tint);
    const size_t n = rim.size();
    for (size_t s = 0; s < n; ++s) tri(rim[s], tip, rim[(s + 1) % n]);
    cap(rim, false, tint);
  }
  // A two-sided sheet through the strip of point pairs (left[k], right[k]): the front faces
  // (left, right, next) and a mirrored back with its own vertices.
  void sheet(const std::vector<V3>& left, const std::vector<V3>& right, float tint) {
    for (int side = 0; side < 2; ++side) {
      const uint32_t base = uint32_t(mesh.vertices.size());
      for (size_t k = 0; k < left.size(); ++k) {
        add(left[k], tint);
        add(right[k], tint);
      }
      for (uint32_t k = 0; k + 1 < left.size(); ++k) {
        const uint32_t l0 = base + 2 * k, r0 = l0 + 1, l1 = l0 + 2, r1 = l0 + 3;
        if (side == 0) {
          tri(l0, r0, l1);
          tri(r0, r1, l1);
        } else {
          tri(l0, l1, r0);
          tri(r0, l1, r1);
        }
      }
    }
  }
};

// The largest distance from the y axis and the height of a mesh; the forms are built to fit
// the unit space and this scales a mesh that would not (x, z by 1 / radius, y into [0, 1]).
void fitUnitSpace(LoadedMesh& m) {
  float radius = 0, top = 0;
  for (const MeshVertex& v : m.vertices) {
    radius = std::max(radius, std::sqrt(v.position[0] * v.position[0] + v.position[2] * v.position[2]));
    top = std::max(top, v.position[1]);
  }
  const float sxz = radius > 0.98f ? 0.98f / radius : 1.f, sy = top > 1.f ? 1.f / top : 1.f;
  for (MeshVertex& v : m.vertices) {
    v.position[0] *= sxz;
    v.position[2] *= sxz;
    v.position[1] = std::clamp(v.position[1] * sy, 0.f, 1.f);
  }
}

// The broadleaf form's crown spans y from about 0.21 (lobes) to 1 of its height; its bole and
// branches below 0.23 stretch when a narrow crown is moved up.
constexpr float kBroadleafCrownShare = 0.77f;

// LOD 1 of the lobed forms (broadleaf crown, shrub) is one lumpy hull, not fewer lobes. Where
// instances turn LOD 1 (40 bounding radii from the eye) a crown is 15-20 px across, too small
// for its lobes to read, and the two things that do show are its projected area and its tone.
// Fewer lobes lost area (three lobes kept 0.56-0.80 of it, a stand thinned by a fifth to a
// third: a ring around the eye); more lobes kept it at 2.5 times the triangles, which lavapipe
// paid for in frame time. The hull's radii are fitted so that its area stays within a few per
// cent of LOD 0's from every elevation (RenderFarLook.Lod1ShowsLod0sArea): 54 and 42 triangles,
// fewer than three lobes took (92, 60) and under half of five (132, 100).

LoadedMesh broadleaf(int lod) {
  Builder b;
  const bool near = lod == 0;
  // The crown leans: its centre is off the trunk's axis, so yaw moves the silhouette.
  const V3 crown{0.12f, 0.62f, -0.07f};
  b.trunk({0, 0, 0}, 0.085f, {0.06f, 0.5f, -0.035f}, 0.05f, near ? 7 : 3, 11, 0);
  if (!near) {
    // 0.96-1.03 of LOD 0's area by elevation, 54 triangles with the bole (LOD 0: 480)
    b.lobe(crown + V3{0, 0.05f, 0}, {0.79f, 0.44f, 0.79f}, 7, 4, 0.15f, 20, 1);
    fitUnitSpace(b.mesh);
    return b.mesh;
  }
  // two branches into the crown
  b.trunk({0.04f, 0.38f, -0.02f}, 0.03f, {0.42f, 0.6f, 0.12f}, 0.018f, 4, 12, 0);
  b.trunk({0.03f, 0.42f, -0.02f}, 0.028f, {-0.3f, 0.62f, -0.3f}, 0.016f, 4, 13, 0);
  // Lobes at irregular angles and heights around the crown's centre, the central one biggest.
  const int lobes = 6;
  b.lobe(crown, {0.62f, 0.32f, 0.58f}, 10, 6, 0.12f, 20, 1);
  for (int i = 0; i < lobes - 1; ++i) {
    const float angle = kTwoPi * (float(i) + 0.35f * jitter(30, uint32_t(i))) / float(lobes - 1);
    const float dist = 0.46f + 0.08f * jitter(31, uint32_t(i));
    const float size = 0.38f + 0.06f * jitter(32, uint32_t(i));
    const V3 c = crown + V3{dist * std::cos(angle), 0.06f + 0.12f * jitter(33, uint32_t(i)), dist * std::sin(angle)};
    b.lobe(c, {size, size * 0.8f, size}, 8, 5, 0.14f, 40 + uint32_t(i), 1);
  }
  fitUnitSpace(b.mesh);
  return b.mesh;
}

LoadedMesh conifer(int lod) {
  Builder b;
  const bool near = lod == 0;
  b.trunk({0, 0, 0}, 0.07f, {0.02f, 0.3f, 0.01f}, 0.05f, near ? 6 : 3, 51, 0);
  // Tiers of cones, each narrower and higher, their apexes drifting off the axis (a tree bent
  // by the wind) and their rims irregular.
  const int tiers = near ? 5 : 2;
  for (int t = 0; t < tiers; ++t) {
    const float f = float(t) / float(tiers);
    const float y0 = 0.18f + 0.62f * f;
    const float r = 0.95f * (1 - 0.78f * f);
    const float height = near ? 0.36f : 0.55f;
    const V3 apex{0.05f * f + 0.03f * jitter(60, uint32_t(t)), std::min(1.f, y0 + height), 0.04f * jitter(61, uint32_t(t))};
    b.cone({0.02f * f, y0, 0.01f * f}, r, apex, near ? 11 : 5, 0.16f, 70 + uint32_t(t), 1);
  }
  fitUnitSpace(b.mesh);
  return b.mesh;
}

LoadedMesh shrub(int lod) {
  Builder b;
  if (lod != 0) {
    // one hull (see broadleaf): 0.94-1.01 of LOD 0's area by elevation, 42 triangles (LOD 0: 540)
    b.lobe({0, 0.54f, 0}, {0.9f, 0.54f, 0.9f}, 7, 4, 0.15f, 90, 1);
    fitUnitSpace(b.mesh);
    return b.mesh;
  }
  const int lobes = 6;
  for (int i = 0; i < lobes; ++i) {
    const float angle = kTwoPi * (float(i) + 0.4f * jitter(80, uint32_t(i))) / float(lobes);
    const float dist = i == 0 ? 0.1f : 0.42f + 0.1f * jitter(81, uint32_t(i));
    const float size = (i == 0 ? 0.55f : 0.4f) + 0.06f * jitter(82, uint32_t(i));
    const float y = size * 0.85f + (i == 0 ? 0.05f : 0.08f * jitter(83, uint32_t(i)));
    b.lobe({dist * std::cos(angle), y, dist * std::sin(angle)}, {size, size * 0.85f, size}, 9, 6, 0.15f, 90 + uint32_t(i), 1);
  }
  fitUnitSpace(b.mesh);
  return b.mesh;
}

// Blades from near the centre, each bending outward along its own direction; neighbours cross.
LoadedMesh grass(int lod) {
  Builder b;
  const bool near = lod == 0;
  const int blades = near ? 9 : 4;
  const int steps = near ? 4 : 1;
  for (int i = 0; i < blades; ++i) {
    const float angle = kTwoPi * (float(i) + 0.45f * jitter(100, uint32_t(i))) / float(blades);
    const V3 dir{std::cos(angle), 0, std::sin(angle)};
    // across the blade, turned from the lean direction so that neighbouring blades cross
    const float twist = 1.2f + 0.5f * jitter(101, uint32_t(i));
    const V3 across{std::cos(angle + twist), 0, std::sin(angle + twist)};
    const float height = 0.75f + 0.25f * jitter(102, uint32_t(i));
    const float lean = 0.55f + 0.3f * jitter(103, uint32_t(i));
    const float width = near ? 0.09f : 0.16f;
    const V3 base = dir * (-0.12f) + across * (0.05f * jitter(104, uint32_t(i)));
    std::vector<V3> left, right;
    for (int k = 0; k <= steps; ++k) {
      const float t = float(k) / float(steps);
      // a quadratic bend: upright at the base, leaning more toward the tip
      const V3 centre = base + dir * (lean * t * t) + V3{0, height * (t - 0.15f * t * t) / 0.85f, 0};
      const float w = width * (1 - 0.85f * t);
      left.push_back(centre - across * w);
      right.push_back(centre + across * w);
    }
    b.sheet(left, right, 1);
  }
  fitUnitSpace(b.mesh);
  return b.mesh;
}

// Leaves lying almost flat at irregular angles and heights around a low centre.
LoadedMesh groundCover(int lod) {
  Builder b;
  const bool near = lod == 0;
  // LOD 1: six wider leaves of one segment with a blunt tip, the area of LOD 0's thirteen (six
  // pointed ones, triangles, showed 0.53 of it: moss halved its cover 14 m from the eye); the
  // same 24 triangles, ground cover being the most numerous instances
  const int leaves = near ? 13 : 6;
  for (int i = 0; i < leaves; ++i) {
    const float angle = kTwoPi * (float(i) + 0.4f * jitter(120, uint32_t(i))) / float(leaves);
    const V3 dir{std::cos(angle), 0, std::sin(angle)};
    const V3 across{-dir.z, 0, dir.x};
    const float length = 0.55f + 0.35f * jitter(121, uint32_t(i));
    const float width = (near ? 0.26f : 0.4f) * (0.8f + 0.2f * jitter(122, uint32_t(i)));
    const float rise = 0.3f + 0.6f * (0.5f + 0.5f * jitter(123, uint32_t(i)));  // tip height in [0.3, 0.9]
    const float start = 0.05f + 0.05f * jitter(124, uint32_t(i));
    std::vector<V3> left, right;
    const int steps = near ? 3 : 1;
    for (int k = 0; k <= steps; ++k) {
      const float t = float(k) / float(steps);
      const V3 centre = dir * (length * t) + V3{0, start + (rise - start) * t, 0};
      // widest in the middle, pointed at the tip
      // (LOD 1's one segment ends blunt: pointed, its leaves were triangles of half the area)
      const float w = width * (k == steps ? (near ? 0.02f : 0.6f) : std::sin(kPi * (0.25f + 0.6f * t)));
      left.push_back(centre - across * w);
      right.push_back(centre + across * w);
    }
    b.sheet(left, right, 1);
  }
  fitUnitSpace(b.mesh);
  return b.mesh;
}

}  // namespace

float broadleafCrownShare(float heightOverCrown) {
  if (!(heightOverCrown > 0)) return kBroadleafCrownShare;
  return std::clamp(2.4f / heightOverCrown, 0.25f, kBroadleafCrownShare);
}

LoadedMesh proceduralMesh(MeshForm form, int lod, float heightOverCrown) {
  LoadedMesh m;
  switch (form) {
    case MeshForm::Broadleaf:
      m = broadleaf(lod);
      // The crown (y from the form's crown base to 1) moved up to the species' share, the
      // bole below stretched to meet it: a piecewise linear map of y, normals after.
      if (const float share = broadleafCrownShare(heightOverCrown); share < kBroadleafCrownShare) {
        const float base = 1.f - kBroadleafCrownShare, newBase = 1.f - share;
        for (MeshVertex& v : m.vertices) {
          float& y = v.position[1];
          y = y <= base ? y * (newBase / base) : newBase + (y - base) * (share / kBroadleafCrownShare);
        }
      }
      break;
    case MeshForm::Conifer: m = conifer(lod); break;
    case MeshForm::Shrub: m = shrub(lod); break;
    case MeshForm::Grass: m = grass(lod); break;
    case MeshForm::GroundCover: m = groundCover(lod); break;
  }
  computeNormals(m.vertices, m.indices);
  return m;
}

}  // namespace eco
