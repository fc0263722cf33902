#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.h"
#include "core/file_io.h"
#include "core/hash.h"
#include "test_support.h"
#include "tile_generated.h"
#include "tileio/quantize.h"
#include "tileio/tileio.h"

using namespace eco;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

Vec3 normalized(Vec3 v) {
  float l = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  return {v.x / l, v.y / l, v.z / l};
}

float distance(Vec3 a, Vec3 b) { return std::hypot(a.x - b.x, a.y - b.y, a.z - b.z); }

SpeciesRecord species(uint16_t id, float scaleMin, float scaleMax) {
  SpeciesRecord s;
  s.id = id;
  s.name = "species" + std::to_string(id);
  s.kind = uint8_t(id % 4);
  s.meshHeight = 10.f + id;
  s.scaleMin = scaleMin;
  s.scaleMax = scaleMax;
  s.baseColor = 0x80402010u + id;
  return s;
}

// Tile (3, 5) of 256 m, y over ~1000 m, species 1 of 3 left empty.
TileData randomTile(int count, uint64_t seed) {
  TileData tile;
  tile.tileX = 3;
  tile.tileZ = 5;
  tile.tileSize = 256;
  tile.species = {species(0, 0.8f, 1.2f), species(1, 1, 1), species(2, 0.5f, 3.f)};
  Rng rng(seed);
  for (int i = 0; i < count; ++i) {
    Instance inst;
    inst.species = rng.uniform() < 0.5f ? 0 : 2;
    inst.position = {768 + rng.uniform() * 256, 100 + rng.uniform() * 1000, 1280 + rng.uniform() * 256};
    inst.yaw = rng.uniform() * 2 * kPi;
    const SpeciesRecord& sp = tile.species[inst.species];
    inst.scale = sp.scaleMin + rng.uniform() * (sp.scaleMax - sp.scaleMin);
    inst.up = normalized({rng.uniform() - 0.5f, 0.6f + rng.uniform(), rng.uniform() - 0.5f});
    inst.color = uint32_t(rng.next());
    tile.instances.push_back(inst);
  }
  return tile;
}

std::vector<Instance> sortedBySpecies(std::vector<Instance> v) {
  std::stable_sort(v.begin(), v.end(), [](const Instance& a, const Instance& b) { return a.species < b.species; });
  return v;
}

float yawError(float a, float b) {
  float d = std::fmod(std::abs(a - b), 2 * kPi);
  return std::min(d, 2 * kPi - d);
}

TileData decode(const std::vector<uint8_t>& bytes) { return decodeTile(bytes.data(), bytes.size(), "t.ecot"); }

// Builds a tile buffer by hand, for shapes encodeTile never produces.
std::vector<uint8_t> handBuilt(uint16_t version, const std::vector<fb::SpeciesRange>& ranges, int instanceCount,
                               int speciesCount = 2) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::SpeciesInfo>> sp;
  for (int i = 0; i < speciesCount; ++i) sp.push_back(fb::CreateSpeciesInfo(fbb, uint16_t(i), fbb.CreateString("s")));
  std::vector<fb::PackedInstance> inst(size_t(instanceCount), fb::PackedInstance(1, 2, 3, 4, 5, 0, 6));
  fb::Vec3 lo(0, 0, 0), hi(64, 10, 64);
  auto spv = fbb.CreateVector(sp);
  auto rv = fbb.CreateVectorOfStructs(ranges);
  auto iv = fbb.CreateVectorOfStructs(inst);
  fb::TileBuilder b(fbb);
  b.add_format_version(version);
  b.add_tile_size(64);
  b.add_bounds_min(&lo);
  b.add_bounds_max(&hi);
  b.add_species(spv);
  b.add_ranges(rv);
  b.add_instances(iv);
  fbb.ForceDefaults(true);
  fb::FinishTileBuffer(fbb, b.Finish());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace

