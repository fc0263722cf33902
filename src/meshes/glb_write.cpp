// The normalised GLB a bake stores for a species' mesh file (and ecosample's sample meshes):
// self-contained (one BIN chunk), two primitives, bark and foliage, each with its own
// compacted vertices. Written by hand rather than through tinygltf's writer so that the bytes
// are fixed by this file alone: same mesh, same bytes, on any machine.
#include <cstring>

#include <nlohmann/json.hpp>

#include "meshes/meshes.h"

namespace eco {

namespace {

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void putFloat(std::vector<uint8_t>& out, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  put32(out, u);
}

}  // namespace

std::vector<uint8_t> writeGlb(const MetricMesh& mesh) {
  using Json = nlohmann::ordered_json;
  std::vector<uint8_t> bin;
  Json accessors = Json::array(), views = Json::array(), primitives = Json::array();
  // part 0: bark (w = 0), part 1: foliage; a triangle's tint is its first vertex's.
  for (int part = 0; part < 2; ++part) {
    std::vector<uint32_t> remap(mesh.vertices.size(), UINT32_MAX), order, indices;
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
      const bool bark = mesh.vertices[mesh.indices[t]].position[3] < 0.5f;
      if (bark != (part == 0)) continue;
      for (size_t k = 0; k < 3; ++k) {
        const uint32_t v = mesh.indices[t + k];
        if (remap[v] == UINT32_MAX) {
          remap[v] = uint32_t(order.size());
          order.push_back(v);
        }
        indices.push_back(remap[v]);
      }
    }
    if (indices.empty()) continue;
    float lo[3], hi[3];
    for (int c = 0; c < 3; ++c) lo[c] = hi[c] = mesh.vertices[order[0]].position[c];
    const size_t first = bin.size();
    for (uint32_t v : order)
      for (int c = 0; c < 3; ++c) {
        const float x = mesh.vertices[v].position[c];
        putFloat(bin, x);
        lo[c] = std::min(lo[c], x);
        hi[c] = std::max(hi[c], x);
      }
    const size_t normals = bin.size();
    for (uint32_t v : order)
      for (int c = 0; c < 3; ++c) putFloat(bin, mesh.vertices[v].normal[c]);
    const size_t index = bin.size();
    for (uint32_t i : indices) put32(bin, i);
    const int a = int(accessors.size());
    views.push_back({{"buffer", 0}, {"byteOffset", first}, {"byteLength", normals - first}, {"target", 34962}});
    views.push_back({{"buffer", 0}, {"byteOffset", normals}, {"byteLength", index - normals}, {"target", 34962}});
    views.push_back({{"buffer", 0}, {"byteOffset", index}, {"byteLength", bin.size() - index}, {"target", 34963}});
    accessors.push_back({{"bufferView", a}, {"componentType", 5126}, {"count", order.size()}, {"type", "VEC3"},
                         {"min", {lo[0], lo[1], lo[2]}}, {"max", {hi[0], hi[1], hi[2]}}});
    accessors.push_back({{"bufferView", a + 1}, {"componentType", 5126}, {"count", order.size()}, {"type", "VEC3"}});
    accessors.push_back({{"bufferView", a + 2}, {"componentType", 5125}, {"count", indices.size()}, {"type", "SCALAR"}});
    primitives.push_back({{"attributes", {{"POSITION", a}, {"NORMAL", a + 1}}}, {"indices", a + 2}, {"material", part}, {"mode", 4}});
  }
  Json gltf = {{"asset", {{"version", "2.0"}, {"generator", "ecobake"}}},
               {"scene", 0},
               {"scenes", {{{"nodes", {0}}}}},
               {"nodes", {{{"mesh", 0}}}},
               {"meshes", {{{"primitives", std::move(primitives)}}}},
               // the tint rule (docs/meshes.md): a material named "bark" is not tinted
               {"materials", {{{"name", "bark"}}, {{"name", "foliage"}}}},
               {"accessors", std::move(accessors)},
               {"bufferViews", std::move(views)},
               {"buffers", {{{"byteLength", bin.size()}}}}};
  std::string json = gltf.dump();
  while (json.size() % 4) json.push_back(' ');
  while (bin.size() % 4) bin.push_back(0);
  std::vector<uint8_t> out;
  put32(out, 0x46546C67u);  // "glTF"
  put32(out, 2);
  put32(out, uint32_t(12 + 8 + json.size() + 8 + bin.size()));
  put32(out, uint32_t(json.size()));
  put32(out, 0x4E4F534Au);  // JSON
  out.insert(out.end(), json.begin(), json.end());
  put32(out, uint32_t(bin.size()));
  put32(out, 0x004E4942u);  // BIN
  out.insert(out.end(), bin.begin(), bin.end());
  return out;
}

}  // namespace eco
