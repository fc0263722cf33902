#pragma once
// The bake manifest: manifest.json in the bake folder, next to terrain.r32f and tiles/.
// Lists the world, terrain, tiling, species table, every tile file with its checksum, input
// hashes and totals. Readers trust nothing: readManifest and readTileVerified validate.
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.h"
#include "tileio/tile_io.h"

namespace eco {

struct TileEntry {
  int x = 0, z = 0;
  std::string file;  // relative to the bake folder, e.g. "tiles/3_7.ecot"
  uint64_t instances = 0;
  uint64_t bytes = 0;
  uint64_t checksum = 0;  // checksum64 (XXH3-64) of the whole file; "xxh3_64": 16 hex digits in JSON
  std::vector<uint64_t> speciesCounts;  // indexed by species id
};

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
  struct {
    float tileSize = 0;
    int tilesX = 0, tilesZ = 0;
  } tiling;
  std::vector<SpeciesRecord> species;  // indexed by id
  std::vector<TileEntry> tiles;        // sorted by (z, x); non-empty tiles only
  struct {
    std::string config, heightmap, river;  // hex64 of the inputs; river empty without one
  } hashes;
  struct {
    uint64_t instances = 0, bytes = 0;
    std::vector<uint64_t> speciesCounts;
  } totals;
};

// Fills manifest.totals from manifest.tiles.
void computeTotals(Manifest& manifest);

// Writes dir/manifest.json atomically, tiles sorted by (z, x). A non-finite number anywhere
// is a bug upstream (validation should have refused the input): std::logic_error naming the
// field, and nothing is written, rather than a manifest with `null` that no reader accepts.
void writeManifest(const std::string& dir, const Manifest& manifest);
// Reads and validates dir/manifest.json; InputError on a missing, corrupt, inconsistent or
// unknown-format file. Numbers are checked against each other and against the files they
// describe before anything is sized from them: the terrain file's size must equal
// width * height * 4, each tile's claimed instances must fit in its claimed bytes, and
// its bytes in kMaxTileBytes; tile files themselves are checked by readTileVerified.
Manifest readManifest(const std::string& dir);

// True when dir/manifest.json is a regular file of at most the manifest size limit that
// parses as JSON and carries the ecobake format marker ("format": "ecobake-manifest"), whatever
// its format_version: the test for "this folder is a bake that `bake -o` may replace". Never
// throws for bad content; otherwise `why` (may be null) says what is missing.
bool hasEcobakeManifest(const std::string& dir, std::string* why);

// dir/<manifest.terrain.file> as width * height floats; InputError if missing or wrong size.
std::vector<float> readTerrainRaw(const std::string& dir, const Manifest& manifest);
// Writes dir/terrain.r32f atomically (little-endian float32, row-major).
void writeTerrainRaw(const std::string& dir, const Grid& heights);

// Reads dir/<entry.file> and checks it before trusting any of it: the file size against
// entry.bytes (before allocating), the checksum, the decode, then the decoded tile against
// the manifest: coordinates, tile size, instance count, per-species counts and the species
// table. InputError naming the tile file and the first mismatch. Every reader of a bake
// (inspect, export, masks --bake, the viewer) goes through this.
TileData readTileVerified(const std::string& dir, const Manifest& manifest, const TileEntry& entry);
// The checks of readTileVerified after the decode, for a tile already in memory.
void verifyTileAgainstManifest(const Manifest& manifest, const TileEntry& entry, const TileData& tile,
                               const std::string& name);

}  // namespace eco
