#include "tileio/tileio.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "core/error.h"
#include "core/file_io.h"
#include "tile_generated.h"
#include "tileio/quantize.h"

namespace eco {

constexpr uint16_t kTileFormatVersion = 1;

static fb::Vec3 toFb(Vec3 v) { return {v.x, v.y, v.z}; }
static Vec3 fromFb(const fb::Vec3& v) { return {v.x(), v.y(), v.z()}; }

void tileQuantizationBox(const TileData& tile, Vec3& lo, Vec3& hi) {
  lo.x = float(double(tile.tileX) * double(tile.tileSize));
  lo.z = float(double(tile.tileZ) * double(tile.tileSize));
  hi.x = float((double(tile.tileX) + 1) * double(tile.tileSize));
  hi.z = float((double(tile.tileZ) + 1) * double(tile.tileSize));
  lo.y = hi.y = 0;
  if (tile.instances.empty()) return;
  lo.y = hi.y = tile.instances[0].position.y;
  for (const Instance& inst : tile.instances) {
    lo.y = std::min(lo.y, inst.position.y);
    hi.y = std::max(hi.y, inst.position.y);
  }
}

PackedRecord packRecord(const Instance& inst, const SpeciesRecord& sp, Vec3 lo, Vec3 hi) {
  return {quantizeUnorm16(double(inst.position.x), double(lo.x), double(hi.x)),
          quantizeUnorm16(double(inst.position.y), double(lo.y), double(hi.y)),
          quantizeUnorm16(double(inst.position.z), double(lo.z), double(hi.z)), quantizeYaw(double(inst.yaw)),
          quantizeUnorm16(double(inst.scale), double(sp.scaleMin), double(sp.scaleMax)), encodeOctahedral(inst.up),
          inst.color};
}

std::vector<uint8_t> encodeTile(const TileData& tile) {
  if (!(tile.tileSize > 0)) throw std::invalid_argument("encodeTile: tileSize must be > 0");
  for (size_t i = 0; i < tile.species.size(); ++i)
    if (tile.species[i].id != i) throw std::invalid_argument("encodeTile: species table not indexed by id");
  const std::vector<Instance>& instances = tile.instances;
  bool sorted = true;
  for (size_t i = 0; i < instances.size(); ++i) {
    if (instances[i].species >= tile.species.size())
      throw std::invalid_argument("encodeTile: species id out of range");
    sorted &= i == 0 || instances[i - 1].species <= instances[i].species;
  }
  std::vector<uint32_t> order;  // only for unsorted input; makeInstances already sorts
  if (!sorted) {
    order.resize(instances.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return instances[a].species < instances[b].species; });
  }

  Vec3 lo, hi;
  tileQuantizationBox(tile, lo, hi);

  std::vector<fb::PackedInstance> packed;
  std::vector<fb::SpeciesRange> ranges;
  packed.reserve(instances.size());
  for (size_t i = 0; i < instances.size(); ++i) {
    const Instance& inst = instances[sorted ? i : order[i]];
    const SpeciesRecord& sp = tile.species[inst.species];
    if (ranges.empty() || ranges.back().species() != inst.species)
      ranges.emplace_back(inst.species, uint32_t(packed.size()), 0u);
    const fb::SpeciesRange& r = ranges.back();
    ranges.back() = fb::SpeciesRange(r.species(), r.first(), r.count() + 1);
    const PackedRecord q = packRecord(inst, sp, lo, hi);
    packed.emplace_back(q.x, q.y, q.z, q.yaw, q.scale, q.up, q.color);
  }

