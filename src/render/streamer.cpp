#include "render/streamer.h"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "core/error.h"

namespace eco::render {

namespace {
float tileDistance(const SceneTile& t, Vec3 eye) {
  float dx = std::max({t.minX - eye.x, 0.0f, eye.x - t.maxX});
  float dz = std::max({t.minZ - eye.z, 0.0f, eye.z - t.maxZ});
  return std::sqrt(dx * dx + dz * dz);
}
}  // namespace

Streamer::Streamer(const Scene& world, const StreamSettings& settings)
    : world_(world),
      settings_(settings),
      state_(world.tiles.size(), State::Absent),
      cancelled_(world.tiles.size(), false) {
  thread_ = std::thread([this] { worker(); });
}

Streamer::~Streamer() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Streamer::update(Vec3 eye, std::vector<size_t>& unload) {
  std::lock_guard lock(mutex_);
  std::vector<float> dist(world_.tiles.size());
  for (size_t i = 0; i < dist.size(); ++i) dist[i] = tileDistance(world_.tiles[i], eye);

  auto drop = [&](size_t i) {
    State s = state_[i];
    if (s == State::Resident) {
      unload.push_back(i);
      residentCount_--;
      unloads_++;
    } else if (s == State::Loading || s == State::Ready) {
      cancelled_[i] = true;  // the worker or poll() discards it
      return;
    }
    if (s == State::Queued) {
      queue_.erase(std::find(queue_.begin(), queue_.end(), i));
      busy_--;
    }
    committed_ -= world_.tiles[i].instances;
    state_[i] = State::Absent;
  };

  for (size_t i = 0; i < dist.size(); ++i)
    if (state_[i] != State::Absent && state_[i] != State::Failed && !cancelled_[i] && dist[i] > settings_.unloadRadius) drop(i);

  std::vector<size_t> wanted;
  for (size_t i = 0; i < dist.size(); ++i)
    if (state_[i] == State::Absent && dist[i] <= settings_.loadRadius) wanted.push_back(i);
  std::sort(wanted.begin(), wanted.end(), [&](size_t a, size_t b) { return dist[a] < dist[b]; });

  for (size_t i : wanted) {
    uint64_t need = world_.tiles[i].instances;
    if (need > settings_.budgetInstances) {
      // could never load under this budget: say so once instead of showing nothing silently
      spdlog::warn("tile {},{} skipped: {} instances exceed the budget of {}", world_.tiles[i].x, world_.tiles[i].z,
                   need, settings_.budgetInstances);
      state_[i] = State::Failed;
      continue;
    }
    while (committed_ + need > settings_.budgetInstances) {
      // evict the farthest resident tile if it is clearly farther than this one
      size_t victim = SIZE_MAX;
      for (size_t j = 0; j < dist.size(); ++j)
        if (state_[j] == State::Resident && dist[j] > dist[i] + world_.tileSize &&
            (victim == SIZE_MAX || dist[j] > dist[victim]))
          victim = j;
      if (victim == SIZE_MAX) break;
      drop(victim);
    }
    if (committed_ + need > settings_.budgetInstances) break;
    state_[i] = State::Queued;
    committed_ += need;
    busy_++;
    queue_.push_back(i);
  }
  std::sort(queue_.begin(), queue_.end(), [&](size_t a, size_t b) { return dist[a] < dist[b]; });
  if (!queue_.empty()) wake_.notify_one();
}

bool Streamer::poll(LoadedTile& out) {
  std::lock_guard lock(mutex_);
  while (!done_.empty()) {
    LoadedTile t = std::move(done_.front());
    done_.pop_front();
    size_t i = t.tile;
    if (cancelled_[i]) {
      cancelled_[i] = false;
      state_[i] = State::Absent;
      committed_ -= world_.tiles[i].instances;
      trash_.push_back(std::move(t));
      wake_.notify_one();
      continue;
    }
    state_[i] = State::Resident;
    residentCount_++;
    loads_++;
    out = std::move(t);
    return true;
  }
  return false;
}

void Streamer::reject(size_t i) {
  std::lock_guard lock(mutex_);
  if (state_[i] != State::Resident) return;
  state_[i] = State::Failed;
  residentCount_--;
  loads_--;
  committed_ -= world_.tiles[i].instances;
}

void Streamer::recycle(LoadedTile&& tile) {
  {
    std::lock_guard lock(mutex_);
    trash_.push_back(std::move(tile));
  }
  wake_.notify_one();
}

void Streamer::waitIdle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return busy_ == 0; });
}

void Streamer::worker() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || !queue_.empty() || !trash_.empty(); });
    if (stop_) return;
    if (!trash_.empty()) {
      std::vector<LoadedTile> trash;
      trash.swap(trash_);
      lock.unlock();
      trash.clear();
      lock.lock();
      continue;
    }
    size_t i = queue_.front();
    queue_.pop_front();
    state_[i] = State::Loading;
    lock.unlock();
    LoadedTile tile;
    bool ok = true;
    const SceneTile& planned = world_.tiles[i];
    try {
      tile = world_.loadTile(i);
      tile.tile = i;
      // The budget was charged with the manifest's count; admitting a tile whose decoded
      // count differs would let the resident total (and the GPU lists sized from the
      // budget) be exceeded, so such a tile is corrupt whatever the loader checked.
      if (tile.instances.size() != planned.instances)
        throw InputError("decoded " + std::to_string(tile.instances.size()) + " instances, manifest says " +
                         std::to_string(planned.instances));
    } catch (const std::exception& e) {
      spdlog::warn("tile {},{} skipped: {}", planned.x, planned.z, e.what());
      ok = false;
    }
    lock.lock();
    busy_--;
    if (ok) {
      state_[i] = State::Ready;
      done_.push_back(std::move(tile));
    } else {
      committed_ -= world_.tiles[i].instances;  // unreadable: not retried this session
      state_[i] = State::Failed;
      cancelled_[i] = false;
    }
    if (busy_ == 0) idle_.notify_all();
  }
}

}  // namespace eco::render

