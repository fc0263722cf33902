// glTF export: one binary glTF 2.0 file (GLB) per tile, instancing each species' mesh
// with EXT_mesh_gpu_instancing. Layout and the choices behind it: docs/export.md.
#include <cmath>
#include <cstring>
#include <numbers>
#include <nlohmann/json.hpp>

#include "export/writers.h"
#include "shaders/shared.h"
#include "shaders/transform.h"

namespace eco {

namespace {

using Json = nlohmann::ordered_json;

// glTF enums (glTF 2.0 specification, 5.1 accessor.componentType, 5.11 bufferView.target).
constexpr int kUnsignedShort = 5123, kUnsignedInt = 5125, kFloat = 5126;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;

// The binary chunk and the accessors and buffer views into it, one view per accessor.
struct Builder {
  std::vector<uint8_t> bin;
  Json accessors = Json::array(), views = Json::array();

  int add(const void* data, size_t bytes, int target) {
    while (bin.size() % 4) bin.push_back(0);  // every accessor's offset is 4-byte aligned
    Json view = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", bytes}};
    if (target) view["target"] = target;
    const uint8_t* p = static_cast<const uint8_t*>(data);
    bin.insert(bin.end(), p, p + bytes);
    views.push_back(std::move(view));
    return int(views.size()) - 1;
  }
  int accessor(const void* data, size_t count, size_t elementBytes, int componentType, const char* type, int target,
               bool normalized = false) {
    Json a = {{"bufferView", add(data, count * elementBytes, target)}, {"componentType", componentType},
              {"count", count}, {"type", type}};
    if (normalized) a["normalized"] = true;
    accessors.push_back(std::move(a));
    return int(accessors.size()) - 1;
  }
};

Json floats(const float* v, int n) {
  Json a = Json::array();
  for (int i = 0; i < n; ++i) a.push_back(double(v[i]));  // exact: the validator compares min/max with the data
  return a;
}

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace

std::vector<uint8_t> gltfTile(const Manifest& manifest, const std::vector<bool>& keep, const SpeciesParts& speciesParts,
                              const SpeciesParts* lod1Parts, const SelectedTile& tile, bool originInRoot) {
  Builder b;
  const std::string name = "tile_" + std::to_string(tile.x) + "_" + std::to_string(tile.z);
  Json nodes = Json::array(), meshes = Json::array(), children = Json::array();
  Json materials = Json::array();
  int barkMaterial = -1;  // added with the first mesh that has bark
  bool usesLod = false;
  // The root carries the tile's origin and the instances are tile-local, so an engine's float32
  // transforms keep sub-millimetre steps far from the world origin (world float32 positions step
  // by about 8 mm at 100 km). Local = world - origin is exact in float32 (Sterbenz: the origin
  // is a multiple of the tile size at most the position, and at least half of it), so
  // origin + local gives back the decoded position exactly.
  const float originX = float(double(tile.x) * double(manifest.tiling.tileSize));
  const float originZ = float(double(tile.z) * double(manifest.tiling.tileSize));
  nodes.push_back({{"name", name}});
  if (originInRoot) nodes.back()["translation"] = {originX, 0.0f, originZ};

  // Instances are sorted by species in a tile, so each species is one run.
  for (size_t first = 0; first < tile.instances.size();) {
    const uint16_t species = tile.instances[first].species;
    size_t end = first;
    while (end < tile.instances.size() && tile.instances[end].species == species) ++end;
    const SpeciesRecord& s = manifest.species[species];
    const size_t count = end - first;
    if (!keep[species]) {  // selectFromTile keeps only these; a caller's own tile may not
      first = end;
      continue;
    }

    // The species' foliage material: its base colour (instances add their own tint in _COLOR_0).
    const std::array<float, 3> base = linearRgb(s.baseColor);
    const int foliage = int(materials.size());
    materials.push_back({{"name", s.name},
                         {"doubleSided", true},  // grass blades are single triangles
                         {"pbrMetallicRoughness",
                          {{"baseColorFactor", {double(base[0]), double(base[1]), double(base[2]), 1.0}},
                           {"metallicFactor", 0.0},
                           {"roughnessFactor", 1.0}}}});
    // The species' mesh from its parts: primitives of the foliage material and the shared bark.
    auto addMesh = [&](const std::vector<ProxyPart>& parts, const std::string& meshName) {
      Json primitives = Json::array();
      for (const ProxyPart& part : parts) {
        if (part.bark && barkMaterial < 0) {
          const float bark[3] = {BARK_COLOR};
          barkMaterial = int(materials.size());
          materials.push_back({{"name", "bark"},
                               {"pbrMetallicRoughness",
                                {{"baseColorFactor", {double(bark[0]), double(bark[1]), double(bark[2]), 1.0}},
                                 {"metallicFactor", 0.0},
                                 {"roughnessFactor", 1.0}}}});
        }
        const int pos = b.accessor(part.points.data(), part.points.size(), 12, kFloat, "VEC3", kArrayBuffer);
        b.accessors[size_t(pos)]["min"] = floats(part.min.data(), 3);
        b.accessors[size_t(pos)]["max"] = floats(part.max.data(), 3);
        const int nrm = b.accessor(part.normals.data(), part.normals.size(), 12, kFloat, "VEC3", kArrayBuffer);
        int idx = 0;
        if (part.points.size() <= 65536) {  // procedural meshes and small files: 16-bit indices
          std::vector<uint16_t> idx16(part.indices.begin(), part.indices.end());
          idx = b.accessor(idx16.data(), idx16.size(), 2, kUnsignedShort, "SCALAR", kElementArrayBuffer);
        } else {
          idx = b.accessor(part.indices.data(), part.indices.size(), 4, kUnsignedInt, "SCALAR", kElementArrayBuffer);
        }
        primitives.push_back({{"attributes", {{"POSITION", pos}, {"NORMAL", nrm}}},
                              {"indices", idx},
                              {"material", part.bark ? barkMaterial : foliage},
                              {"mode", 4}});
      }
      meshes.push_back({{"name", meshName}, {"primitives", std::move(primitives)}});
      return int(meshes.size()) - 1;
    };
    const int mesh = addMesh(speciesParts[species], s.name);

    // Per instance: world position, the instance transform's rotation (shaders/transform.h),
    // uniform scale (the mesh is already at the species' size), linear RGBA8 tint and the
    // index in the tile, from which the instance id follows (docs/export.md).
    std::vector<float> translation, rotation, scale;
    std::vector<float> color;
    std::vector<uint32_t> index;
    for (size_t i = first; i < end; ++i) {
      const Instance& in = tile.instances[i];
      translation.insert(translation.end(), {in.position.x - originX, in.position.y, in.position.z - originZ});
      const gpu::quat q = gpu::instanceOrientation({in.up.x, in.up.y, in.up.z}, in.yaw);
      rotation.insert(rotation.end(), {q.x, q.y, q.z, q.w});
      scale.insert(scale.end(), {in.scale, in.scale, in.scale});
      const std::array<float, 3> tint = linearRgb(in.color);
      color.insert(color.end(), tint.begin(), tint.end());
      index.push_back(uint32_t(tile.ids[i] & ((uint64_t(1) << kInstanceIndexBits) - 1)));
    }
    Json attributes = {
        {"TRANSLATION", b.accessor(translation.data(), count, 12, kFloat, "VEC3", 0)},
        {"ROTATION", b.accessor(rotation.data(), count, 16, kFloat, "VEC4", 0)},
        {"SCALE", b.accessor(scale.data(), count, 12, kFloat, "VEC3", 0)},
        // float VEC3: three.js and Babylon.js read float colours as stored (three.js r187 read
        // normalized RGBA8 instance colours wrongly, issue #31)
        {"_COLOR_0", b.accessor(color.data(), count, 12, kFloat, "VEC3", 0)},
        {"_TILE_INDEX", b.accessor(index.data(), count, 4, kUnsignedInt, "SCALAR", 0)},
    };
    const int node = int(nodes.size());
    children.push_back(node);
    nodes.push_back({{"name", s.name},
                     {"mesh", mesh},
                     {"extensions", {{"EXT_mesh_gpu_instancing", {{"attributes", attributes}}}}},
                     {"extras", {{"ecobake_species_id", s.id}, {"ecobake_tile", {tile.x, tile.z}}}}});
    // LOD 1 (MSFT_lod): a node outside the scene with the coarse mesh and the same instancing
    // accessors. A loader without the extension draws LOD 0; one with it switches the whole
    // node, so the screen coverage is the tile's where the viewer would switch its plants:
    // the tile seen from lodFactor (40) bounding radii of the species' largest instance, its
    // side over the screen height at a 60 degree field of view, squared.
    if (lod1Parts && !(*lod1Parts)[species].empty()) {
      const int coarse = addMesh((*lod1Parts)[species], s.name + "_lod1");
      const int lodNode = int(nodes.size());
      nodes.push_back({{"name", s.name + "_lod1"},
                       {"mesh", coarse},
                       {"extensions", {{"EXT_mesh_gpu_instancing", {{"attributes", std::move(attributes)}}}}}});
      const double distance = 40.0 * double(s.boundingRadius) * double(s.scaleMax);
      const double side = double(manifest.tiling.tileSize) / (2.0 * distance * std::tan(std::numbers::pi / 6.0));
      nodes[size_t(node)]["extensions"]["MSFT_lod"] = {{"ids", {lodNode}}};
      nodes[size_t(node)]["extras"]["MSFT_screencoverage"] = {std::min(side * side, 1.0), 0.0};
      usesLod = true;
    }
    // glTF cannot reference another file's mesh: the species mesh stays, and the export asset
    // is named for the importer to swap in.
    if (!s.meshAsset.empty()) nodes[size_t(node)]["extras"]["ecobake_mesh_asset"] = s.meshAsset;
    first = end;
  }
  if (!children.empty()) nodes[0]["children"] = std::move(children);

  while (b.bin.size() % 4) b.bin.push_back(0);
  Json gltf = {{"asset", {{"version", "2.0"}, {"generator", std::string("ecobake ") + ECO_VERSION}}},
               {"extensionsUsed", usesLod ? Json{"EXT_mesh_gpu_instancing", "MSFT_lod"} : Json{"EXT_mesh_gpu_instancing"}},
               {"extensionsRequired", {"EXT_mesh_gpu_instancing"}},
               {"scene", 0},
               {"scenes", {{{"name", name}, {"nodes", {0}}}}},
               {"nodes", std::move(nodes)}};
  if (!meshes.empty()) {
    gltf["meshes"] = std::move(meshes);
    gltf["materials"] = std::move(materials);
    gltf["accessors"] = std::move(b.accessors);
    gltf["bufferViews"] = std::move(b.views);
    gltf["buffers"] = {{{"byteLength", b.bin.size()}}};
  }
  std::string json = gltf.dump(-1, ' ', false, Json::error_handler_t::replace);
  while (json.size() % 4) json += ' ';  // GLB pads the JSON chunk with spaces

  // GLB: 12-byte header, then the JSON and BIN chunks (glTF 2.0 specification, 4.4).
  std::vector<uint8_t> out;
  const size_t total = 12 + 8 + json.size() + (b.bin.empty() ? 0 : 8 + b.bin.size());
  out.reserve(total);
  put32(out, 0x46546C67);  // "glTF"
  put32(out, 2);
  put32(out, uint32_t(total));
  put32(out, uint32_t(json.size()));
  put32(out, 0x4E4F534A);  // "JSON"
  out.insert(out.end(), json.begin(), json.end());
  if (!b.bin.empty()) {
    put32(out, uint32_t(b.bin.size()));
    put32(out, 0x004E4942);  // "BIN\0"
    out.insert(out.end(), b.bin.begin(), b.bin.end());
  }
  return out;
}

}  // namespace eco