TEST(TileIo, RoundTripWithinQuantizationBounds) {
  TileData in = randomTile(5000, 7);
  TileData out = decode(encodeTile(in));
  std::vector<Instance> expected = sortedBySpecies(in.instances);

  EXPECT_EQ(out.tileX, 3);
  EXPECT_EQ(out.tileZ, 5);
  EXPECT_EQ(out.tileSize, 256.f);
  EXPECT_EQ(out.boundsMin.x, 768.f);
  EXPECT_EQ(out.boundsMax.x, 1024.f);
  EXPECT_EQ(out.boundsMin.z, 1280.f);
  EXPECT_EQ(out.boundsMax.z, 1536.f);
  ASSERT_EQ(out.species.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out.species[i].name, in.species[i].name);
    EXPECT_EQ(out.species[i].kind, in.species[i].kind);
    EXPECT_EQ(out.species[i].meshHeight, in.species[i].meshHeight);
    EXPECT_EQ(out.species[i].baseColor, in.species[i].baseColor);
  }
  ASSERT_EQ(out.instances.size(), expected.size());
  float maxPos = 0, maxYaw = 0, maxUp = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const Instance &a = expected[i], &b = out.instances[i];
    ASSERT_EQ(a.species, b.species);
    const SpeciesRecord& sp = in.species[a.species];
    maxPos = std::max(maxPos, distance(a.position, b.position));
    maxYaw = std::max(maxYaw, yawError(a.yaw, b.yaw));
    maxUp = std::max(maxUp, distance(a.up, b.up));
    EXPECT_LE(std::abs(a.scale - b.scale), (sp.scaleMax - sp.scaleMin) / 65535 + 1e-6f);
    EXPECT_EQ(a.color, b.color);
  }
  EXPECT_LT(maxPos, 0.01f);
  EXPECT_LT(maxYaw, 2 * kPi / 65536);
  EXPECT_LT(maxUp, 0.012f);  // octahedral snorm8x2: ~0.7 degrees at worst
}

TEST(TileIo, RangesOnePerSpeciesPresent) {
  TileData in = randomTile(100, 3);
  std::vector<uint8_t> bytes = encodeTile(in);
  const fb::Tile* t = fb::GetTile(bytes.data());
  ASSERT_EQ(t->ranges()->size(), 2u);  // species 1 has no instances
  auto counted = [&](uint16_t s) {
    return uint32_t(std::count_if(in.instances.begin(), in.instances.end(), [&](auto& i) { return i.species == s; }));
  };
  EXPECT_EQ(t->ranges()->Get(0)->species(), 0);
  EXPECT_EQ(t->ranges()->Get(0)->first(), 0u);
  EXPECT_EQ(t->ranges()->Get(0)->count(), counted(0));
  EXPECT_EQ(t->ranges()->Get(1)->species(), 2);
  EXPECT_EQ(t->ranges()->Get(1)->first(), counted(0));
  EXPECT_EQ(t->ranges()->Get(1)->count(), counted(2));
  EXPECT_EQ(t->format_version(), 1);
  EXPECT_TRUE(fb::TileBufferHasIdentifier(bytes.data()));
}

TEST(TileIo, EmptyTileAndFlatTile) {
  TileData empty = randomTile(0, 1);
  TileData out = decode(encodeTile(empty));
  EXPECT_TRUE(out.instances.empty());
  EXPECT_EQ(out.species.size(), 3u);

  TileData flat = randomTile(50, 2);
  for (Instance& i : flat.instances) i.position.y = 321.5f;
  out = decode(encodeTile(flat));
  EXPECT_EQ(out.boundsMin.y, 321.5f);
  EXPECT_EQ(out.boundsMax.y, 321.5f);
  for (const Instance& i : out.instances) EXPECT_EQ(i.position.y, 321.5f);
}

TEST(TileIo, PositionsClampedToTileRectangle) {
  TileData tile = randomTile(1, 1);
  tile.instances[0].position = {700, 5, 2000};
  TileData out = decode(encodeTile(tile));
  EXPECT_EQ(out.instances[0].position.x, 768.f);
  EXPECT_EQ(out.instances[0].position.z, 1536.f);
}