  flatbuffers::FlatBufferBuilder fbb(1024 + packed.size() * sizeof(fb::PackedInstance));
  fbb.ForceDefaults(true);  // format_version is written even though it equals the default
  std::vector<flatbuffers::Offset<fb::SpeciesInfo>> species;
  for (const SpeciesRecord& sp : tile.species)
    species.push_back(fb::CreateSpeciesInfo(fbb, sp.id, fbb.CreateString(sp.name), fb::SpeciesKind(sp.kind),
                                            sp.meshHeight, sp.crownRadius, sp.scaleMin, sp.scaleMax,
                                            sp.boundingCenterY, sp.boundingRadius, sp.baseColor));
  auto speciesVec = fbb.CreateVector(species);
  auto rangesVec = fbb.CreateVectorOfStructs(ranges);
  auto instancesVec = fbb.CreateVectorOfStructs(packed);
  fb::Vec3 fbLo = toFb(lo), fbHi = toFb(hi);
  auto root = fb::CreateTile(fbb, kTileFormatVersion, tile.tileX, tile.tileZ, tile.tileSize, &fbLo, &fbHi,
                             speciesVec, rangesVec, instancesVec);
  fb::FinishTileBuffer(fbb, root);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

static bool finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

static const fb::Tile& verifiedRoot(const uint8_t* data, size_t size, const std::string& name) {
  if (size < 8 || !fb::TileBufferHasIdentifier(data))
    throw InputError(name + ": not a tile file (missing \"ECOT\" identifier)");
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) throw InputError(name + ": tile file too large");
  // FlatBufferBuilder pads finished buffers to their alignment (>= 4); the verifier cannot
  // see a cut that removes only trailing padding, this catches it.
  if (size % 4 != 0) throw InputError(name + ": truncated tile data");
  flatbuffers::Verifier verifier(data, size);
  if (!fb::VerifyTileBuffer(verifier)) throw InputError(name + ": corrupt or truncated tile data");
  const fb::Tile& t = *fb::GetTile(data);
  if (t.format_version() != kTileFormatVersion)
    throw InputError(name + ": unsupported tile format_version " + std::to_string(t.format_version()) +
                     " (this build reads " + std::to_string(kTileFormatVersion) + ")");
  return t;
}

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF): FlatBuffers
// strings are UTF-8 by definition, and the bake only writes names that came through a JSON
// parser, so anything else is a corrupt tile; refusing it here keeps every consumer (JSON
// output, CSV, the viewer's labels) from meeting bytes it cannot represent.
static bool validUtf8(const std::string& s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len;
    uint32_t cp;
    if (c < 0x80) len = 1, cp = c;
    else if ((c & 0xe0) == 0xc0) len = 2, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0) len = 3, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0) len = 4, cp = c & 0x07;
    else return false;
    if (n - i < len) return false;
    for (size_t k = 1; k < len; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

static std::vector<SpeciesRecord> decodeSpecies(const fb::Tile& t, const std::string& name) {
  std::vector<SpeciesRecord> out;
  if (!t.species()) return out;
  for (const fb::SpeciesInfo* info : *t.species()) {
    SpeciesRecord sp;
    sp.id = info->id();
    if (sp.id != out.size()) throw InputError(name + ": species table not indexed by id");
    if (info->kind() > fb::SpeciesKind::MAX) throw InputError(name + ": unknown species kind");
    sp.name = info->name() ? info->name()->str() : std::string();
    if (!validUtf8(sp.name)) throw InputError(name + ": species " + std::to_string(sp.id) + " name is not valid UTF-8");
    sp.kind = uint8_t(info->kind());
    sp.meshHeight = info->mesh_height();
    sp.crownRadius = info->crown_radius();
    sp.scaleMin = info->scale_min();
    sp.scaleMax = info->scale_max();
    sp.boundingCenterY = info->bounding_center_y();
    sp.boundingRadius = info->bounding_radius();
    sp.baseColor = info->base_color();
    if (!std::isfinite(sp.scaleMin) || !std::isfinite(sp.scaleMax))
      throw InputError(name + ": species " + std::to_string(sp.id) + " has a non-finite scale range");
    out.push_back(std::move(sp));
  }
  return out;
}

TileData decodeTile(const uint8_t* data, size_t size, const std::string& name) {
  // The verifier checks alignment relative to the buffer start; give it an aligned copy.
  std::vector<uint64_t> aligned;
  if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) != 0) {
    aligned.resize((size + 7) / 8);
    std::memcpy(aligned.data(), data, size);
    data = reinterpret_cast<const uint8_t*>(aligned.data());
  }
  const fb::Tile& t = verifiedRoot(data, size, name);

  TileData tile;
  tile.tileX = t.tile_x();
  tile.tileZ = t.tile_z();
  tile.tileSize = t.tile_size();
  if (!t.bounds_min() || !t.bounds_max()) throw InputError(name + ": tile bounds missing");
  tile.boundsMin = fromFb(*t.bounds_min());
  tile.boundsMax = fromFb(*t.bounds_max());
  if (!(tile.tileSize > 0) || !std::isfinite(tile.tileSize) || !finite(tile.boundsMin) || !finite(tile.boundsMax))
    throw InputError(name + ": invalid tile size or bounds");
  tile.species = decodeSpecies(t, name);

  size_t instanceCount = t.instances() ? t.instances()->size() : 0;
  tile.instances.resize(instanceCount);
  uint64_t next = 0;
  int previousSpecies = -1;
  if (t.ranges()) {
    for (const fb::SpeciesRange* range : *t.ranges()) {
      if (range->species() >= tile.species.size())
        throw InputError(name + ": range names species " + std::to_string(range->species()) +
                         " outside the species table");
      if (int(range->species()) <= previousSpecies || range->first() != next || range->count() == 0)
        throw InputError(name + ": species ranges are not sorted, contiguous and non-empty");
      if (uint64_t(range->first()) + range->count() > instanceCount)
        throw InputError(name + ": species ranges exceed the instance count");
      previousSpecies = range->species();
      next += range->count();
      const SpeciesRecord& sp = tile.species[range->species()];
      for (uint32_t i = range->first(); i < range->first() + range->count(); ++i) {
        const fb::PackedInstance& p = *t.instances()->Get(i);
        Instance& inst = tile.instances[i];
        inst.species = range->species();
        inst.position = {dequantizeUnorm16(p.x_q(), tile.boundsMin.x, tile.boundsMax.x),
                         dequantizeUnorm16(p.y_q(), tile.boundsMin.y, tile.boundsMax.y),
                         dequantizeUnorm16(p.z_q(), tile.boundsMin.z, tile.boundsMax.z)};
        inst.yaw = dequantizeYaw(p.yaw_q());
        inst.scale = dequantizeUnorm16(p.scale_q(), sp.scaleMin, sp.scaleMax);
        inst.up = decodeOctahedral(p.up_oct());
        inst.color = p.color();
      }
    }
  }
  if (next != instanceCount) throw InputError(name + ": species ranges do not cover all instances");
  return tile;
}

TileData readTileFile(const std::string& path) {
  std::vector<uint8_t> bytes = readFileBytes(path, kMaxTileBytes, "tile");
  return decodeTile(bytes.data(), bytes.size(), path);
}

}  // namespace eco
