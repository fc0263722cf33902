#pragma once
// Inside the export stage: what the formats share (the selection of tiles, species and
// instances; the species' proxy meshes) and the per-tile writers of the folder formats, each
// a pure function of decoded data so tests can call it on hand-made tiles.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "export/export.h"
#include "tileio/tileio.h"

namespace eco {

// A species' mesh (meshes/meshes.h, one LOD of its file or form) at its size at scale 1: unit
// points times (crown radius, mesh height, crown radius), normals by the inverse scale and
// renormalised. Split into the bark (drawn in BARK_COLOR) and the foliage (the instance's
// colour); a part without triangles is absent.
struct ProxyPart {
  bool bark = false;
  std::vector<std::array<float, 3>> points, normals;
  std::vector<uint32_t> indices;  // triangles
  std::array<float, 3> min{}, max{};
  // A mesh file's TEXCOORD_0, one per point as glTF has it (v down from the image's top), and
  // its material's base colour texture (the image file's bytes, PNG or JPEG); both empty when
  // the mesh has none (procedural meshes, and every bake so far: see speciesMeshLods).
  std::vector<std::array<float, 2>> uvs;
  std::vector<uint8_t> texture;
};
// Every species' parts by id: its mesh file when the bake carries one (read through
// readMeshVerified, so a tampered file is an InputError naming it), else the procedural
// mesh of its form. speciesMeshes is LOD 0; speciesMeshLods both LODs from one build.
using SpeciesParts = std::vector<std::vector<ProxyPart>>;
SpeciesParts speciesMeshes(const std::string& bakeDir, const Manifest& manifest);
struct SpeciesLods {
  SpeciesParts lod0, lod1;  // lod1: the file's simplified mesh or the form's coarse one
};
SpeciesLods speciesMeshLods(const std::string& bakeDir, const Manifest& manifest);

// What an export reads: the tiles that can hold a selected instance (indices into
// manifest.tiles, manifest order) and the species kept. InputError for an unknown species.
struct ExportSelection {
  Manifest manifest;
  std::vector<size_t> tiles;
  std::vector<bool> keep;  // by species id
  std::optional<std::array<double, 4>> region;
  SpeciesParts meshes;  // by species id (speciesMeshes)
  SpeciesParts meshesLod1;  // by species id, LOD 1 (speciesMeshLods)

