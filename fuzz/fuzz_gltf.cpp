// parseMetricMesh (the species mesh loader: tinygltf parses, meshes/gltf_load.cpp checks) on
// arbitrary bytes, as a .glb or .gltf with no folder (external buffers refused). A mesh it
// accepts must survive the bake's normalisation: writeGlb's bytes parse again, to a mesh whose
// GLB is the same bytes (the fixed point the bake and the viewer rely on).
#include <vector>

#include "core/error.h"
#include "fuzz_support.h"
#include "meshes/meshes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  try {
    const eco::MetricMesh mesh = eco::parseMetricMesh(bytes, "fuzz.glb", "");
    if (mesh.indices.empty() || mesh.indices.size() % 3) __builtin_trap();
    for (uint32_t i : mesh.indices)
      if (i >= mesh.vertices.size()) __builtin_trap();
    const std::vector<uint8_t> glb = eco::writeGlb(mesh);
    const eco::MetricMesh back = eco::parseMetricMesh(glb, "normalised.glb", "");
    if (eco::writeGlb(back) != glb) __builtin_trap();
    eco::toUnitSpace(mesh, 2, 1);
  } catch (const eco::InputError&) {
  }
  return 0;
}
