// buildMeshes: every species' two LODs in one vertex and index buffer. A file mesh is welded
// (identical vertices merged), ordered for the vertex cache, and simplified for LOD 1 with
// meshoptimizer in metres (so the error target is isotropic in the real object), then divided
// into the species' unit space. Procedural meshes have hand-made LODs (procedural.cpp).
#include <algorithm>
#include <cmath>

#include <meshoptimizer.h>

#include "core/error.h"
#include "meshes/mesh_build.h"
#include "meshes/meshes.h"

namespace eco {

namespace {

struct Lods {
  LoadedMesh mesh;                          // unit space, shared by both LODs
  std::vector<uint32_t> lod[gpu::LOD_COUNT];  // triangle lists into mesh.vertices
};

Lods fileLods(const MetricMesh& metric, float meshHeight, float crownRadius) {
  // Weld: a file's vertices are often split per face or per primitive; merging identical
  // ones (position, normal and tint alike) loses nothing and lets the simplifier see the
  // surface's connectivity.
  const size_t n = metric.indices.size();
  std::vector<uint32_t> remap(metric.vertices.size());
  const size_t count = meshopt_generateVertexRemap(remap.data(), metric.indices.data(), n, metric.vertices.data(),
                                                   metric.vertices.size(), sizeof(MeshVertex));
  MetricMesh welded;
  welded.vertices.resize(count);
  welded.indices.resize(n);
  meshopt_remapVertexBuffer(welded.vertices.data(), metric.vertices.data(), metric.vertices.size(), sizeof(MeshVertex),
                            remap.data());
  meshopt_remapIndexBuffer(welded.indices.data(), metric.indices.data(), n, remap.data());

  Lods out;
  out.lod[0].resize(n);
  meshopt_optimizeVertexCache(out.lod[0].data(), welded.indices.data(), n, count);
  // LOD 1: at most kLod1IndexFraction of the indices, within kLod1RelativeError of the
  // mesh's extent (meshoptimizer's error is relative to the largest side of its bounding box).
  std::vector<uint32_t> simple(n);
  const size_t target = std::max<size_t>(3, size_t(float(n) * kLod1IndexFraction) / 3 * 3);
  const size_t kept = meshopt_simplify(simple.data(), out.lod[0].data(), n, welded.vertices[0].position, count,
                                       sizeof(MeshVertex), target, kLod1RelativeError, 0, nullptr);
  simple.resize(kept);
  if (simple.empty()) simple = out.lod[0];  // never an empty LOD
  out.lod[1].resize(simple.size());
  meshopt_optimizeVertexCache(out.lod[1].data(), simple.data(), simple.size(), count);
  out.mesh = toUnitSpace(welded, meshHeight, crownRadius);
  out.mesh.indices.clear();
  return out;
}

Lods proceduralLods(MeshForm form, float heightOverCrown) {
  Lods out;
  for (uint32_t lod = 0; lod < gpu::LOD_COUNT; ++lod) {
    LoadedMesh m = proceduralMesh(form, int(lod), heightOverCrown);
    const uint32_t base = uint32_t(out.mesh.vertices.size());
    out.mesh.vertices.insert(out.mesh.vertices.end(), m.vertices.begin(), m.vertices.end());
    for (uint32_t i : m.indices) out.lod[lod].push_back(base + i);
  }
  return out;
}

// The bounding sphere of LOD 0 in metres at scale 1 (box centre, farthest vertex), its centre
// given back in unit space.
void boundingSphere(const Lods& l, float meshHeight, float crownRadius, float sphere[4]) {
  const double s[3] = {double(crownRadius), double(meshHeight), double(crownRadius)};
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (uint32_t i : l.lod[0])
    for (int c = 0; c < 3; ++c) {
      const double x = double(l.mesh.vertices[i].position[c]) * s[c];
      lo[c] = std::min(lo[c], x);
      hi[c] = std::max(hi[c], x);
    }
  double centre[3], r2 = 0;
  for (int c = 0; c < 3; ++c) centre[c] = 0.5 * (lo[c] + hi[c]);
  for (uint32_t i : l.lod[0]) {
    double d2 = 0;
    for (int c = 0; c < 3; ++c) {
      const double d = double(l.mesh.vertices[i].position[c]) * s[c] - centre[c];
      d2 += d * d;
    }
    r2 = std::max(r2, d2);
  }
  for (int c = 0; c < 3; ++c) sphere[c] = float(centre[c] / s[c]);
  // rounded up so that float rounding never leaves a vertex outside
  sphere[3] = float(std::sqrt(r2) * (1 + 1e-6));
}

// The far card's extent: LOD 1's foliage (what the meshes are drawn with far away; all of it
// where nothing is tinted), its height range and widest horizontal reach in unit space.
void farCard(const Lods& l, MeshForm form, float card[4]) {
  float yMin = 1e30f, yMax = -1e30f, reach = 0;
  for (bool foliageOnly : {true, false}) {
    for (uint32_t i : l.lod[1]) {
      const MeshVertex& v = l.mesh.vertices[i];
      if (foliageOnly && v.position[3] < 0.5f) continue;
      yMin = std::min(yMin, v.position[1]);
      yMax = std::max(yMax, v.position[1]);
      reach = std::max(reach, std::hypot(v.position[0], v.position[2]));
    }
    if (yMax >= yMin) break;
  }
  if (!(yMax >= yMin)) yMin = 0, yMax = 1, reach = 1;
  // The outline's width: the foliage's side silhouette has the area of the outline (a cone's
  // tiers reach past the triangle through their rims; a lumpy crown is not its ellipse). The
  // silhouette's area: cell centres of a 48 x 48 grid over the extent covered by a foliage
  // triangle, seen along z and along x, averaged.
  constexpr int kGrid = 48;
  double covered = 0;
  for (int axis : {0, 2}) {
    for (int gy = 0; gy < kGrid; ++gy)
      for (int gx = 0; gx < kGrid; ++gx) {
        const float px = -reach + (float(gx) + 0.5f) * 2 * reach / kGrid, py = yMin + (float(gy) + 0.5f) * (yMax - yMin) / kGrid;
        bool hit = false;
        for (size_t t = 0; t + 2 < l.lod[1].size() && !hit; t += 3) {
          const MeshVertex* v[3] = {&l.mesh.vertices[l.lod[1][t]], &l.mesh.vertices[l.lod[1][t + 1]], &l.mesh.vertices[l.lod[1][t + 2]]};
          if (v[0]->position[3] < 0.5f && v[1]->position[3] < 0.5f && v[2]->position[3] < 0.5f) continue;
          float d[3];
          for (int e = 0; e < 3; ++e) {
            const float* a = v[e]->position;
            const float* b = v[(e + 1) % 3]->position;
            d[e] = (b[axis] - a[axis]) * (py - a[1]) - (b[1] - a[1]) * (px - a[axis]);
          }
          hit = (d[0] >= 0 && d[1] >= 0 && d[2] >= 0) || (d[0] <= 0 && d[1] <= 0 && d[2] <= 0);
        }
        covered += hit ? 1 : 0;
      }
  }
  const double silhouette = covered / (2.0 * kGrid * kGrid) * 2.0 * double(reach) * double(yMax - yMin);
  const bool cone = form == MeshForm::Conifer;
  const double outline = (cone ? 1.0 : 3.14159265358979 / 2) * double(reach) * double(yMax - yMin);
  card[0] = yMin;
  card[1] = yMax;
  card[2] = silhouette > 0 ? float(double(reach) * silhouette / outline) : reach;
  card[3] = cone ? 1.0f : 0.0f;
}

}  // namespace

MeshSet buildMeshes(std::span<const SpeciesMeshSource> species) {
  MeshSet set;
  for (const SpeciesMeshSource& src : species) {
    SpeciesMesh out{};
    const float h = src.meshHeight > 0 ? src.meshHeight : 1, cr = src.crownRadius > 0 ? src.crownRadius : 1;
    Lods lods;
    bool loaded = false;
    if (!src.file.empty()) {
      try {
        lods = fileLods(loadMetricMesh(src.file), h, cr);
        out.source = src.file;
        loaded = true;
      } catch (const std::exception& e) {  // InputError; bad_alloc of a huge but legal file
        out.error = e.what();
      }
    }
    if (!loaded) {
      lods = proceduralLods(src.form, h / cr);
      out.source = std::string("procedural ") + meshFormName(src.form);
    }
    boundingSphere(lods, h, cr, out.sphere);
    const uint32_t vertexOffset = uint32_t(set.vertices.size());
    set.vertices.insert(set.vertices.end(), lods.mesh.vertices.begin(), lods.mesh.vertices.end());
    for (uint32_t lod = 0; lod < gpu::LOD_COUNT; ++lod) {
      out.lods[lod] = {uint32_t(set.indices.size()), uint32_t(lods.lod[lod].size()), vertexOffset};
      out.triangles[lod] = uint32_t(lods.lod[lod].size() / 3);
      set.indices.insert(set.indices.end(), lods.lod[lod].begin(), lods.lod[lod].end());
    }
    farCard(lods, src.form, out.card);
    set.species.push_back(std::move(out));
  }
  return set;
}

}  // namespace eco
