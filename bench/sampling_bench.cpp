// Points per second of the tiled sampler on 1 km^2 at r = 1 m, uniform density. Also reports
// the process's peak resident memory per point. BM_ScatterStream's arguments: threads, tile
// size in metres (64 m tiles keep a tile's coverage raster, 10 KB, and most of its grid in L1;
// 128 m tiles are the bake's default), method (0 pool, 1 Bridson).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "sampling/sampling.h"

namespace {

eco::SamplerParams squareKm(float radius, float tileSize = 128.f) {
  eco::SamplerParams p;
  p.worldX = p.worldZ = 1000.f;
  p.tileSize = tileSize;
  p.seed = 42;
  p.classes = {{radius, radius}};
  return p;
}

double peakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) * 1024.0;
}

// Streams tiles to a counting sink: measures the sampler, not the output's storage.
void BM_ScatterStream(benchmark::State& state) {
  eco::SamplerParams p = squareKm(1.f, float(state.range(1)));
  p.method = state.range(2) ? eco::SamplerMethod::Bridson : eco::SamplerMethod::Pool;
  const int threads = int(state.range(0));
  size_t points = 0;
  for (auto _ : state) {
    std::atomic<size_t> count{0};
    eco::scatter(p, nullptr, {0, 0, eco::tilesX(p), eco::tilesZ(p)}, threads,
                 [&](eco::TileSamples&& t) { count += t.samples.size(); });
    points = count;
  }
  state.counters["points"] = double(points);
  state.counters["points/s"] = benchmark::Counter(double(points), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peakRSS_B/pt"] = peakRssBytes() / double(points);
}
BENCHMARK(BM_ScatterStream)->ArgsProduct({{1, 2}, {64, 128}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

// Everything kept in memory (12 bytes per output sample plus the sampler's working set).
void BM_ScatterAll(benchmark::State& state) {
  const eco::SamplerParams p = squareKm(1.f);
  size_t points = 0;
  for (auto _ : state) {
    const auto tiles = eco::scatterAll(p, nullptr, int(state.range(0)));
    points = 0;
    for (const auto& t : tiles) points += t.samples.size();
  }
  state.counters["points/s"] = benchmark::Counter(double(points), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ScatterAll)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The textbook version, for the speed-up ratio measured in the same run: mt19937, sin/cos,
// a grid of sample indices, one untiled world, single thread.
size_t naiveBridson(float world, float r, int k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  const float cell = r / std::sqrt(2.f);
  const int n = int(std::ceil(world / cell));
  std::vector<int> grid(size_t(n) * size_t(n), -1);
  std::vector<eco::Sample> points;
  std::vector<int> active;
  auto add = [&](float x, float z) {
    grid[size_t(int(z / cell)) * size_t(n) + size_t(int(x / cell))] = int(points.size());
    active.push_back(int(points.size()));
    points.push_back({x, z, 0});
  };
  add(uniform(rng) * world, uniform(rng) * world);
  while (!active.empty()) {
    const size_t a = std::min(active.size() - 1, size_t(uniform(rng) * float(active.size())));
    const eco::Sample p = points[size_t(active[a])];
    bool found = false;
    for (int t = 0; t < k && !found; ++t) {
      const float angle = uniform(rng) * 6.2831853f, d = r * (1.f + uniform(rng));
      const float x = p.x + d * std::cos(angle), z = p.z + d * std::sin(angle);
      if (x < 0 || z < 0 || x >= world || z >= world) continue;
      const int ci = int(x / cell), cj = int(z / cell);
      bool clear = true;
      for (int j = std::max(0, cj - 2); j <= std::min(n - 1, cj + 2); ++j)
        for (int i = std::max(0, ci - 2); i <= std::min(n - 1, ci + 2); ++i) {
          const int g = grid[size_t(j) * size_t(n) + size_t(i)];
          if (g < 0) continue;
          const float dx = points[size_t(g)].x - x, dz = points[size_t(g)].z - z;
          if (dx * dx + dz * dz < r * r) clear = false;
        }
      if (clear) {
        add(x, z);
        found = true;
      }
    }
    if (!found) {
      active[a] = active.back();
      active.pop_back();
    }
  }
  return points.size();
}

void BM_NaiveBridson(benchmark::State& state) {
  size_t points = 0;
  for (auto _ : state) points = naiveBridson(1000.f, 1.f, 30, 42);
  state.counters["points/s"] = benchmark::Counter(double(points), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_NaiveBridson)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
