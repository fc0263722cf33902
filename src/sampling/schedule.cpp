#include "sampling/schedule.h"

#include <algorithm>

#include "sampling/tiling.h"

namespace eco::sampling {

namespace {

TileRange grow(TileRange r, int dx, int dz, int tilesX, int tilesZ) {
  return {std::max(0, r.x0 - dx), std::max(0, r.z0 - dz), std::min(tilesX, r.x1 + dx), std::min(tilesZ, r.z1 + dz)};
}

}  // namespace

TileSchedule::TileSchedule(TileRange range, int tilesX, int tilesZ, int classes)
    : range_(range), tilesX_(tilesX), tilesZ_(tilesZ), classes_(classes), nextRow_(0) {
  // The units needed for class c are the colour-dependency closure (tileNeeded) of a rectangle
  // R_c: R_last is the range; R_(c-1) is the closure's bounds (neededBounds) grown by one tile
  // for the layer rule. Every dependency of a needed unit is then needed. With the colouring's
  // rows alternating by class, R_(c-1)'s edge rows are low rows of class c - 1, so after the
  // last class each class reaches one row further, not two.
  classRange_.resize(size_t(classes));
  TileRange r = range;
  for (int c = classes - 1; c >= 0; --c) {
    classRange_[size_t(c)] = r;
    r = grow(neededBounds(r, c, tilesX, tilesZ), 1, 1, tilesX, tilesZ);
  }
  bounds_ = neededBounds(classRange_.front(), 0, tilesX, tilesZ);
  nextRow_ = bounds_.z0;
  admitRows();
}

bool TileSchedule::unitNeeded(int tx, int tz, int cls) const {
  if (tx < 0 || tz < 0 || tx >= tilesX_ || tz >= tilesZ_) return false;
  return tileNeeded(classRange_[size_t(cls)], tx, tz, cls, tilesX_, tilesZ_);
}

TileSchedule::Slot* TileSchedule::slot(int tx, int tz) {
  if (rows_.empty() || tz < rows_.front().z || tz >= rows_.front().z + int(rows_.size())) return nullptr;
  if (tx < bounds_.x0 || tx >= bounds_.x1) return nullptr;
  return &rowOf(tz).slots[size_t(tx - bounds_.x0)];
}

void TileSchedule::admitRows() {
  while (!rows_.empty() && rows_.front().live == 0) rows_.pop_front();
  while (nextRow_ < bounds_.z1 && int(rows_.size()) < windowRows(classes_)) {
    const int z = nextRow_++;
    rows_.push_back({z, 0, std::vector<Slot>(size_t(bounds_.x1 - bounds_.x0))});
    for (int x = bounds_.x0; x < bounds_.x1; ++x) {
      Slot& s = rowOf(z).slots[size_t(x - bounds_.x0)];
      s.pendingDeps.assign(size_t(classes_), -1);
      for (int c = 0; c < classes_; ++c)
        if (unitNeeded(x, z, c)) s.needed = true, s.pendingDeps[size_t(c)] = 0;
      if (!s.needed) continue;
      ++rowOf(z).live;
      // Readers: the computed units of the neighbourhood, less those already finished (in
      // earlier rows, which are all still here: this tile's units read them).
      for (int dz = -1; dz <= 1; ++dz)
        for (int dx = -1; dx <= 1; ++dx)
          for (int c = 0; c < classes_; ++c)
            if (unitNeeded(x + dx, z + dz, c)) {
              const Slot* n = slot(x + dx, z + dz);
              s.readers += !(n && n->placed > c);
            }
      // Dependencies not finished yet (a dependency in an earlier row is still held: this
      // unit reads it).
      for (int c = 0; c < classes_; ++c) {
        if (s.pendingDeps[size_t(c)] < 0) continue;
        int pending = 0;
        forEachNeighbour(x, z, c, tilesX_, tilesZ_, true, [&](int dx, int dz) {
          const Slot* d = slot(dx, dz);
          pending += !(d && d->placed > c);
        });
        if (c > 0)
          for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx) {
              const int nx = x + dx, nz = z + dz;
              if (nx < 0 || nz < 0 || nx >= tilesX_ || nz >= tilesZ_) continue;
              const Slot* d = slot(nx, nz);
              pending += !(d && d->placed > c - 1);
            }
        s.pendingDeps[size_t(c)] = pending;
        if (pending == 0 && s.placed == c) ready_.push({z, c, x});
      }
    }
    while (!rows_.empty() && rows_.front().live == 0) rows_.pop_front();
  }
}

