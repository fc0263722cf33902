#pragma once
// The tileio stage: reading and writing tile files (schemas/tile.fbs) and the bake manifest
// (manifest.json beside terrain.r32f and tiles/), which lists the world, terrain, tiling,
// species table, every tile file with its checksum, input hashes and totals. Readers trust
// nothing: decodeTile, readManifest and readTileVerified validate. File access goes through
// core/file_io.h. Design: docs/tile-format.md.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/species_kind.h"
#include "core/types.h"

namespace eco {

// One species as stored in tiles and the manifest.
struct SpeciesRecord {
  uint16_t id = 0;
  std::string name;
  uint8_t kind = 0;  // eco::fb::SpeciesKind
  float meshHeight = 1, crownRadius = 0.5f;
  float scaleMin = 1, scaleMax = 1;
  float boundingCenterY = 0.5f, boundingRadius = 1;  // at scale 1
  uint32_t baseColor = 0xffffffff;                   // RGBA8, R low byte
  // The config's mesh.asset (manifest "mesh_asset", absent when empty); not in tile files.
  std::string meshAsset;
  // The mesh the viewer draws (not in tile files): manifest "mesh_form", written only when it
  // is not the kind's default; with a mesh.file, the normalised GLB the bake wrote
  // ("mesh_file", always meshes/<name>.glb), its size and XXH3-64 ("mesh_bytes",
  // "mesh_xxh3_64"). docs/meshes.md.
  std::optional<MeshForm> meshForm;  // empty: the kind's default (speciesMeshForm)
  std::string meshFile;
  uint64_t meshBytes = 0, meshChecksum = 0;
};
// The form of a species' mesh: its record's, else its kind's default.
inline MeshForm speciesMeshForm(const SpeciesRecord& s) {
  return s.meshForm ? *s.meshForm : defaultMeshForm(s.kind < kSpeciesKindNames.size() ? SpeciesKind(s.kind) : SpeciesKind::Tree);
}

// Decoded instance, as the bake produces it and as readers get it back.
struct Instance {
  Vec3 position;
  uint16_t species = 0;
  float yaw = 0;        // radians, [0, 2 pi)
  float scale = 1;
  Vec3 up{0, 1, 0};     // unit; tilt toward the terrain normal
  uint32_t color = 0xffffffff;  // RGBA8 tint
};

struct TileData {
  int tileX = 0, tileZ = 0;
  float tileSize = 0;
  Vec3 boundsMin, boundsMax;
  std::vector<SpeciesRecord> species;
  std::vector<Instance> instances;  // sorted by species
};

// One instance as a tile stores it (schemas/tile.fbs PackedInstance), 16 bytes: x, y, z unorm16
// over the tile's quantization box, yaw, scale unorm16 over the species' [scaleMin, scaleMax],
// octahedral up, RGBA8 colour. The viewer uploads these records as they are.
struct PackedRecord {
  uint16_t x = 0, y = 0, z = 0, yaw = 0, scale = 0, up = 0;
  uint32_t color = 0;
};
static_assert(sizeof(PackedRecord) == 16);
// The quantization box encodeTile uses: x/z the tile's world rectangle, y the instances' range.
void tileQuantizationBox(const TileData& tile, Vec3& lo, Vec3& hi);
// Quantizes one instance into the box (the encoder's one definition of a record).
PackedRecord packRecord(const Instance& inst, const SpeciesRecord& species, Vec3 lo, Vec3 hi);

// Serializes to FlatBuffers bytes. Instances are stably sorted by species on the way (already
// sorted input keeps its order). Quantization (see tile.fbs and tileio/quantize.h):
//   x/z over the tile's world rectangle [tile * tileSize, (tile + 1) * tileSize], positions
//   clamped into it: error <= tileSize / 65535 / 2 (2 mm for 256 m tiles);
//   y over the instances' [min y, max y]: error <= range / 65535 / 2 (7.6 mm for 1000 m);
//   yaw <= pi / 65536; scale <= (scaleMax - scaleMin) / 65535 / 2; up < 0.012 rad.
// The bounds are computed here; tile.boundsMin/boundsMax are ignored. Throws
// std::invalid_argument for a species id outside tile.species or tileSize <= 0.
std::vector<uint8_t> encodeTile(const TileData& tile);
// Verifies (FlatBuffers verifier, identifier, version, ranges) and decodes. Throws
// InputError naming `name` on corrupt or truncated data.
TileData decodeTile(const uint8_t* data, size_t size, const std::string& name);
// Largest tile file a reader accepts (a 128 m tile of 0.3 m ground cover holds about 16 MB).
constexpr uint64_t kMaxTileBytes = uint64_t(1) << 30;
TileData readTileFile(const std::string& path);

// ---- The manifest ----

struct TileEntry {
  int x = 0, z = 0;
  std::string file;  // relative to the bake folder, e.g. "tiles/3_7.ecot"
  uint64_t instances = 0;
  uint64_t bytes = 0;
  uint64_t checksum = 0;  // checksum64 (XXH3-64) of the whole file; "xxh3_64": 16 hex digits in JSON
  std::vector<uint64_t> speciesCounts;  // indexed by species id
};

// A part of a sharded bake (`ecobake bake --shard I/N`): which band of tile rows it baked.
// Its manifest.json has "format": "ecobake-part" (so no reader takes it for a whole bake) and
// otherwise the fields of a bake's, its tiles and totals those of its rows only. Only part 1
// carries terrain.r32f (the same bytes in every part; merge copies it once); every part
// records the terrain's checksum so that merge can tell parts of different inputs apart.
struct ManifestPart {
  int index = 1, count = 1;         // 1-based, index <= count
  int firstRow = 0, lastRow = 0;    // tile rows (z) firstRow..lastRow inclusive
  bool hasTerrain = false;          // terrain.r32f is in this part's folder
  uint64_t terrainChecksum = 0;     // checksum64 of the terrain file's bytes
};

// ---- Raster layers (docs/tile-format.md "Layers") ----
// A quantised raster over the terrain's grid (one code per terrain.r32f sample, row-major),
// stored raw in the bake folder: the river's distance field (kind "river", always written
// when the config has a river) and, with `ecobake bake --layers masks`, the eco-masks (kind
// "mask") and each species' suitability (kind "suitability"). A code c means the value
// valueMin + c / codeMax * (valueMax - valueMin) in `unit`; values outside the range were
// clamped to it.
enum class LayerEncoding : uint8_t { Unorm8, Unorm16 };  // "unorm8": 1 byte; "unorm16": 2 bytes, little-endian
struct LayerEntry {
  std::string name;     // unique in the bake: "river_distance", "slope", "suitability_beech", ...
  std::string kind;     // "river", "mask" or "suitability"
  std::string species;  // suitability: the species' name (one of the manifest's); else ""
  std::string file;     // relative to the bake folder, e.g. "layers/slope.r8"
  int width = 0, height = 0;  // the terrain's
  LayerEncoding encoding = LayerEncoding::Unorm8;
  float valueMin = 0, valueMax = 1;  // finite, valueMin < valueMax
  std::string unit;     // "m", "deg", or "" (a fraction or an index without unit)
  uint64_t checksum = 0;  // XXH3-64 of the file, "xxh3_64" like the tiles'
  // River only: the viewer draws water where the distance is at most this many metres
  // (half the config's river.channel_width; "water_distance" in JSON). Negative: not a river.
  float waterDistance = -1;
};
constexpr size_t kMaxLayers = 1024;
inline constexpr const char* kLayerKinds[] = {"river", "mask", "suitability"};
const char* layerEncodingName(LayerEncoding encoding);  // "unorm8", "unorm16"
uint32_t layerCodeMax(LayerEncoding encoding);         // 255, 65535
size_t layerBytesPerCode(LayerEncoding encoding);      // 1, 2
// The file's size: width * height * bytes per code.
uint64_t layerFileBytes(const LayerEntry& entry);
// The one quantisation of a layer: each value clamped to [valueMin, valueMax] and rounded to
// the nearest code (NaN gives 0), written as the file's bytes (little-endian). values holds
// width * height floats, row-major. std::invalid_argument on a size mismatch or a bad range.
std::vector<uint8_t> encodeLayer(const LayerEntry& entry, const std::vector<float>& values);
// The code of one value: encodeLayer's quantisation, for writers that quantise pixel by pixel
// (the entry's range must be finite and increasing).
uint32_t layerCodeOf(const LayerEntry& entry, float value);
// Code i of a layer file's bytes, and its value (the inverse of encodeLayer within half a step).
uint32_t layerCode(const LayerEntry& entry, const std::vector<uint8_t>& bytes, size_t i);
float layerValue(const LayerEntry& entry, uint32_t code);

struct Manifest {
  std::string toolVersion = ECO_VERSION;
  std::string name;
  uint64_t seed = 0;
  struct {
    float sizeX = 0, sizeZ = 0, minY = 0, maxY = 0;  // metres
  } world;
  struct {
    std::string file = "terrain.r32f";  // little-endian float32 metres, row-major width x height
    int width = 0, height = 0;
    float cellSize = 1;
  } terrain;
  // terrain.crs in JSON: "EPSG:32610" from a GeoTIFF heightmap; "" (and no JSON key) when none.
  std::string crs;
  struct {
    float tileSize = 0;
    int tilesX = 0, tilesZ = 0;
  } tiling;
  std::vector<SpeciesRecord> species;  // indexed by id
  std::vector<TileEntry> tiles;        // sorted by (z, x); non-empty tiles only
  struct {
    std::string config, heightmap, river;  // hex64 of the inputs; river empty without one
  } hashes;
  // hashes.inputs in JSON: painted maps and vector exclusion files as (JSON pointer of the
  // config field, hex64), in config order; written only when there are any.
  std::vector<std::pair<std::string, std::string>> inputHashes;
  struct {
    uint64_t instances = 0, bytes = 0;
    std::vector<uint64_t> speciesCounts;
  } totals;
  std::optional<ManifestPart> part;  // set only in the manifest of a part of a sharded bake
  // The config's sun (sun.azimuth_deg, sun.elevation_deg), for the viewer's light. Written as
  // "sun" only when it differs from the default kDefaultSun*, so that bakes of configs that
  // leave the sun alone keep their bytes; a manifest without "sun" has the default.
  float sunAzimuthDeg = 180, sunElevationDeg = 40;
  // The config's `ground` (colours and snow line, for the viewer), as "ground" only when the
  // config has one; without it the viewer takes kTemperateGround.
  std::optional<GroundPalette> ground;
  // Raster layers, in the order written; "layers" in JSON only when there are any. In a part
  // of a sharded bake every part lists them (merge compares them) and part 1 holds the files.
  std::vector<LayerEntry> layers;
};
inline constexpr float kDefaultSunAzimuthDeg = 180, kDefaultSunElevationDeg = 40;

// "tiles/X_Z.ecot": the one name of a tile's file in a bake folder.
std::string tileFileName(int x, int z);

// Fills manifest.totals from manifest.tiles.
void computeTotals(Manifest& manifest);

// Writes dir/manifest.json atomically, tiles sorted by (z, x); with manifest.part set, the
// manifest of a part ("format": "ecobake-part" and a "part" object), else a whole bake's. A non-finite number anywhere
// is a bug upstream (validation should have refused the input): std::logic_error naming the
// field, and nothing is written, rather than a manifest with `null` that no reader accepts.
void writeManifest(const std::string& dir, const Manifest& manifest);
// Reads and validates dir/manifest.json; InputError on a missing, corrupt, inconsistent or
// unknown-format file. Numbers are checked against each other and against the files they
// describe before anything is sized from them: the terrain file's size must equal
// width * height * 4, each tile's claimed instances must fit in its claimed bytes, and
// its bytes in kMaxTileBytes; tile files themselves are checked by readTileVerified.
// The manifest of a part of a sharded bake is refused ("is part 2 of 7 of a sharded bake
// ...: merge the parts with `ecobake merge`"): a lone part is not a world.
Manifest readManifest(const std::string& dir);
// Reads and validates the manifest of a part (dir/manifest.json with "format":
// "ecobake-part"), with readManifest's checks plus the part's own: index within count, rows
// within the tiling, every tile inside the rows, each tile's file named tileFileName, and the
// terrain file's size checked only in the part that carries it. InputError naming the file on
// anything else, a whole bake included.
Manifest readPartManifest(const std::string& dir);

// True when dir/manifest.json is a regular file of at most the manifest size limit that
// parses as JSON and carries the ecobake format marker ("format": "ecobake-manifest", or
// "ecobake-part" for a part of a sharded bake), whatever its format_version: the test for
// "this folder is a bake that `bake -o` may replace". Never throws for bad content; otherwise
// `why` (may be null) says what is missing.
bool hasEcobakeManifest(const std::string& dir, std::string* why);
// The test for "this folder is a bake that `bake -o` (or merge) may replace": a manifest that
// reads as a whole bake or part (readManifest / readPartManifest: every check) and no entry
// in the folder but the files it lists (terrain, tiles, layers, meshes), the manifest and their
// folders. A bare marker, an older format version, or a user's file beside a real bake: false,
// `why` naming the file or the problem. Never throws.
bool isReplaceableBake(const std::string& dir, std::string* why);

// dir/<file> (a path from the manifest), checked to lie inside the bake folder once links are
// resolved: a tile, layer, terrain or mesh replaced by a link to a file elsewhere is an
// InputError naming both (the folder itself may be a link). Every verified reader goes through it.
std::string bakeMemberPath(const std::string& dir, const std::string& file);

// dir/<manifest.terrain.file> as width * height floats; InputError if missing, of the wrong
// size, holding a height that is not finite (naming its pixel) or spanning other heights than
// the manifest's world.min_y .. max_y.
std::vector<float> readTerrainRaw(const std::string& dir, const Manifest& manifest);
// Writes dir/terrain.r32f atomically (little-endian float32, row-major).
void writeTerrainRaw(const std::string& dir, const Grid& heights);

// Reads dir/<entry.file>, a layer of the manifest: its size (before anything is allocated)
// must be layerFileBytes(entry) and its XXH3-64 the entry's. Returns the file's bytes
// (layerCode reads them). InputError naming the file otherwise.
std::vector<uint8_t> readLayerVerified(const std::string& dir, const LayerEntry& entry);

// Reads dir/<entry.file> and checks it before trusting any of it: the file size against
// entry.bytes (before allocating), the checksum, the decode, then the decoded tile against
// the manifest: coordinates, tile size, instance count, per-species counts and the species
// table. InputError naming the tile file and the first mismatch. Every reader of a bake
// (inspect, export, masks --bake, the viewer) goes through this.
TileData readTileVerified(const std::string& dir, const Manifest& manifest, const TileEntry& entry);
// Largest mesh file a manifest may list (the loader's own limit, meshes/meshes.h).
constexpr uint64_t kMaxBakeMeshBytes = uint64_t(256) << 20;
// dir/<species.meshFile> checked against the manifest (size before reading, then XXH3-64):
// the bytes the viewer and the exports load. InputError naming the file.
std::vector<uint8_t> readMeshVerified(const std::string& dir, const SpeciesRecord& species);
// The checks of readTileVerified after the decode, for a tile already in memory.
void verifyTileAgainstManifest(const Manifest& manifest, const TileEntry& entry, const TileData& tile,
                               const std::string& name);

}  // namespace eco
