#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/error.h"
#include "sampling/bridson.h"
#include "sampling/pool.h"
#include "sampling/sampling.h"
#include "sampling/schedule.h"

namespace eco {

using namespace sampling;

void scatter(const SamplerParams& params, const DensityField* density, TileRange range, int threads,
             const std::function<void(TileSamples&&)>& sink) {
  const SamplerSetup setup = makeSetup(params, density);
  if (range.x0 < 0 || range.z0 < 0 || range.x1 > setup.tilesX || range.z1 > setup.tilesZ || range.x0 > range.x1 ||
      range.z0 > range.z1)
    throw InputError("sampler: tile range [" + std::to_string(range.x0) + ", " + std::to_string(range.x1) + ") x [" +
                     std::to_string(range.z0) + ", " + std::to_string(range.z1) + ") is outside the world's " +
                     std::to_string(setup.tilesX) + " x " + std::to_string(setup.tilesZ) + " tiles");
  if (range.x0 == range.x1 || range.z0 == range.z1) return;
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));

  TileSchedule schedule(range, setup.tilesX, setup.tilesZ, int(params.classes.size()));
  std::mutex mutex;
  std::condition_variable wake;
  std::exception_ptr error;
  int running = 0;

  auto worker = [&] {
    TileScratch scratch;
    UnitTask task;
    UnitSamples out;
    TileSamples tile;
    std::unique_lock lock(mutex);
    while (!error && !schedule.done()) {
      if (!schedule.nextReady(task)) {
        // Nothing ready and nothing running that could make something ready: a schedule bug,
        // reported rather than waited on forever.
        if (running == 0) {
          error = std::make_exception_ptr(std::logic_error("sampler: tile schedule stalled"));
          break;
        }
        wake.wait(lock);
        continue;
      }
      ++running;
      lock.unlock();
      try {
        generateUnit(setup, task, scratch, out);
      } catch (...) {
        lock.lock();
        --running;
        error = std::current_exception();
        break;
      }
      lock.lock();
      --running;
      const bool complete = schedule.finish(task, out, tile);
      wake.notify_all();
      if (!complete) continue;
      lock.unlock();
      try {
        sink(std::move(tile));
      } catch (...) {
        lock.lock();
        error = std::current_exception();
        break;
      }
      tile = {};
      lock.lock();
    }
    wake.notify_all();
  };

  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

std::vector<TileSamples> scatterAll(const SamplerParams& params, const DensityField* density, int threads) {
  std::vector<TileSamples> tiles;
  std::mutex mutex;
  scatter(params, density, {0, 0, tilesX(params), tilesZ(params)}, threads, [&](TileSamples&& t) {
    std::lock_guard lock(mutex);
    tiles.push_back(std::move(t));
  });
  std::sort(tiles.begin(), tiles.end(),
            [](const TileSamples& a, const TileSamples& b) { return a.tz != b.tz ? a.tz < b.tz : a.tx < b.tx; });
  return tiles;
}

SamplerMemoryModel samplerMemoryModel(int classes) {
  SamplerMemoryModel m;
  m.poolBytes = double(sampling::basePool().size()) * sizeof(sampling::PoolPoint) +
                double(sampling::kPoolBuckets * sampling::kPoolBuckets + 1) * sizeof(uint32_t);
  m.poolMaxRatio = sampling::kPoolMaxRatio;
  m.windowRows = sampling::TileSchedule::windowRows(classes);
  m.bytesPerHeldSample = sizeof(sampling::FixedSample);
  return m;
}

}  // namespace eco
