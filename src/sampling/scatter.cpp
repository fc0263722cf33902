#include <algorithm>
#include <atomic>
#include <cmath>
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

int unitReachRows(int classes) { return sampling::TileSchedule::reachRows(classes); }

SampleClass aloneShape(SampleClass k) {
  const float r = k.radius;
  if (!(r > 0.f)) return k;
  k.radius = 1.f;
  k.maxRadius /= r;
  if (k.clumps.active()) k.clumps = makePatchField(k.clumps.share, k.clumps.radius / r, k.clumps.key);
  if (k.gaps.active()) k.gaps = makePatchField(k.gaps.share, k.gaps.radius / r, k.gaps.key);
  k.crownLo = k.crownHi = 0.f;
  k.canopyFrom = 0;
  k.underCrown = k.inOpen = 1.f;
  return k;
}

double aloneCountPerArea(const SamplerParams& params, int cls, float density, int threads) {
  const SampleClass& given = params.classes[size_t(cls)];
  const bool variable = params.variableRadius;
  const float r = given.radius;
  if (!(r > 0.f) || !(density > 0.f)) return 0.0;
  // Measured at unit spacing and scaled by 1 / r^2.
  SampleClass k = aloneShape(given);
  // The spacing at this density (variable radius), and the square in spacings at it: about as
  // many points at any density.
  const float spacing = variable ? std::min(1.f / std::sqrt(density), k.maxRadius) : 1.f;
  // The largest radius at this uniform density is the spacing: the same spacing and survival
  // (above (1 / maxRadius)^2 nothing is thinned either way, below it the bound is unchanged),
  // and a square bounded however large max_radius_factor is. The class keeps the method its
  // own ratio gives it (makeSetup: the pool up to kPoolMaxRatio).
  const bool pool = params.method == SamplerMethod::Pool && given.largestRadius(variable) / r <= kPoolMaxRatio;
  if (variable) k.maxRadius = spacing;
  const float patch = std::max(k.clumps.active() ? k.clumps.radius : 0.f, k.gaps.active() ? k.gaps.radius : 0.f);
  // 300 spacings a side, or 100 patch radii, at most 1000: five seeds spread by about 3 % at
  // 400 spacings and 1.5 % at 800, and a clumped class needs the patches' count (at 60 clump
  // radii its count read 9 % off a bake's). The margin keeps out the world's edge, its
  // packing and the patches cut off along it (with only the spacing as margin, clumped
  // classes read 5-10 % low on a 200-spacing square); at most the square again.
  const float inner = std::min(std::max(300.f * spacing, 100.f * patch), 1000.f * spacing);
  const float margin = 2.f * k.largestRadius(variable) + std::min(4.f * patch, inner);
  SamplerParams p;
  p.worldX = p.worldZ = inner + 2.f * margin;
  p.seed = params.seed;
  p.method = pool ? SamplerMethod::Pool : SamplerMethod::Bridson;
  p.candidates = params.candidates;
  p.variableRadius = variable;
  p.classes.push_back(k);
  // Tiles of at most 1000 spacings: the class's grid per tile stays far inside the sampler's
  // bound (samplerProblems) whatever the square (the counts do not depend on the tiling).
  p.tileSize = std::max(minTileSize(p), std::min(p.worldX / 4.f, 1000.f));
  p.worldX = p.worldZ = std::max(p.worldX, p.tileSize);
  const UniformDensity field(density);
  std::atomic<long long> n = 0;
  scatter(p, &field, {0, 0, tilesX(p), tilesZ(p)}, threads, [&](TileSamples&& t) {
    long long here = 0;
    for (const Sample& s : t.samples) here += s.x >= margin && s.z >= margin && s.x < margin + inner && s.z < margin + inner;
    n += here;
  });
  return double(n.load()) / (double(inner) * double(inner)) / (double(r) * double(r));
}

}  // namespace eco