TEST(TileIo, EncodeRejectsBadInput) {
  TileData tile = randomTile(3, 1);
  tile.instances[1].species = 3;
  EXPECT_THROW(encodeTile(tile), std::invalid_argument);
  tile = randomTile(3, 1);
  tile.tileSize = 0;
  EXPECT_THROW(encodeTile(tile), std::invalid_argument);
}

TEST(TileIo, OctahedralCoversTheSphere) {
  Rng rng(11);
  float worst = 0;
  for (int i = 0; i < 20000; ++i) {
    Vec3 v = normalized({rng.uniform() * 2 - 1, rng.uniform() * 2 - 1, rng.uniform() * 2 - 1});
    worst = std::max(worst, distance(v, decodeOctahedral(encodeOctahedral(v))));
  }
  EXPECT_LT(worst, 0.012f);
  EXPECT_EQ(encodeOctahedral({0, 1, 0}), 0);
  EXPECT_LT(distance(decodeOctahedral(encodeOctahedral({0, -1, 0})), {0, -1, 0}), 1e-6f);
  EXPECT_LT(distance(decodeOctahedral(encodeOctahedral({1, 0, 0})), {1, 0, 0}), 1e-6f);
}

TEST(TileIo, YawWrapsAround) {
  EXPECT_EQ(quantizeYaw(0), 0);
  EXPECT_EQ(quantizeYaw(2 * std::numbers::pi), 0);
  EXPECT_EQ(quantizeYaw(-std::numbers::pi / 2), 49152);
  EXPECT_EQ(quantizeYaw(2 * std::numbers::pi - 1e-9), 0);
}

TEST(TileIo, RejectsWrongIdentifierAndVersion) {
  std::vector<uint8_t> bytes = encodeTile(randomTile(10, 1));
  std::vector<uint8_t> wrongId = bytes;
  wrongId[4] = 'X';
  try {
    decode(wrongId);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.ecot"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("ECOT"), std::string::npos);
  }
  EXPECT_NO_THROW(decode(handBuilt(1, {fb::SpeciesRange(0, 0, 4)}, 4)));
  try {
    decode(handBuilt(2, {fb::SpeciesRange(0, 0, 4)}, 4));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("format_version 2"), std::string::npos);
  }
}

TEST(TileIo, RejectsInconsistentRanges) {
  using R = fb::SpeciesRange;
  EXPECT_NO_THROW(decode(handBuilt(1, {R(0, 0, 2), R(1, 2, 2)}, 4)));
  EXPECT_THROW(decode(handBuilt(1, {R(0, 0, 3)}, 4)), InputError);            // uncovered instance
  EXPECT_THROW(decode(handBuilt(1, {R(0, 0, 5)}, 4)), InputError);            // past the end
  EXPECT_THROW(decode(handBuilt(1, {R(0, 0, 2), R(2, 2, 2)}, 4)), InputError);  // unknown species
  EXPECT_THROW(decode(handBuilt(1, {R(1, 0, 2), R(0, 2, 2)}, 4)), InputError);  // unsorted
  EXPECT_THROW(decode(handBuilt(1, {R(0, 0, 2), R(1, 3, 1)}, 4)), InputError);  // gap
  EXPECT_THROW(decode(handBuilt(1, {R(0, 0, 4), R(1, 4, 0)}, 4)), InputError);  // empty range
  EXPECT_THROW(decode(handBuilt(1, {}, 4)), InputError);
}

TEST(TileIo, EveryTruncationRejected) {
  std::vector<uint8_t> bytes = encodeTile(randomTile(6, 5));
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + ptrdiff_t(n));
    EXPECT_THROW(decodeTile(prefix.data(), prefix.size(), "t.ecot"), InputError) << "prefix " << n;
  }
}