  bool selected(const Instance& in) const;
  // The selected instances of every listed tile, from the manifest's per-tile species counts;
  // empty with a region (only reading the tiles tells).
  std::optional<uint64_t> countFromManifest() const;
};
ExportSelection selectForExport(const std::string& bakeDir, const ExportOptions& options);

// One tile's selected instances in tile order, with their ids (instanceId).
struct SelectedTile {
  int x = 0, z = 0;
  std::vector<Instance> instances;
  std::vector<uint64_t> ids;
};
SelectedTile selectFromTile(const ExportSelection& selection, const TileData& tile);


// Linear RGB in [0, 1] of an RGBA8 colour (R low byte), as the viewer reads instance tints.
std::array<float, 3> linearRgb(uint32_t rgba);

// ---- USD (usd.cpp) ----

// A valid USD prim name for a species: "sp<id>_" and the name's ASCII letters, digits and
// underscores (others become '_'), so distinct ids give distinct names.
std::string usdPrimName(const SpeciesRecord& species);
// prototypes.usda: /Prototypes/<prim> per kept species: its bark and foliage Materials
// (UsdPreviewSurface) under Looks, and its proxy meshes in the variant set "lod" (lod0, the
// default, from `lod0`; lod1 from `lod1`), each Mesh bound to its part's material. A part with
// UVs and a texture gets primvars:st and a UsdUVTexture reading usdTexturePath.
std::string usdPrototypesLayer(const Manifest& manifest, const std::vector<bool>& keep, const SpeciesParts& lod0,
                               const SpeciesParts& lod1);
// Where a part's base colour texture goes, relative to the export folder and to
// prototypes.usda: "textures/<prim>_<bark|foliage>.<png|jpg>"; empty when the part has no
// texture (or UVs) or its bytes are neither PNG nor JPEG.
std::string usdTexturePath(const SpeciesRecord& species, const ProxyPart& part);
// The texture files prototypes.usda reads (kept species without a mesh asset, LOD 0 parts):
// what the export writes beside it and lists in export.json.
struct UsdTextureFile {
  std::string path;  // usdTexturePath
  const std::vector<uint8_t>* bytes = nullptr;
};
std::vector<UsdTextureFile> usdTextureFiles(const Manifest& manifest, const std::vector<bool>& keep,
                                            const SpeciesParts& lod0);
// A conservative box of everything a tile's instancer draws: each instance's bounding sphere
// (its species' sphere at its scale) around its position. The tile layer's `extent`, and
// the root layer's `extentsHint`, which gives an unloaded payload its bounds.
struct Box {
  std::array<float, 3> lo{}, hi{};
};
Box usdExtent(const Manifest& manifest, const SelectedTile& tile);
// tiles/X_Z.usda: a PointInstancer /tile over the kept species, each prototype an instanceable
// prim referencing prototypes.usda (one shared prototype per species on a composed stage);
// `extent` is usdExtent(tile).
std::string usdTileLayer(const Manifest& manifest, const std::vector<bool>& keep, const SelectedTile& tile,
                         const Box& extent);
// world.usda: /World with one component prim per tile loading its layer as a payload.
struct UsdTileRef {
  int x = 0, z = 0;
  std::string file;  // relative to world.usda
  Box extent;
};
std::string usdRootLayer(const Manifest& manifest, const std::vector<UsdTileRef>& tiles);
// `value` rounded to half precision (nearest, ties to even), as a float: quath components
// are written as the shortest decimal of this float, which reads back as the same half.
float roundToHalf(float value);

// ---- glTF (gltf.cpp) ----

// tiles/X_Z.glb: binary glTF 2.0 with a root node for the tile and one child node per kept
// species that has instances in it, instanced with EXT_mesh_gpu_instancing; with `lod1`, each
// such node has its LOD 1 through MSFT_lod (docs/export.md). Instances are tile-local; the
// root node carries the tile's origin, or (originInRoot false: 3D Tiles, where the tile's
// transform carries it) no transform.
std::vector<uint8_t> gltfTile(const Manifest& manifest, const std::vector<bool>& keep, const SpeciesParts& meshes,
                              const SpeciesParts* lod1, const SelectedTile& tile, bool originInRoot = true);

// ---- 3D Tiles (tiles3d.cpp) ----

// One bake tile of the tileset: its content file and what bounds it.
struct TilesetLeaf {
  int x = 0, z = 0;
  std::string file;      // content uri, relative to tileset.json
  Box box;               // everything its content draws, bake frame (x east, y up, z south), world metres
  float tallest = 0;     // the tallest plant's height (mesh height x scale), metres
  uint64_t instances = 0;
};
// tileset.json (3D Tiles 1.1): a quadtree over the bake's tile grid whose leaves are the
// given tiles (any order), in the local east-north-up frame of the world's origin (x east,
// y north = -z, z up). Each leaf's transform moves its tile-local content to the tile's
// origin; bounding boxes hold the content; a leaf's geometric error is 0 and a parent's the
// tallest plant under it (what is missing when it is drawn without its children).
// `rootTransform`: the root tile's column-major transform, or identity when empty.
std::string tilesetJson(const Manifest& manifest, const std::vector<TilesetLeaf>& leaves,
                        const std::optional<std::array<double, 16>>& rootTransform);
// The column-major transform from the local east-north-up frame at (longitude, latitude in
// degrees, ellipsoidal height in metres) to WGS84 Earth-centred, Earth-fixed coordinates.
std::array<double, 16> eastNorthUpToEcef(double longitudeDeg, double latitudeDeg, double height);

}  // namespace eco
