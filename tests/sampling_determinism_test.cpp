// Byte-identical output whatever the thread count or tile order; regenerated tiles equal the
// full run; the schedule keeps a bounded band of rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>

#include "sampling/bridson.h"
#include "sampling/schedule.h"
#include "sampling_fixtures.h"

namespace eco::sampling {
// Reads the schedule's private state (declared a friend by TileSchedule).
struct TileScheduleProbe {
  // Samples the schedule currently keeps for units still to read them.
  static size_t heldSamples(const TileSchedule& s) {
    size_t n = 0;
    for (const TileSchedule::Row& r : s.rows_)
      for (const TileSchedule::Slot& slot : r.slots) n += slot.tile.samples.size();
    return n;
  }
};
}  // namespace eco::sampling

namespace eco {
namespace {

using test::flatten;
using test::sameBytes;

SamplerParams mixedParams(uint64_t seed) {
  SamplerParams p = test::uniformParams(157.f, 121.f, 12.f, 0.7f, seed);  // 14 x 11 tiles, last ones partial
  p.classes = {{2.f, 5.f}, {0.7f, 2.f}, {0.5f, 1.2f}};
  p.classDistance = {0.f, 1.f, 0.8f, 1.f, 0.f, 0.4f, 0.8f, 0.4f, 0.f};
  return p;
}

TEST(SamplingDeterminism, SameBytesFor1And2And8Threads) {
  const test::Waves waves;
  struct Case {
    SamplerParams params;
    const DensityField* field;
  };
  SamplerParams roulette = mixedParams(4);
  roulette.variableRadius = false;
  const Case cases[] = {{test::uniformParams(157.f, 121.f, 12.f, 0.7f, 2), nullptr},
                        {mixedParams(3), &waves},
                        {roulette, &waves}};
  for (const Case& c : cases)
    for (const SamplerMethod method : {SamplerMethod::Pool, SamplerMethod::Bridson}) {
      SamplerParams p = c.params;
      p.method = method;
      const std::vector<Sample> one = flatten(scatterAll(p, c.field, 1));
      ASSERT_GT(one.size(), 5000u);
      EXPECT_TRUE(sameBytes(one, flatten(scatterAll(p, c.field, 2))));
      EXPECT_TRUE(sameBytes(one, flatten(scatterAll(p, c.field, 8))));
    }
}

TEST(SamplingDeterminism, SeedChangesTheResult) {
  EXPECT_FALSE(sameBytes(flatten(scatterAll(mixedParams(1), nullptr, 2)), flatten(scatterAll(mixedParams(2), nullptr, 2))));
}

// Drives the schedule by hand, finishing ready units in a random order, and checks the result
// and that no more than windowRows rows of tiles are held at any time.
std::vector<TileSamples> runShuffled(const SamplerParams& p, const DensityField* field, uint32_t shuffleSeed,
                                     size_t& maxHeld) {
  using namespace sampling;
  const SamplerSetup setup = makeSetup(p, field);
  TileSchedule schedule({0, 0, setup.tilesX, setup.tilesZ}, setup.tilesX, setup.tilesZ, int(p.classes.size()));
  std::mt19937 shuffle(shuffleSeed);
  TileScratch scratch;
  std::vector<TileSamples> tiles;
  maxHeld = 0;
  while (!schedule.done()) {
    std::vector<UnitTask> ready;
    for (UnitTask t; schedule.nextReady(t);) ready.push_back(t);
    EXPECT_FALSE(ready.empty());
    if (ready.empty()) break;
    std::shuffle(ready.begin(), ready.end(), shuffle);
    // Generate all, then finish in another order: each unit only reads finished units.
    std::vector<UnitSamples> outs(ready.size());
    for (size_t i = 0; i < ready.size(); ++i) generateUnit(setup, ready[i], scratch, outs[i]);
    for (size_t i = ready.size(); i-- > 0;) {
      TileSamples complete;
      if (schedule.finish(ready[i], outs[i], complete)) tiles.push_back(std::move(complete));
    }
    maxHeld = std::max(maxHeld, sampling::TileScheduleProbe::heldSamples(schedule));
  }
  std::sort(tiles.begin(), tiles.end(),
            [](const TileSamples& a, const TileSamples& b) { return a.tz != b.tz ? a.tz < b.tz : a.tx < b.tx; });
  return tiles;
}

TEST(SamplingDeterminism, AnyTileOrderGivesTheSameBytes) {
  const test::Waves waves;
  const SamplerParams p = mixedParams(5);
  const std::vector<Sample> reference = flatten(scatterAll(p, &waves, 1));
  for (uint32_t s : {1u, 2u, 3u}) {
    size_t held = 0;
    EXPECT_TRUE(sameBytes(reference, flatten(runShuffled(p, &waves, s, held))));
  }
}

TEST(SamplingDeterminism, HeldBordersStayWithinABandOfRows) {
  // Tall world, radius close to the tile size: few samples per tile, many rows.
  SamplerParams p = test::uniformParams(20.f * 8.f, 200.f * 8.f, 8.f, 2.f, 1);
  p.classes = {{2.f, 2.f}};
  size_t maxHeld = 0;
  const auto tiles = runShuffled(p, nullptr, 7, maxHeld);
  size_t total = 0, maxPerTile = 0;
  for (const TileSamples& t : tiles) {
    total += t.samples.size();
    maxPerTile = std::max(maxPerTile, t.samples.size());
  }
  ASSERT_EQ(tiles.size(), 20u * 200u);
  const size_t band = size_t(sampling::TileSchedule::windowRows(1)) * 20 * maxPerTile;
  EXPECT_LE(maxHeld, band);
  EXPECT_LT(maxHeld * 20, total);
}

// Drives the schedule for `range` in tile order and returns the emitted tiles; reach[c] gets
// the most tile rows before or after the range at which a unit of class c was computed.
std::vector<TileSamples> runRange(const SamplerParams& p, TileRange range, std::vector<int>& reach,
                                 const DensityField* field = nullptr) {
  using namespace sampling;
  const SamplerSetup setup = makeSetup(p, field);
  const int classes = int(p.classes.size());
  TileSchedule schedule(range, setup.tilesX, setup.tilesZ, classes);
  TileScratch scratch;
  std::vector<TileSamples> tiles;
  reach.assign(size_t(classes), 0);
  while (!schedule.done()) {
    UnitTask t;
    const bool ready = schedule.nextReady(t);
    EXPECT_TRUE(ready) << "the schedule stalled";
    if (!ready) break;
    const int rows = t.tz < range.z0 ? range.z0 - t.tz : t.tz >= range.z1 ? t.tz - range.z1 + 1 : 0;
    reach[size_t(t.cls)] = std::max(reach[size_t(t.cls)], rows);
    UnitSamples out;
    generateUnit(setup, t, scratch, out);
    TileSamples complete;
    if (schedule.finish(t, out, complete)) tiles.push_back(std::move(complete));
  }
  std::sort(tiles.begin(), tiles.end(),
            [](const TileSamples& a, const TileSamples& b) { return a.tz != b.tz ? a.tz < b.tz : a.tx < b.tx; });
  return tiles;
}

// What a shard regenerates around its band: the last class's own colouring reaches one row
// past a band's edge (where that row is a high row of it) and each class before it one row
// more (the layer rule). With one colouring for every class each class could add two rows (7
// for 4 classes, 17 for 9). The band's tiles equal the full run's.
TEST(SamplingDeterminism, EachClassReachesOneTileRowPastTheClassAfterIt) {
  for (const int classes : {1, 4, 9}) {
    SamplerParams p = test::uniformParams(5.f * 8.f, 40.f * 8.f, 8.f, 2.f, 11);
    p.classes.clear();
    for (int c = 0; c < classes; ++c) p.classes.push_back({2.f + 0.1f * float(c), 3.f});
    p.classDistance.assign(size_t(classes * classes), 1.f);
    for (int c = 0; c < classes; ++c) p.classDistance[size_t(c * classes + c)] = 0.f;
    std::vector<int> reach;
    const std::vector<TileSamples> full = runRange(p, {0, 0, 5, 40}, reach);
    ASSERT_EQ(full.size(), 200u);
    std::vector<int> most(size_t(classes), 0);
    for (const int z0 : {18, 19})
      for (const int z1 : {22, 23}) {
        const std::vector<TileSamples> band = runRange(p, {0, z0, 5, z1}, reach);
        ASSERT_EQ(band.size(), size_t(5 * (z1 - z0)));
        for (const TileSamples& t : band)
          EXPECT_TRUE(sameBytes(t.samples, full[size_t(t.tz * 5 + t.tx)].samples)) << classes << " classes, tile " << t.tx << ", " << t.tz;
        for (int c = 0; c < classes; ++c) most[size_t(c)] = std::max(most[size_t(c)], reach[size_t(c)]);
      }
    // The last class reaches one row, each class before it one more: 1, 2, ... classes.
    for (int c = 0; c < classes; ++c) EXPECT_EQ(most[size_t(c)], classes - c) << classes << " classes, class " << c;
    // what the bake computes a shard's rasters for: the reach the schedule showed
    EXPECT_EQ(unitReachRows(classes), *std::max_element(most.begin(), most.end())) << classes << " classes";
  }
}

// A density field that remembers the rows of the world it was asked about (one thread).
struct RecordingField : DensityField {
  mutable float lo = 1e30f, hi = -1e30f;
  void note(float z0, float z1) const { lo = std::min(lo, z0), hi = std::max(hi, z1); }
  float density(int, float x, float z) const override {
    note(z, z);
    return 0.45f + 0.4f * std::sin(0.05f * x) * std::cos(0.07f * z);
  }
  float maxDensity(int, float, float z0, float, float z1) const override {
    note(z0, z1);
    return 0.85f;
  }
  bool excluded(int, float, float z) const override {
    note(z, z);
    return false;
  }
};

// A shard's rasters cover unitReachRows + 1 tile rows either side of its band (bake.cpp: the
// units' rows and the margin, under a tile, they read around them); every density the sampler
// reads for a band lies there, and some lie in the outermost row of units.
TEST(SamplingDeterminism, ABandsDensityReadsStayWithinTheRowsItsUnitsReachAndTheirMargin) {
  const float tile = 8.f;
  for (const int classes : {1, 4, 9}) {
    SamplerParams p = test::uniformParams(5.f * tile, 40.f * tile, tile, 1.f, 13);
    p.classes.clear();
    for (int c = 0; c < classes; ++c) p.classes.push_back({1.f + 0.05f * float(c), 2.5f});
    p.classDistance.assign(size_t(classes * classes), 1.5f);
    for (int c = 0; c < classes; ++c) p.classDistance[size_t(c * classes + c)] = 0.f;
    const int reach = unitReachRows(classes);
    bool outermost = false;  // with one of the edge rows' parities the reach is whole
    for (const int z0 : {18, 19}) {
      const int z1 = z0 + 3;
      RecordingField field;
      std::vector<int> unitReach;
      runRange(p, {0, z0, 5, z1}, unitReach, &field);
      const std::string band = std::to_string(classes) + " classes, band from row " + std::to_string(z0);
      EXPECT_GE(field.lo, float(z0 - reach - 1) * tile) << band;
      EXPECT_LE(field.hi, float(z1 + reach + 1) * tile) << band;
      outermost = outermost || field.lo < float(z0 - reach + 1) * tile;
    }
    EXPECT_TRUE(outermost) << classes << " classes: the outermost row of units reads its density";
  }
}

std::vector<TileSamples> scatterRange(const SamplerParams& p, const DensityField* field, TileRange r, int threads) {
  std::vector<TileSamples> tiles;
  std::mutex m;
  scatter(p, field, r, threads, [&](TileSamples&& t) {
    std::lock_guard lock(m);
    tiles.push_back(std::move(t));
  });
  std::sort(tiles.begin(), tiles.end(),
            [](const TileSamples& a, const TileSamples& b) { return a.tz != b.tz ? a.tz < b.tz : a.tx < b.tx; });
  return tiles;
}

TEST(SamplingDeterminism, RegeneratedTilesEqualTheFullRun) {
  const test::Waves waves;
  for (const bool variable : {true, false}) {
    SamplerParams p = mixedParams(9);
    p.variableRadius = variable;
    p.method = variable ? SamplerMethod::Pool : SamplerMethod::Bridson;
    const std::vector<TileSamples> full = scatterAll(p, &waves, 2);
    const int nx = tilesX(p), nz = tilesZ(p);
    auto at = [&](int x, int z) -> const TileSamples& { return full[size_t(z * nx + x)]; };
    // One tile of each colour, corners and the partial last row/column.
    const int singles[][2] = {{4, 4}, {5, 4}, {4, 5}, {5, 5}, {0, 0}, {nx - 1, nz - 1}, {nx - 1, 0}, {0, nz - 1}};
    for (const auto& t : singles) {
      const auto alone = scatterRange(p, &waves, {t[0], t[1], t[0] + 1, t[1] + 1}, 2);
      ASSERT_EQ(alone.size(), 1u);
      EXPECT_EQ(alone[0].tx, t[0]);
      EXPECT_EQ(alone[0].tz, t[1]);
      EXPECT_TRUE(sameBytes(alone[0].samples, at(t[0], t[1]).samples)) << "tile " << t[0] << ", " << t[1];
      // The last column and row are 1 m wide: their 1 m^2 corner may rightly hold nothing.
      if (t[0] != nx - 1 || t[1] != nz - 1) {
        EXPECT_FALSE(alone[0].samples.empty()) << "tile " << t[0] << ", " << t[1];
      }
    }
    const TileRange block{3, 2, 7, 5};
    const auto blockTiles = scatterRange(p, &waves, block, 1);
    ASSERT_EQ(blockTiles.size(), 12u);
    for (const TileSamples& t : blockTiles) EXPECT_TRUE(sameBytes(t.samples, at(t.tx, t.tz).samples));
  }
}

TEST(SamplingDeterminism, ExceptionsFromTheSinkReachTheCaller) {
  const SamplerParams p = mixedParams(1);
  EXPECT_THROW(scatter(p, nullptr, {0, 0, 3, 3}, 2, [](TileSamples&&) { throw std::runtime_error("disk full"); }),
               std::runtime_error);
}

}  // namespace
}  // namespace eco
