#pragma once
// Tile streaming: a background thread loads tiles nearest-first within a load radius and an
// instance budget; tiles beyond the unload radius (or evicted for nearer ones) are dropped.
// The frame loop only calls update() and poll(), which never wait on the loader.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "render/scene.h"

namespace eco::render {

struct StreamSettings {
  float loadRadius = 600;      // metres from the camera (horizontal) to a tile's rectangle
  float unloadRadius = 800;    // hysteresis: resident tiles stay until this far
  uint64_t budgetInstances = 4'000'000;
};

class Streamer {
 public:
  Streamer(const Scene& world, const StreamSettings& settings);
  ~Streamer();
  Streamer(const Streamer&) = delete;
  Streamer& operator=(const Streamer&) = delete;

  // Plans loads and unloads for a camera position; appends tiles to drop to `unload`.
  void update(Vec3 eye, std::vector<size_t>& unload);
  // Takes one finished tile, if any (non-blocking). The caller makes it resident.
  bool poll(LoadedTile& out);
  // A tile poll() returned that the caller could not make resident: not retried.
  void reject(size_t tile);
  // Blocks until every planned load has finished (headless runs that want settled frames).
  void waitIdle();
  // Hands a tile the caller is done with to the loader thread, which frees it: returning a
  // few megabytes to the operating system is not work for the frame loop.
  void recycle(LoadedTile&& tile);

  size_t residentTiles() const { return residentCount_; }
  uint64_t loads() const { return loads_; }
  uint64_t unloads() const { return unloads_; }

 private:
  enum class State { Absent, Queued, Loading, Ready, Resident, Failed };
  void worker();

  const Scene& world_;
  StreamSettings settings_;
  std::vector<State> state_;       // guarded by mutex_
  std::vector<bool> cancelled_;    // Loading tiles no longer wanted
  std::deque<size_t> queue_;       // nearest first
  std::deque<LoadedTile> done_;
  std::vector<LoadedTile> trash_;  // freed by the worker
  uint64_t committed_ = 0;         // instances queued, loading, ready or resident
  size_t busy_ = 0;                // tiles queued or loading
  size_t residentCount_ = 0;
  uint64_t loads_ = 0, unloads_ = 0;
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::thread thread_;
};

}  // namespace eco::render
