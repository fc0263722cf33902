// Points per second of the tiled Bridson sampler on 1 km^2 at r = 1 m, uniform density.
// Also reports the process's peak resident memory per point.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <atomic>
#include <thread>

#include "sampling/poisson.h"

namespace {

eco::SamplerParams squareKm(float radius) {
  eco::SamplerParams p;
  p.worldX = p.worldZ = 1000.f;
  p.tileSize = 128.f;
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
  const eco::SamplerParams p = squareKm(1.f);
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
BENCHMARK(BM_ScatterStream)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

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

}  // namespace

BENCHMARK_MAIN();
