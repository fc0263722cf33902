#pragma once
// Inside the meshes stage: helpers shared by the procedural forms, the glTF loader and the LODs.
#include <cmath>
#include <cstdint>
#include <vector>

#include "meshes/meshes.h"

namespace eco {

// Smooth vertex normals: each triangle's area-weighted normal (v1 - v0) x (v2 - v0), summed at
// its vertices and normalised; (0, 1, 0) where the sum vanishes (a vertex of degenerate
// triangles only).
inline void computeNormals(std::vector<MeshVertex>& vertices, const std::vector<uint32_t>& indices, size_t first = 0) {
  std::vector<double> sum(3 * (vertices.size() - first), 0.0);
  for (size_t t = 0; t + 2 < indices.size(); t += 3) {
    const float* a = vertices[indices[t]].position;
    const float* b = vertices[indices[t + 1]].position;
    const float* c = vertices[indices[t + 2]].position;
    const double u[3] = {double(b[0]) - double(a[0]), double(b[1]) - double(a[1]), double(b[2]) - double(a[2])};
    const double v[3] = {double(c[0]) - double(a[0]), double(c[1]) - double(a[1]), double(c[2]) - double(a[2])};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    for (size_t k = 0; k < 3; ++k) {
      const uint32_t i = indices[t + k];
      if (i < first) continue;
      for (size_t c2 = 0; c2 < 3; ++c2) sum[3 * (i - first) + c2] += n[c2];
    }
  }
  for (size_t i = first; i < vertices.size(); ++i) {
    const double* s = &sum[3 * (i - first)];
    const double len = std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    float* n = vertices[i].normal;
    if (len > 0) {
      n[0] = float(s[0] / len), n[1] = float(s[1] / len), n[2] = float(s[2] / len);
    } else {
      n[0] = 0, n[1] = 1, n[2] = 0;
    }
    n[3] = 0;
  }
}

}  // namespace eco
