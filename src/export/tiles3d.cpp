// 3D Tiles 1.1 export: tileset.json over a quadtree of the bake's tiles, the leaves' contents
// the glTF export's GLBs (EXT_mesh_gpu_instancing). Layout and choices: docs/export.md.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "export/writers.h"

namespace eco {

namespace {

using Json = nlohmann::ordered_json;

// A box in the tileset's frame (east, north, up), metres, double.
struct EnuBox {
  std::array<double, 3> lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
  void add(const EnuBox& b) {
    for (int i = 0; i < 3; ++i) lo[size_t(i)] = std::min(lo[size_t(i)], b.lo[size_t(i)]), hi[size_t(i)] = std::max(hi[size_t(i)], b.hi[size_t(i)]);
  }
};

// The bake frame (x east, y up, z south) to east-north-up: (x, -z, y). glTF content is y up
// and 3D Tiles turns it to z up the same way ((x, y, z) -> (x, -z, y)), so a GLB written in the
// bake frame lands where this says.
EnuBox toEnu(const Box& b) {
  EnuBox e;
  e.lo = {double(b.lo[0]), -double(b.hi[2]), double(b.lo[1])};
  e.hi = {double(b.hi[0]), -double(b.lo[2]), double(b.hi[1])};
  return e;
}

// boundingVolume.box: centre, then the three half-axes (3D Tiles 1.1, 5.6.2.1), relative to
// `origin` (the frame of the tile's transform).
Json boxVolume(const EnuBox& b, const std::array<double, 3>& origin) {
  Json box = Json::array();
  for (int i = 0; i < 3; ++i) box.push_back(0.5 * (b.lo[size_t(i)] + b.hi[size_t(i)]) - origin[size_t(i)]);
  for (int axis = 0; axis < 3; ++axis)
    for (int i = 0; i < 3; ++i)
      // a flat box (one instance, a point) still has a little depth: half a millimetre
      box.push_back(i == axis ? std::max(0.5 * (b.hi[size_t(i)] - b.lo[size_t(i)]), 5e-4) : 0.0);
  return {{"box", std::move(box)}};
}

struct Built {
  Json node;
  EnuBox box;
  float tallest = 0;
};

// The quadtree node over tiles [x0, x0 + size) x [z0, z0 + size) holding `leaves` (indices of
// the leaves in that square; not empty).
Built buildNode(const std::vector<TilesetLeaf>& all, std::vector<size_t> leaves, int x0, int z0, int size,
                double tileSize) {
  Built out;
  if (size == 1) {
    const TilesetLeaf& leaf = all[leaves.front()];  // tiles are unique in a bake
    out.box = toEnu(leaf.box);
    out.tallest = leaf.tallest;
    // the tile's origin in east-north-up: its content is tile-local (gltfTile, originInRoot false)
    const std::array<double, 3> origin = {double(leaf.x) * tileSize, -double(leaf.z) * tileSize, 0.0};
    out.node = {{"boundingVolume", boxVolume(out.box, origin)},
                {"geometricError", 0.0},
                {"transform", {1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, origin[0], origin[1], origin[2], 1.0}},
                {"content", {{"uri", leaf.file}}}};
    return out;
  }
  const int half = size / 2;
  Json children = Json::array();
  Built only;  // the one child, when there is one
  for (int q = 0; q < 4; ++q) {
    const int cx = x0 + (q & 1) * half, cz = z0 + (q >> 1) * half;
    std::vector<size_t> inside;
    for (size_t i : leaves)
      if (all[i].x >= cx && all[i].x < cx + half && all[i].z >= cz && all[i].z < cz + half) inside.push_back(i);
    if (inside.empty()) continue;
    Built child = buildNode(all, std::move(inside), cx, cz, half, tileSize);
    out.box.add(child.box);
    out.tallest = std::max(out.tallest, child.tallest);
    if (children.empty()) only = child;
    children.push_back(std::move(child.node));
  }
  // a square with one occupied quadrant is that quadrant: no chains of single children (a
  // small selection of a large grid would hang under levels that each bound the same thing)
  if (children.size() == 1) return only;
  out.node = {{"boundingVolume", boxVolume(out.box, {0.0, 0.0, 0.0})},
              {"geometricError", double(out.tallest)},
              {"children", std::move(children)}};
  return out;
}

}  // namespace

std::array<double, 16> eastNorthUpToEcef(double longitudeDeg, double latitudeDeg, double height) {
  // WGS84 (NIMA TR8350.2): a = 6378137 m, f = 1 / 298.257223563
  constexpr double a = 6378137.0, f = 1.0 / 298.257223563, e2 = f * (2.0 - f);
  const double lon = longitudeDeg * std::numbers::pi / 180.0, lat = latitudeDeg * std::numbers::pi / 180.0;
  const double sl = std::sin(lon), cl = std::cos(lon), sp = std::sin(lat), cp = std::cos(lat);
  const double n = a / std::sqrt(1.0 - e2 * sp * sp);  // prime vertical radius of curvature
  // columns: east, north, up, the point
  return {-sl,      cl,       0.0, 0.0,  //
          -sp * cl, -sp * sl, cp,  0.0,  //
          cp * cl,  cp * sl,  sp,  0.0,  //
          (n + height) * cp * cl, (n + height) * cp * sl, (n * (1.0 - e2) + height) * sp, 1.0};
}

std::string tilesetJson(const Manifest& manifest, const std::vector<TilesetLeaf>& leaves,
                        const std::optional<std::array<double, 16>>& rootTransform) {
  Json extras = {{"bake", manifest.name},
                 {"seed", manifest.seed},
                 {"frame", "east-north-up metres from the world's north-west corner: bake (x, y, z) = (east, up, -north)"},
                 {"tile_size", manifest.tiling.tileSize}};
  if (!manifest.crs.empty()) extras["crs"] = manifest.crs;
  Json root;
  if (leaves.empty()) {  // nothing selected: an empty root over the world, still a valid tileset
    Box world;
    world.hi = {manifest.world.sizeX, manifest.world.maxY, manifest.world.sizeZ};
    world.lo = {0, manifest.world.minY, 0};
    root = {{"boundingVolume", boxVolume(toEnu(world), {0.0, 0.0, 0.0})}, {"geometricError", 0.0}};
  } else {
    int side = 1;
    while (side < manifest.tiling.tilesX || side < manifest.tiling.tilesZ) side *= 2;
    std::vector<size_t> all(leaves.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    root = buildNode(leaves, std::move(all), 0, 0, side, double(manifest.tiling.tileSize)).node;
  }
  root["refine"] = "ADD";  // children add to their parents (the parents here have no content)
  if (rootTransform) {
    // the root's box stays in its own (local) frame; the transform places the whole tree
    std::array<double, 16> m = *rootTransform;
    if (root.contains("transform")) {  // one tile selected: the root is the leaf, moved to its origin
      const Json& t = root["transform"];
      for (int r = 0; r < 3; ++r)  // m times a translation: m's last column gains m's 3x3 times it
        for (int c = 0; c < 3; ++c) m[size_t(12 + r)] += (*rootTransform)[size_t(4 * c + r)] * t[size_t(12 + c)].get<double>();
    }
    root["transform"] = Json::array();
    for (double v : m) root["transform"].push_back(v);
  }
  const double rootError = root["geometricError"].get<double>();
  Json tileset = {{"asset", {{"version", "1.1"}, {"generator", std::string("ecobake ") + ECO_VERSION}}},
                  {"extras", {{"ecobake", std::move(extras)}}},
                  {"geometricError", rootError},
                  {"root", std::move(root)}};
  return tileset.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace eco
