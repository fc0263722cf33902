#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "bake/bake.h"
#include "core/hash.h"
#include "core/rounding.h"

namespace eco {

uint32_t packColor(const float rgb[3]) {
  auto byte = [](float v) { return uint32_t(unorm8(v)); };
  return byte(rgb[0]) | byte(rgb[1]) << 8 | byte(rgb[2]) << 16 | 0xff000000u;
}

std::vector<SpeciesRecord> speciesRecords(const BiomeConfig& config) {
  std::vector<SpeciesRecord> out;
  for (size_t i = 0; i < config.species.size(); ++i) {
    const SpeciesConfig& sp = config.species[i];
    SpeciesRecord r;
    r.id = uint16_t(i);
    r.name = sp.name;
    r.kind = uint8_t(sp.kind);
    r.meshHeight = sp.meshHeight;
    r.crownRadius = sp.crownRadius;
    r.scaleMin = sp.scaleMin;
    r.scaleMax = sp.scaleMax;
    // Sphere around the mesh's bounding cylinder (height h, radius crown), centred at h / 2.
    r.boundingCenterY = 0.5f * sp.meshHeight;
    r.boundingRadius = std::sqrt(0.25f * sp.meshHeight * sp.meshHeight + sp.crownRadius * sp.crownRadius);
    r.baseColor = packColor(sp.color);
    r.meshAsset = sp.meshAsset;
    if (sp.meshForm != defaultMeshForm(sp.kind)) r.meshForm = sp.meshForm;  // else the manifest leaves it out
    out.push_back(r);
  }
  return out;
}

std::string bakeMeshFile(size_t species) { return "meshes/" + std::to_string(species) + ".glb"; }

std::vector<SpeciesRecord> speciesRecords(const World& world) {
  std::vector<SpeciesRecord> out = speciesRecords(world.config);
  for (size_t i = 0; i < out.size() && i < world.meshes.size(); ++i) {
    const MetricMesh& mesh = world.meshes[i];
    if (mesh.indices.empty()) continue;
    SpeciesRecord& r = out[i];
    const std::vector<uint8_t> glb = writeGlb(mesh);
    r.meshFile = bakeMeshFile(i);
    r.meshBytes = glb.size();
    r.meshChecksum = checksum64(glb);
    // The sphere of the real mesh (in metres at scale 1: the file's own size), around its
    // box centre; the record keeps its centre on the axis, so the radius grows by the
    // centre's distance from it.
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (const MeshVertex& v : mesh.vertices)
      for (int c = 0; c < 3; ++c) {
        lo[c] = std::min(lo[c], double(v.position[c]));
        hi[c] = std::max(hi[c], double(v.position[c]));
      }
    const double centre[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
    double r2 = 0;
    for (const MeshVertex& v : mesh.vertices) {
      double d2 = 0;
      for (int c = 0; c < 3; ++c) d2 += (double(v.position[c]) - centre[c]) * (double(v.position[c]) - centre[c]);
      r2 = std::max(r2, d2);
    }
    r.boundingCenterY = float(centre[1]);
    r.boundingRadius = float((std::sqrt(r2) + std::hypot(centre[0], centre[2])) * (1 + 1e-6));
  }
  return out;
}

}  // namespace eco