bool TileSchedule::nextReady(UnitTask& task) {
  if (ready_.empty()) return false;
  // Plain copies, not structured bindings: lambdas below capture them (clang before 16 cannot).
  const int z = std::get<0>(ready_.top()), c = std::get<1>(ready_.top()), x = std::get<2>(ready_.top());
  ready_.pop();
  task.tx = x;
  task.tz = z;
  task.cls = c;
  task.emit = c == classes_ - 1 && x >= range_.x0 && x < range_.x1 && z >= range_.z0 && z < range_.z1;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dx = -1; dx <= 1; ++dx) {
      const int k = (dz + 1) * 3 + dx + 1;
      const Slot* n = slot(x + dx, z + dz);
      task.near[k] = n && n->needed ? &n->tile : nullptr;
      task.lower[k] = false;
    }
  forEachNeighbour(x, z, c, tilesX_, tilesZ_, true, [&](int dx, int dz) { task.lower[(dz - z + 1) * 3 + dx - x + 1] = true; });
  return true;
}

void TileSchedule::read(int tx, int tz) {
  Slot* s = slot(tx, tz);
  if (!s || !s->needed) return;
  if (--s->readers == 0) {
    s->tile = {};
    --rowOf(tz).live;
  }
}

bool TileSchedule::finish(const UnitTask& task, const UnitSamples& placed, TileSamples& complete) {
  const int x = task.tx, z = task.tz, c = task.cls;
  Slot& s = *slot(x, z);
  s.tile.samples.insert(s.tile.samples.end(), placed.samples.begin(), placed.samples.end());
  s.tile.classEnd.push_back(uint32_t(s.tile.samples.size()));
  const uint32_t borderBase = uint32_t(s.tile.border.size());
  s.tile.border.insert(s.tile.border.end(), placed.border.begin(), placed.border.end());
  for (uint32_t end : placed.listEnd) s.tile.borderEnd.push_back(borderBase + end);
  if (placed.canopy) {
    s.tile.canopy = placed.canopy;
    s.tile.canopyLimit = placed.canopyLimit;
  }
  if (placed.dropCanopy) {
    s.tile.canopy.reset();
    s.tile.canopyLimit = -1;
  }
  s.placed = c + 1;
  bool emitted = false;
  if (task.emit) {
    complete.tx = x;
    complete.tz = z;
    complete.samples.clear();
    for (const FixedSample& f : s.tile.samples)
      if (f.alive) complete.samples.push_back({f.x, f.z, f.cls});
    emitted = true;
  }
  // Dependants: (t', c) for neighbours of higher colour, (t'', c + 1) for the neighbourhood.
  auto unblock = [&](int ux, int uz, int uc) {
    Slot* d = slot(ux, uz);
    if (!d || uc >= classes_ || d->pendingDeps[size_t(uc)] <= 0) return;
    if (--d->pendingDeps[size_t(uc)] == 0 && d->placed == uc) ready_.push({uz, uc, ux});
  };
  forEachNeighbour(x, z, c, tilesX_, tilesZ_, false, [&](int ux, int uz) { unblock(ux, uz, c); });
  for (int dz = -1; dz <= 1; ++dz)
    for (int dx = -1; dx <= 1; ++dx) unblock(x + dx, z + dz, c + 1);
  for (int dz = -1; dz <= 1; ++dz)
    for (int dx = -1; dx <= 1; ++dx) read(x + dx, z + dz);
  admitRows();
  return emitted;
}

}  // namespace eco::sampling
