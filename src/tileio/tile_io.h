#pragma once
// Reading and writing tile files (schemas/tile.fbs) and the bake manifest (manifest.json).
#include <cstdint>
#include <string>
#include <vector>

#include "core/file_io.h"  // readers and writers of tiles use it; kept here for their includes
#include "core/types.h"

namespace eco {

enum class SpeciesKind : uint8_t;

// One species as stored in tiles and the manifest.
struct SpeciesRecord {
  uint16_t id = 0;
  std::string name;
  uint8_t kind = 0;  // eco::fb::SpeciesKind
  float meshHeight = 1, crownRadius = 0.5f;
  float scaleMin = 1, scaleMax = 1;
  float boundingCenterY = 0.5f, boundingRadius = 1;  // at scale 1
  uint32_t baseColor = 0xffffffff;                   // RGBA8, R low byte
};

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

// 4x3 row-major affine transform: rows are (R * scale | t), so world = M * (local, 1).
// R = tilt(up) * rotY(yaw): first a yaw about the local y axis (counter-clockwise seen from
// above: +x turns toward -z), then the shortest-arc rotation taking (0, 1, 0) to `up`.
struct Transform43 {
  float m[12];
};
Transform43 instanceTransform(const Instance& inst);

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

}  // namespace eco
