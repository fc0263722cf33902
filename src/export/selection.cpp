#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "core/json.h"
#include "export/writers.h"
#include "meshes/meshes.h"

namespace eco {

ExportSelection selectForExport(const std::string& bakeDir, const ExportOptions& options) {
  ExportSelection sel;
  sel.manifest = readManifest(bakeDir);
  const Manifest& m = sel.manifest;
  sel.region = options.region;

  sel.keep.assign(m.species.size(), options.species.empty());
  std::vector<std::string> known;
  for (const SpeciesRecord& s : m.species) known.push_back(s.name);
  for (const std::string& name : options.species) {
    auto it = std::find(known.begin(), known.end(), name);
    if (it == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InputError("--species: \"" + name + "\" is not a species of " + bakeDir + suggestion(name, known) +
                       " (species: " + list + ")");
    }
    sel.keep[size_t(it - known.begin())] = true;
  }

  // The tiles in the range that can hold an instance of the region.
  for (size_t i = 0; i < m.tiles.size(); ++i) {
    const TileEntry& e = m.tiles[i];
    if (options.tiles && (e.x < options.tiles->x0 || e.x >= options.tiles->x1 || e.z < options.tiles->z0 ||
                          e.z >= options.tiles->z1))
      continue;
    if (options.region) {
      // Positions are clamped into the tile's rectangle when quantised.
      const double size = double(m.tiling.tileSize), x0 = e.x * size, z0 = e.z * size;
      const std::array<double, 4>& r = *options.region;
      if (x0 > r[2] || x0 + size < r[0] || z0 > r[3] || z0 + size < r[1]) continue;
    }
    sel.tiles.push_back(i);
  }
  SpeciesLods lods = speciesMeshLods(bakeDir, m);
  sel.meshes = std::move(lods.lod0);
  sel.meshesLod1 = std::move(lods.lod1);
  return sel;
}

bool ExportSelection::selected(const Instance& in) const {
  if (!keep[in.species]) return false;
  if (!region) return true;
  const std::array<double, 4>& r = *region;
  const double x = double(in.position.x), z = double(in.position.z);
  return x >= r[0] && x <= r[2] && z >= r[1] && z <= r[3];
}

std::optional<uint64_t> ExportSelection::countFromManifest() const {
  if (region) return std::nullopt;
  uint64_t n = 0;
  for (size_t t : tiles)
    for (size_t s = 0; s < keep.size(); ++s) n += keep[s] ? manifest.tiles[t].speciesCounts[s] : 0;
  return n;
}

SelectedTile selectFromTile(const ExportSelection& selection, const TileData& tile) {
  SelectedTile out;
  out.x = tile.tileX;
  out.z = tile.tileZ;
  for (size_t i = 0; i < tile.instances.size(); ++i) {
    if (!selection.selected(tile.instances[i])) continue;
    out.instances.push_back(tile.instances[i]);
    out.ids.push_back(instanceId(selection.manifest.tiling.tilesX, tile.tileX, tile.tileZ, uint32_t(i)));
  }
  return out;
}

namespace {

std::vector<ProxyPart> speciesParts(const MeshSet& set, const SpeciesMesh& mesh, const SpeciesRecord& species, int lod) {
  const MeshRange& range = mesh.lods[lod];
  const float size[3] = {species.crownRadius, species.meshHeight, species.crownRadius};

  std::vector<ProxyPart> parts(2);
  parts[0].bark = true;
  // Each part numbers its own vertices from 0, in first-use order.
  std::vector<uint32_t> remap(set.vertices.size(), UINT32_MAX);
  for (uint32_t t = 0; t + 2 < range.indexCount; t += 3) {
    const uint32_t* tri = &set.indices[range.firstIndex + t];
    // A triangle's vertices share their tint (each surface is built with one).
    const bool bark = set.vertices[range.vertexOffset + tri[0]].position[3] < 0.5f;
    ProxyPart& part = parts[bark ? 0 : 1];
    for (int k = 0; k < 3; ++k) {
      const uint32_t v = range.vertexOffset + tri[k];
      if (remap[v] == UINT32_MAX) {
        const MeshVertex& mv = set.vertices[v];
        remap[v] = uint32_t(part.points.size());
        std::array<float, 3> p{}, n{};
        float len = 0;
        for (int c = 0; c < 3; ++c) {
          p[size_t(c)] = mv.position[c] * size[c];
          n[size_t(c)] = mv.normal[c] / size[c];
          len += n[size_t(c)] * n[size_t(c)];
        }
        len = std::sqrt(len);
        for (float& c : n) c /= len;
        part.points.push_back(p);
        part.normals.push_back(n);
      }
      part.indices.push_back(remap[v]);
    }
  }
  std::vector<ProxyPart> out;
  for (ProxyPart& part : parts) {
    if (part.indices.empty()) continue;
    part.min = part.max = part.points[0];
    for (const std::array<float, 3>& p : part.points)
      for (size_t c = 0; c < 3; ++c) {
        part.min[c] = std::min(part.min[c], p[c]);
        part.max[c] = std::max(part.max[c], p[c]);
      }
    out.push_back(std::move(part));
  }
  return out;
}

}  // namespace

SpeciesLods speciesMeshLods(const std::string& bakeDir, const Manifest& manifest) {
  std::vector<SpeciesMeshSource> sources;
  for (const SpeciesRecord& s : manifest.species) {
    SpeciesMeshSource src{speciesMeshForm(s), "", s.meshHeight, s.crownRadius};
    if (!s.meshFile.empty()) {
      readMeshVerified(bakeDir, s);  // size and checksum against the manifest first
      src.file = (std::filesystem::path(bakeDir) / s.meshFile).string();
    }
    sources.push_back(src);
  }
  const MeshSet set = buildMeshes(sources);
  SpeciesLods out;
  for (size_t i = 0; i < manifest.species.size(); ++i) {
    // A bake's mesh file that passed its checksum but fails to load is corrupt, not a
    // reason to export a stand-in.
    if (!set.species[i].error.empty()) throw InputError(set.species[i].error);
    out.lod0.push_back(speciesParts(set, set.species[i], manifest.species[i], 0));
    out.lod1.push_back(speciesParts(set, set.species[i], manifest.species[i], 1));
  }
  // ProxyPart::uvs and texture stay empty: the bake's normalised GLB (writeGlb) keeps positions,
  // normals and the tint only, so no bake carries TEXCOORD_0 or a base colour texture yet.
  return out;
}

SpeciesParts speciesMeshes(const std::string& bakeDir, const Manifest& manifest) {
  return std::move(speciesMeshLods(bakeDir, manifest).lod0);
}

std::array<float, 3> linearRgb(uint32_t rgba) {
  return {float(rgba & 0xff) / 255.f, float((rgba >> 8) & 0xff) / 255.f, float((rgba >> 16) & 0xff) / 255.f};
}

}  // namespace eco
