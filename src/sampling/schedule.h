#pragma once
// Dependency-driven order of (tile, class) units over a sliding window of tile rows.
// Single-threaded logic: scatter() calls it under its lock.
//
// Unit (t, c) places class c in tile t once
//  - (t', c) is finished for every neighbour t' of lower colour (2x2 colouring, its rows
//    alternating with the class: a class is seam-free across tiles), and
//  - (t'', c - 1) is finished for t and all 8 neighbours: every higher layer is final in the
//    whole neighbourhood, so a layer never yields to a lower one that a neighbour placed first
//    (which would thin the higher layers along every tile border).
// A tile is complete, and emitted when in the requested range, once its last class is placed.
// A tile's samples are dropped once every unit of its neighbourhood has read them; rows are
// admitted only while fewer than windowRows(classes) are live, so memory is bounded by a band
// of tile rows.
#include <deque>
#include <queue>
#include <span>
#include <tuple>
#include <vector>

#include "sampling/bridson.h"
#include "sampling/sampling.h"

namespace eco::sampling {

// The samples placed so far in one tile, in class order: class c is [classEnd[c - 1],
// classEnd[c]) (from 0 for c = 0) for every class placed.
// Each class's samples near each side and corner of the tile are listed too (UnitSamples):
// indices into of(cls), list l of class c ending at borderEnd[kBorderLists c + l].
struct PlacedTile {
  std::vector<FixedSample> samples;
  std::vector<uint32_t> classEnd;
  std::vector<uint32_t> border;
  std::vector<uint32_t> borderEnd;
  std::shared_ptr<const CanopyGrid> canopy;  // the crowns of classes [0, canopyLimit) (UnitSamples)
  int canopyLimit = -1;
  std::span<const FixedSample> of(int cls) const {
    if (size_t(cls) >= classEnd.size()) return {};
    const uint32_t first = cls == 0 ? 0 : classEnd[size_t(cls) - 1];
    return {samples.data() + first, classEnd[size_t(cls)] - first};
  }
  std::span<const uint32_t> nearBorder(int cls, int list) const {
    const size_t i = size_t(kBorderLists) * size_t(cls) + size_t(list);
    if (i >= borderEnd.size()) return {};
    const uint32_t first = i == 0 ? 0 : borderEnd[i - 1];
    return {border.data() + first, borderEnd[i] - first};
  }
};

struct UnitTask {
  int tx = 0, tz = 0, cls = 0;
  // The tile and its 8 neighbours (index (dz + 1) * 3 + dx + 1; nullptr outside the world),
  // and which neighbours are own-class dependencies (lower colour).
  const PlacedTile* near[9] = {};
  bool lower[9] = {};
  bool emit = false;  // the tile's last class, inside the requested range: the tile is complete
};

class TileSchedule {
 public:
  // Tile rows past a range that its units reach: one for the last class's own colouring where
  // the edge row is a high row of it, then one for each class before it (the layer rule),
  // whose edge rows are then low rows of that class (tileColour): no more own-class steps.
  // (One colouring for every class would let each class add a row of its own: 2 classes - 1.)
  static int reachRows(int classes) { return classes; }
  // Rows held at most. A row is dropped once the units of the row after it have finished, and
  // the last class of row z + 1 needs rows up to z + 1 + reachRows; two rows spare, as before.
  static int windowRows(int classes) { return reachRows(classes) + 4; }

  TileSchedule(TileRange range, int tilesX, int tilesZ, int classes);

  bool nextReady(UnitTask& task);
  // Stores the unit's samples in its tile. When the unit completes a tile inside the range,
  // fills `complete` with the tile's alive samples (by class, then generation order) and
  // returns true.
  bool finish(const UnitTask& task, const UnitSamples& placed, TileSamples& complete);
  bool done() const { return nextRow_ == bounds_.z1 && rows_.empty(); }

 private:
  friend struct TileScheduleProbe;  // tests count the samples held (sampling_determinism_test)
  struct Slot {
    bool needed = false;                   // some class of the tile is computed
    int placed = 0;                        // classes 0 .. placed - 1 are finished
    std::vector<int> pendingDeps;          // per class; -1: the unit is not computed
    int readers = 0;                       // computed units of the neighbourhood not finished
    PlacedTile tile;
  };
  struct Row {
    int z = 0;
    int live = 0;  // needed slots still holding samples for readers
    std::vector<Slot> slots;
  };

  bool unitNeeded(int tx, int tz, int cls) const;
  Slot* slot(int tx, int tz);
  Row& rowOf(int tz) { return rows_[size_t(tz - rows_.front().z)]; }
  void admitRows();
  void read(int tx, int tz);  // one reader of (tx, tz) finished

  TileRange range_, bounds_;
  int tilesX_, tilesZ_, classes_;
  std::vector<TileRange> classRange_;  // per class: units are computed for tiles needed by it
  int nextRow_;
  std::deque<Row> rows_;
  std::priority_queue<std::tuple<int, int, int>, std::vector<std::tuple<int, int, int>>, std::greater<>> ready_;  // (tz, cls, tx)
};

}  // namespace eco::sampling
