#pragma once
// The export stage: views of a bake for people and other tools (CSV and PLY instance lists,
// USD and glTF scenes of instanced proxy meshes) and PNG previews of the eco-masks and of
// baked instances. Reads finished bakes and the masks; writes nothing a bake reads back.
// Formats and their layout: docs/export.md.
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "masks/masks.h"
#include "sampling/sampling.h"
#include "tileio/tileio.h"

namespace eco {

enum class ExportFormat { Csv, Ply, Usd, Gltf, Tiles3d };
// "csv", "ply", "usd", "gltf", "3dtiles".
const char* exportFormatName(ExportFormat format);
// USD, glTF and 3D Tiles write a folder (one file per tile and an index), CSV and PLY one file.
inline bool writesFolder(ExportFormat format) {
  return format == ExportFormat::Usd || format == ExportFormat::Gltf || format == ExportFormat::Tiles3d;
}

// Which instances an export writes; every filter narrows the one before.
struct ExportOptions {
  ExportFormat format = ExportFormat::Csv;
  // Tiles [x0, x1) x [z0, z1) of the bake's grid; default all. Tiles without instances have no
  // file and are skipped.
  std::optional<TileRange> tiles;
  // Instances with minX <= x <= maxX and minZ <= z <= maxZ (metres); tiles that cannot hold one
  // are not read.
  std::optional<std::array<double, 4>> region;
  // Species by name; empty: all. An unknown name is an InputError listing the bake's species.
  std::vector<std::string> species;
  std::function<void(int done, int total)> progress;  // per tile read
  // PLY as text (`format ascii 1.0`) instead of binary little-endian.
  bool plyAscii = false;
  // 3D Tiles: where the world's origin (its north-west corner, x = z = 0, at height 0) lies on
  // the WGS84 ellipsoid: longitude, latitude (degrees) and ellipsoidal height (metres). The root
  // tile's transform is then the local east-north-up frame there; without it, identity (the
  // tileset is in that local frame).
  std::optional<std::array<double, 3>> georef;
};

// Writes the selected instances to outPath: a file for CSV and PLY (never inside a bake folder:
// InputError), a folder for USD, glTF and 3D Tiles. Returns the number of instances written.
//
// CSV and PLY: every selected instance (manifest order, then tile order) with x, y, z, yaw,
// scale, species, the rotation quaternion, the linear tint and the instance id (docs/export.md);
// PLY binary little-endian (plyAscii: text), one vertex per instance. Tiles are read one at a time, each
// verified against the manifest (readTileVerified), and streamed into the output through
// OutputFile: memory stays at one tile, and a bad bake or a failed write leaves no output (a
// previous file stays). Returns the number of instances written.
//
// Species names are whatever the config said, so they are escaped for each format:
//   CSV: RFC 4180 (a name with a comma, quote, CR or LF is quoted, quotes doubled).
//   PLY: the header has no escape mechanism and a comment ends at a newline (a name with a
//   newline and "end_header" would end the header early), so names in the species comment
//   are percent-encoded: bytes outside A-Z a-z 0-9 - . _ ~ become %XX (RFC 3986).
//   Vertices carry only the species id. The header's vertex count comes from the manifest's
//   per-tile species counts, or, with a region, from a first pass over the region's tiles.
//
// USD and glTF: a folder with one file per tile that holds a selected instance, the species'
// prototype meshes and export.json, the index (and ownership marker) that lists them. USD:
// world.usda loads each tiles/X_Z.usda as a payload, a UsdGeomPointInstancer whose prototypes
// reference prototypes.usda. glTF: tiles/X_Z.glb, one node per species instanced with
// EXT_mesh_gpu_instancing. 3D Tiles 1.1: tileset.json over a quadtree of the tiles, each
// leaf a GLB as the glTF export's with its origin in the tile's transform (docs/export.md).
// The folder is staged and swapped in whole (core/output_dir.h):
// it replaces only a previous export (export.json), and a failed export leaves no trace.
uint64_t exportInstances(const std::string& bakeDir, const ExportOptions& options, const std::string& outPath);

std::string csvField(const std::string& value);      // RFC 4180 field
std::string plyHeaderName(const std::string& name);  // percent-encoded as above

// The stable id of the instance at `index` in the tile at (tileX, tileZ) of a grid tilesX
// wide: tile number (z * tilesX + x) times 2^26 plus the index (a verified tile holds fewer
// than kMaxTileBytes / 16 = 2^26 instances). Unique and positive as int64 for grids of up to
// 2^37 tiles (exports of larger grids are refused), and unchanged by export filters or by
// baking only part of the world. USD writes them as `ids`, glTF as each node's first id.
constexpr int kInstanceIndexBits = 26;
constexpr uint64_t kMaxIdTiles = uint64_t(1) << 37;
static_assert(kMaxTileBytes / sizeof(PackedRecord) <= (uint64_t(1) << kInstanceIndexBits));
inline uint64_t instanceId(int tilesX, int tileX, int tileZ, uint32_t index) {
  return ((uint64_t(uint32_t(tileZ)) * uint64_t(uint32_t(tilesX)) + uint64_t(uint32_t(tileX))) << kInstanceIndexBits) |
         index;
}

// No preview is wider or taller than this: a heightmap or extent that would make one larger
// is drawn at a coarser scale (a 4096 x 4096 RGB image is 48 MiB).
constexpr int kMaxPreviewSide = 4096;

// Writes elevation, slope, aspect, sun, moisture and suitability_<species>.png (plus
// nodata.png for a heightmap with nodata and inputs_<species>.png for a species with painted
// maps or vector exclusions) into the existing folder dir at the heightmap's resolution, or
// every n-th cell when that would be more than kMaxPreviewSide pixels a side. Returns the
// files written. InputError naming the file when one cannot be written.
std::vector<std::string> writeMaskPreviews(const World& world, const SuitabilityRasters& rasters, const std::string& dir);

// Top-down picture of instances over a hillshade, each species in its base colour, drawn in
// the order given (put trees last so they stay visible). `pixelsPerMetre` sets the scale,
// lowered so that neither side exceeds kMaxPreviewSide; returns the scale used.
float writeInstancePreview(const World& world, const std::vector<TileData>& tiles, float pixelsPerMetre,
                           const std::string& path);

}  // namespace eco
