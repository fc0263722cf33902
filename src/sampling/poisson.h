#pragma once
// Tiled, multi-class, variable-radius Bridson Poisson-disk sampling.
// Deterministic for a given seed whatever the thread count; seam-free across tiles; any tile
// range can be generated alone and equals the same tiles of a full run.
#include <cstdint>
#include <functional>
#include <vector>

namespace eco {


struct SampleClass {
  float radius = 1.f;     // spacing at density 1, metres
  float maxRadius = 4.f;  // bound on radius / sqrt(density)
};

struct SamplerParams {
  float worldX = 0, worldZ = 0;  // world extent, metres; tiles cover [0, worldX] x [0, worldZ]
  float tileSize = 128.f;        // must be >= the largest interaction distance (checked)
  uint64_t seed = 1;
  int candidates = 30;           // Bridson k
  bool variableRadius = true;    // false: uniform at radius, then survival roulette on density
  std::vector<SampleClass> classes;  // placed in this order (priority layers)
  // n x n row-major minimum distance between instances of two different classes; the
  // diagonal is ignored (same class uses the variable-radius rule d >= max(r_p, r_q)).
  std::vector<float> classDistance;
};

// Density in [0, 1] per class at a world position. Must be pure and thread-safe.
// A value <= 0 forbids a sample there.
class DensityField {
 public:
  virtual ~DensityField() = default;
  virtual float density(int cls, float x, float z) const = 0;
};

struct Sample {
  float x = 0, z = 0;
  uint32_t cls = 0;
};

struct TileSamples {
  int tx = 0, tz = 0;
  std::vector<Sample> samples;  // samples whose position lies in this tile, in a fixed order
};

struct TileRange {
  int x0 = 0, z0 = 0, x1 = 0, z1 = 0;  // half-open [x0, x1) x [z0, z1)
};

int tilesX(const SamplerParams& p);
int tilesZ(const SamplerParams& p);

// Calls sink once per tile of `range` as soon as that tile is final, from worker threads
// (the sink must be thread-safe). Memory stays bounded by a band of tile rows, not the world.
// density == nullptr means density 1 everywhere.
void scatter(const SamplerParams& params, const DensityField* density, TileRange range, int threads,
             const std::function<void(TileSamples&&)>& sink);

// Convenience: whole world, all tiles collected and sorted by (tz, tx).
std::vector<TileSamples> scatterAll(const SamplerParams& params, const DensityField* density, int threads);

}  // namespace eco