TEST(TileIo, ByteFlipsNeverCrash) {
  std::vector<uint8_t> bytes = encodeTile(randomTile(8, 9));
  Rng rng(123);
  int rejected = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::vector<uint8_t> copy = bytes;
    int flips = 1 + int(rng.next() % 3);
    for (int f = 0; f < flips; ++f) copy[rng.next() % copy.size()] ^= uint8_t(1 + rng.next() % 255);
    try {
      TileData t = decode(copy);
      for (const Instance& i : t.instances) ASSERT_LT(i.species, t.species.size());
      ASSERT_GT(t.tileSize, 0.f);
    } catch (const InputError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(TileIo, MisalignedBufferDecodes) {
  std::vector<uint8_t> bytes = encodeTile(randomTile(20, 4));
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  TileData a = decode(bytes);
  TileData b = decodeTile(shifted.data() + 1, bytes.size(), "t.ecot");
  ASSERT_EQ(a.instances.size(), b.instances.size());
  for (size_t i = 0; i < a.instances.size(); ++i) EXPECT_EQ(a.instances[i].position.x, b.instances[i].position.x);
}

TEST(TileIo, EncodingIsDeterministicAndStable) {
  TileData tile = randomTile(300, 6);
  EXPECT_EQ(encodeTile(tile), encodeTile(tile));
  TileData sorted = tile;
  sorted.instances = sortedBySpecies(tile.instances);
  EXPECT_EQ(encodeTile(tile), encodeTile(sorted));
}

TEST(TileIo, ReadTileFile) {
  test::TempDir dir;
  std::vector<uint8_t> bytes = encodeTile(randomTile(30, 8));
  writeFileAtomic(dir.file("tiles/3_5.ecot"), bytes.data(), bytes.size());
  EXPECT_EQ(readTileFile(dir.file("tiles/3_5.ecot")).instances.size(), 30u);
  EXPECT_THROW(readTileFile(dir.file("tiles/missing.ecot")), InputError);
  test::writeBytes(dir.file("junk.ecot"), "not a tile at all");
  EXPECT_THROW(readTileFile(dir.file("junk.ecot")), InputError);
}

// The viewer uploads the records a file stores by re-packing decoded instances into the
// file's own box (render/scene.cpp makeLoadedTile): packRecord of a decoded instance must give the
// stored record back, read here from the FlatBuffer itself. Up vectors compare by what they
// decode to: octahedral codes on the fold decode to the same vector.
TEST(TileIo, PackingDecodedInstancesGivesTheStoredRecords) {
  for (uint32_t seed : {7u, 11u, 12345u}) {
    TileData in = randomTile(4000, seed);
    std::vector<uint8_t> bytes = encodeTile(in);
    TileData out = decode(bytes);
    const fb::Tile* t = fb::GetTile(bytes.data());
    ASSERT_EQ(t->instances()->size(), out.instances.size());
    for (size_t i = 0; i < out.instances.size(); ++i) {
      const fb::PackedInstance& stored = *t->instances()->Get(uint32_t(i));
      const Instance& inst = out.instances[i];
      PackedRecord r = packRecord(inst, out.species[inst.species], out.boundsMin, out.boundsMax);
      ASSERT_EQ(r.x, stored.x_q()) << seed << " " << i;
      ASSERT_EQ(r.y, stored.y_q()) << seed << " " << i;
      ASSERT_EQ(r.z, stored.z_q()) << seed << " " << i;
      ASSERT_EQ(r.yaw, stored.yaw_q()) << seed << " " << i;
      ASSERT_EQ(r.scale, stored.scale_q()) << seed << " " << i;
      ASSERT_EQ(r.color, stored.color()) << seed << " " << i;
      Vec3 a = decodeOctahedral(r.up), b = decodeOctahedral(stored.up_oct());
      ASSERT_EQ(a.x, b.x);
      ASSERT_EQ(a.y, b.y);
      ASSERT_EQ(a.z, b.z);
    }
  }
}

// Pins the on-disk tile format: any change to the schema, field order, quantization or the
// FlatBuffers layout changes these bytes, and must come with a new format_version (and this
// checksum updated on purpose). The tile comes from the project's own generator (core Rng),
// whose values do not depend on the standard library.
TEST(TileIo, GoldenChecksumPinsTheFormat) {
  std::vector<uint8_t> bytes = encodeTile(randomTile(300, 6));
  EXPECT_EQ(bytes.size(), 5128u);
  EXPECT_EQ(hex64(checksum64(bytes)), "f1a153ee6d15f3eb");
}
