#include "sampling/schedule.h"

#include "sampling/tiling.h"

namespace eco::sampling {

TileSchedule::TileSchedule(TileRange range, int tilesX, int tilesZ)
    : range_(range), bounds_(neededBounds(range, tilesX, tilesZ)), tilesX_(tilesX), tilesZ_(tilesZ),
      nextRow_(bounds_.z0) {
  admitRows();
}

TileSchedule::Slot* TileSchedule::slot(int tx, int tz) {
  if (rows_.empty() || tz < rows_.front().z || tz >= rows_.front().z + int(rows_.size())) return nullptr;
  if (tx < bounds_.x0 || tx >= bounds_.x1) return nullptr;
  return &rowOf(tz).slots[size_t(tx - bounds_.x0)];
}

void TileSchedule::admitRows() {
  while (!rows_.empty() && rows_.front().live == 0) rows_.pop_front();
  while (nextRow_ < bounds_.z1 && int(rows_.size()) < kWindowRows) {
    const int z = nextRow_++;
    rows_.push_back({z, 0, std::vector<Slot>(size_t(bounds_.x1 - bounds_.x0))});
    for (int x = bounds_.x0; x < bounds_.x1; ++x) {
      Slot& s = rowOf(z).slots[size_t(x - bounds_.x0)];
      if (!tileNeeded(range_, x, z, tilesX_, tilesZ_)) continue;
      s.needed = true;
      ++rowOf(z).live;
      // Every dependency of a needed tile is needed; those in earlier rows may be finished.
      forEachNeighbour(x, z, tilesX_, tilesZ_, true, [&](int dx, int dz) {
        const Slot* dep = slot(dx, dz);
        s.pendingDeps += !(dep && dep->finished);
      });
      forEachNeighbour(x, z, tilesX_, tilesZ_, false, [&](int dx, int dz) {
        s.pendingDependants += tileNeeded(range_, dx, dz, tilesX_, tilesZ_);
      });
      if (s.pendingDeps == 0) ready_.push({z, x});
    }
    while (!rows_.empty() && rows_.front().live == 0) rows_.pop_front();
  }
}

bool TileSchedule::nextReady(TileTask& task) {
  if (ready_.empty()) return false;
  const auto [z, x] = ready_.top();
  ready_.pop();
  const Slot& s = *slot(x, z);
  task.tx = x;
  task.tz = z;
  task.keepBorder = s.pendingDependants > 0;
  task.emit = x >= range_.x0 && x < range_.x1 && z >= range_.z0 && z < range_.z1;
  task.fixed.clear();
  forEachNeighbour(x, z, tilesX_, tilesZ_, true, [&](int dx, int dz) { task.fixed.push_back(&slot(dx, dz)->border); });
  return true;
}

void TileSchedule::release(int tz, Slot& s) {
  std::vector<FixedSample>().swap(s.border);
  --rowOf(tz).live;
}

void TileSchedule::finish(int tx, int tz, std::vector<FixedSample>&& border) {
  Slot& s = *slot(tx, tz);
  s.finished = true;
  if (s.pendingDependants > 0)
    s.border = std::move(border);
  else
    release(tz, s);
  forEachNeighbour(tx, tz, tilesX_, tilesZ_, false, [&](int x, int z) {
    Slot* d = slot(x, z);
    if (d && d->needed && --d->pendingDeps == 0) ready_.push({z, x});
  });
  forEachNeighbour(tx, tz, tilesX_, tilesZ_, true, [&](int x, int z) {
    Slot& dep = *slot(x, z);
    if (--dep.pendingDependants == 0) release(z, dep);
  });
  admitRows();
}

size_t TileSchedule::heldSamples() const {
  size_t n = 0;
  for (const Row& r : rows_)
    for (const Slot& s : r.slots) n += s.border.size();
  return n;
}

}  // namespace eco::sampling
