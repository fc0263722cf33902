#pragma once
// Dependency-driven tile order over a sliding window of tile rows. Single-threaded logic:
// scatter() calls it under its lock. A tile becomes ready once its lower-colour neighbours
// are finished; a finished tile's border samples are released once every higher-colour
// neighbour is finished; rows are admitted only while fewer than kWindowRows are live, so
// memory is bounded by a band of tile rows.
#include <deque>
#include <queue>
#include <utility>
#include <vector>

#include "sampling/bridson.h"
#include "sampling/poisson.h"

namespace eco::sampling {

struct TileTask {
  int tx = 0, tz = 0;
  std::vector<const std::vector<FixedSample>*> fixed;  // borders of the finished dependencies
  bool keepBorder = false;  // some later tile depends on this one
  bool emit = false;        // inside the requested range
};

class TileSchedule {
 public:
  static constexpr int kWindowRows = 4;

  TileSchedule(TileRange range, int tilesX, int tilesZ);

  bool nextReady(TileTask& task);
  void finish(int tx, int tz, std::vector<FixedSample>&& border);
  bool done() const { return nextRow_ == bounds_.z1 && rows_.empty(); }
  size_t heldSamples() const;  // border samples currently kept for dependants

 private:
  struct Slot {
    bool needed = false, finished = false;
    int pendingDeps = 0, pendingDependants = 0;
    std::vector<FixedSample> border;
  };
  struct Row {
    int z = 0;
    int live = 0;  // needed slots not yet finished and released
    std::vector<Slot> slots;
  };

  Slot* slot(int tx, int tz);
  Row& rowOf(int tz) { return rows_[size_t(tz - rows_.front().z)]; }
  void admitRows();
  void release(int tz, Slot& s);  // drops a finished tile's border

  TileRange range_, bounds_;
  int tilesX_, tilesZ_;
  int nextRow_;
  std::deque<Row> rows_;
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> ready_;  // (tz, tx)
};

}  // namespace eco::sampling
