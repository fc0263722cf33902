#include "meshes/meshes.h"

#include <cmath>

namespace eco {

namespace {

constexpr float kTwoPi = 6.28318530718f;

struct Builder {
  std::vector<MeshVertex> vertices;
  std::vector<uint32_t> indices;

  uint32_t vertex(float x, float y, float z, float nx, float ny, float nz, float tint) {
    float len = std::sqrt(nx * nx + ny * ny + nz * nz);
    if (len > 0) nx /= len, ny /= len, nz /= len;
    vertices.push_back({{x, y, z, tint}, {nx, ny, nz, 0}});
    return uint32_t(vertices.size() - 1);
  }

  // Surface of revolution through profile points (radius, y), bottom to top.
  void lathe(const std::vector<std::pair<float, float>>& profile, int segments, float tint) {
    uint32_t base = uint32_t(vertices.size());
    int rings = int(profile.size());
    for (int r = 0; r < rings; ++r) {
      // profile normal: average of the adjacent segments' outward normals (dy, -dr)
      float nr = 0, ny = 0;
      for (int s = r - 1; s <= r; ++s) {
        if (s < 0 || s + 1 >= rings) continue;
        float dr = profile[size_t(s + 1)].first - profile[size_t(s)].first;
        float dy = profile[size_t(s + 1)].second - profile[size_t(s)].second;
        float len = std::sqrt(dr * dr + dy * dy);
        nr += dy / len;
        ny += -dr / len;
      }
      for (int i = 0; i < segments; ++i) {
        float a = kTwoPi * float(i) / float(segments);
        float c = std::cos(a), s = std::sin(a);
        const std::pair<float, float>& pt = profile[size_t(r)];
        vertex(pt.first * c, pt.second, pt.first * s, nr * c, ny, nr * s, tint);
      }
    }
    for (int r = 0; r + 1 < rings; ++r) {
      for (int i = 0; i < segments; ++i) {
        uint32_t a = base + uint32_t(r * segments + i);
        uint32_t b = base + uint32_t(r * segments + (i + 1) % segments);
        uint32_t c = a + uint32_t(segments), d = b + uint32_t(segments);
        indices.insert(indices.end(), {a, c, b, b, c, d});
      }
    }
  }

  // Tapered blades leaning outward from the centre.
  void blades(int count, float baseHalfWidth, float tint) {
    for (int i = 0; i < count; ++i) {
      float a = kTwoPi * (float(i) + 0.37f * float(i % 3)) / float(count);
      float c = std::cos(a), s = std::sin(a);
      float bx = 0.25f * c, bz = 0.25f * s;
      float tx = 0.95f * c, tz = 0.95f * s;
      // blade plane contains the lean direction and the vertical; normal along the tangent
      float nx = -s, nz = c;
      uint32_t v0 = vertex(bx - nx * baseHalfWidth, 0, bz - nz * baseHalfWidth, nx, 0.3f, nz, tint);
      uint32_t v1 = vertex(bx + nx * baseHalfWidth, 0, bz + nz * baseHalfWidth, nx, 0.3f, nz, tint);
      uint32_t v2 = vertex(tx * 0.5f, 1, tz * 0.5f, nx, 0.3f, nz, tint);
      indices.insert(indices.end(), {v0, v1, v2});
    }
  }

  MeshRange finish(uint32_t firstVertex, uint32_t firstIndex) {
    // indices were written as absolute; rebase to the mesh's first vertex
    for (size_t i = firstIndex; i < indices.size(); ++i) indices[i] -= firstVertex;
    return {firstIndex, uint32_t(indices.size()) - firstIndex, firstVertex};
  }
};

}  // namespace

MeshSet buildMeshes() {
  Builder b;
  MeshSet set;
  auto add = [&](gpu::uint kind, gpu::uint lod, auto&& build) {
    uint32_t v = uint32_t(b.vertices.size()), i = uint32_t(b.indices.size());
    build();
    set.ranges[kind * gpu::LOD_COUNT + lod] = b.finish(v, i);
  };
  // tree: bark trunk and a conifer-like crown
  add(0, 0, [&] {
    b.lathe({{0.09f, 0.0f}, {0.06f, 0.35f}}, 6, 0);
    b.lathe({{0.05f, 0.22f}, {0.95f, 0.32f}, {1.0f, 0.45f}, {0.72f, 0.7f}, {0.3f, 0.9f}, {0.0f, 1.0f}}, 10, 1);
  });
  add(0, 1, [&] { b.lathe({{0.0f, 0.25f}, {1.0f, 0.35f}, {0.0f, 1.0f}}, 4, 1); });
  // shrub: rounded bush
  add(1, 0, [&] { b.lathe({{0.55f, 0.0f}, {0.95f, 0.3f}, {0.9f, 0.65f}, {0.5f, 0.92f}, {0.0f, 1.0f}}, 8, 1); });
  add(1, 1, [&] { b.lathe({{0.7f, 0.0f}, {1.0f, 0.4f}, {0.0f, 1.0f}}, 4, 1); });
  // grass clump: leaning blades
  add(2, 0, [&] { b.blades(7, 0.08f, 1); });
  add(2, 1, [&] { b.blades(3, 0.2f, 1); });
  // ground cover: low dome
  add(3, 0, [&] { b.lathe({{1.0f, 0.0f}, {0.85f, 0.55f}, {0.45f, 0.9f}, {0.0f, 1.0f}}, 8, 1); });
  add(3, 1, [&] { b.lathe({{1.0f, 0.0f}, {0.0f, 1.0f}}, 4, 1); });
  set.vertices = std::move(b.vertices);
  set.indices = std::move(b.indices);
  return set;
}

}  // namespace eco

namespace eco {
SpeciesMeshSet buildSpeciesMeshes(std::span<const SpeciesMeshSource> species) {
  MeshSet kinds = buildMeshes();
  SpeciesMeshSet out{kinds.vertices, kinds.indices, {}};
  for (const SpeciesMeshSource& s : species) {
    uint32_t kind = s.form == MeshForm::Broadleaf || s.form == MeshForm::Conifer ? 0
                    : s.form == MeshForm::Shrub                                 ? 1
                    : s.form == MeshForm::Grass                                 ? 2
                                                                                : 3;
    SpeciesMesh m{};
    for (uint32_t l = 0; l < gpu::LOD_COUNT; ++l) {
      m.lods[l] = kinds.ranges[kind * gpu::LOD_COUNT + l];
      m.triangles[l] = m.lods[l].indexCount / 3;
    }
    float h = s.meshHeight, r = s.crownRadius;
    m.sphere[0] = 0, m.sphere[1] = 0.5f, m.sphere[2] = 0, m.sphere[3] = std::sqrt(0.25f * h * h + r * r);
    m.source = "procedural";
    out.species.push_back(m);
  }
  return out;
}
}  // namespace eco
