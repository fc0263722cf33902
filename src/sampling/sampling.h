#pragma once
// Tiled, multi-class, variable-radius Poisson-disk sampling: thresholds of a precomputed
// Poisson pool (the default) or Bridson growth per tile.
// Deterministic for a given seed whatever the thread count; seam-free across tiles; any tile
// range can be generated alone and equals the same tiles of a full run.
// Design, guarantees and measured figures: docs/sampling.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/bilinear.h"

namespace eco {

// A Boolean model of discs (docs/ecology.md "Patches"): centres Poisson in the plane, radii
// uniform in [0.5, 1.5] x `radius`, drawn per cell of 3 x `radius` from a hash of the key and
// the cell, so the field is a pure function of the position (seam-free, any tile range).
// A point is inside with probability `share` (1 - exp(-lambda E[pi rho^2])).
struct PatchField {
  float share = 0.f;       // expected share of the plane inside a patch; 0: no patches
  float radius = 0.f;      // mean patch radius, metres
  uint64_t key = 0;        // which patches (the sampler mixes in the seed)
  // Derived by makePatchField: mean discs per cell and exp(-that) (Poisson counts per cell).
  float perCell = 0.f, expNegPerCell = 1.f;
  bool active() const { return share > 0.f && radius > 0.f; }
  bool operator==(const PatchField&) const = default;
};
// share in [0, 0.95], radius > 0.
PatchField makePatchField(float share, float radius, uint64_t key);
// The field is read on a world-aligned grid of pixels half the mean radius wide: a
// point is inside when its pixel's centre lies in a disc (so the sampler can cache a tile's
// pixels as bits and every tile reads the same field).
inline float patchPixel(const PatchField& f) { return 0.5f * f.radius; }
bool insidePatch(const PatchField& f, uint64_t seed, float x, float z);

// The most of a clump's hard-core set that survives: a thinned set (Clark-Evans about 1.3
// inside the clump) rather than the packed one (1.7).
inline constexpr float kClumpSurvival = 0.5f;

// Natural point patterns: each is a pure function of the seed, the class and the position, so
// every guarantee (spacing, determinism, seams, partial = full) holds unchanged.
struct SampleClass {
  float radius = 1.f;     // spacing at density 1 of the smallest sample, metres
  float maxRadius = 4.f;  // bound on radius / sqrt(density) (variableRadius only)
  // Size-spacing coupling: a sample's spacing is r(density) * (1 + (sizeSpread - 1) * size),
  // size = sizeDraw(seed, class, x, z) in [0, 1), the draw the bake turns into the scale: big
  // instances keep more room. 1: every sample the same.
  float sizeSpread = 1.f;
  // Thinning of the hard core: a sample survives with probability
  // min(1, keep / patternMean) * (between outside clumps) * (0 in gaps) * canopy factor, so a
  // pattern moves plants into clumps and out of gaps at about the same count where the hard
  // core leaves room. 1 with no pattern: the packed set (the old near-lattice).
  float keep = 1.f;
  PatchField clumps{};        // density factor 1 inside, `between` outside
  float between = 1.f;
  PatchField gaps{};          // density factor 0 inside (clearings)
  float patternMean = 1.f;    // E[clump factor * gap factor], from the shares
  // Canopy: this class's crown radius, lerp(crownLo, crownHi, size); the classes
  // [0, canopyFrom) shade it with their crowns. Under a crown the survival is multiplied by
  // underCrown, elsewhere by inOpen (1, 1: no response).
  float crownLo = 0.f, crownHi = 0.f;
  int canopyFrom = 0;
  float underCrown = 1.f, inOpen = 1.f;
  bool respondsToCanopy() const { return canopyFrom > 0 && (underCrown != 1.f || inOpen != 1.f); }
  // Spacing grows with size only with variable radius (roulette mode keeps one radius).
  float largestRadius(bool variable) const { return variable ? std::max(radius, maxRadius) * sizeSpread : radius; }
  bool operator==(const SampleClass&) const = default;
};

// The size draw of a sample in [0, 1), from the seed, the class and the position alone: the
// sampler spaces the sample by it (sizeSpread), the bake scales the instance by it.
float sizeDraw(uint64_t seed, int cls, float x, float z);

enum class SamplerMethod {
  // Lookups into a precomputed hierarchical Poisson-disk pool (sampling/pool.h), several times
  // faster; falls back to Bridson for classes with maxRadius > 16 radius.
  Pool,
  Bridson,  // Bridson growth per tile (k candidates per active sample)
};

struct SamplerParams {
  float worldX = 0, worldZ = 0;  // world extent, metres; tiles cover [0, worldX) x [0, worldZ)
  float tileSize = 128.f;        // must be >= interactionDistance() (checked)
  uint64_t seed = 1;
  SamplerMethod method = SamplerMethod::Pool;
  int candidates = 30;           // Bridson k
  // true: spacing r(p) = sampleRadius(class, density(p)), with survival roulette where the
  //       radius is clamped at maxRadius (see sampleRadius).
  // false: uniform Poisson at radius (density ignored), then each sample survives with
  //       probability density (the seed article's mode).
  bool variableRadius = true;
  std::vector<SampleClass> classes;  // placed in this order (priority layers)
  // n x n row-major minimum distance between instances of two different classes. The pair
  // {c, d} uses max(classDistance[c*n+d], classDistance[d*n+c]); the diagonal is ignored
  // (same class uses the variable-radius rule d >= max(r_p, r_q)). Empty means all zero.
  std::vector<float> classDistance;
};

// One class's density over a window of a raster's pixels, set by DensityField::window for the
// unit the sampler is placing (one per worker, reused): its reads equal bilinearScaled() on
// the whole raster bit for bit, and its bounds pyramidMax() on the raster's pyramid, so the
// field may hold the pixels only around the unit's tile.
struct DensityWindow {
  RasterView shape;                    // the whole raster's size and scale (no values)
  int i0 = 0, j0 = 0, i1 = 0, j1 = 0;  // the pixels held: [i0, i1) x [j0, j1)
  const float* pixels = nullptr;       // pixel (i, j) at pixels[(j - j0) * stride + i - i0]
  int stride = 0;
  // Bounds, where blockLevel >= 0: the max of each block of 2^blockLevel pixels of the raster,
  // blocksX x blocksZ of them, row-major. [i0, i1) x [j0, j1) is then whole blocks (clipped to
  // the raster).
  int blockLevel = -1, blocksX = 0, blocksZ = 0;
  const float* blocks = nullptr;
  std::vector<float> storage;  // the field's, where it fills the pixels for the unit

  // false where the bilinear support of (x, z) leaves the window.
  [[gnu::always_inline]] bool at(float x, float z, float& out) const {
    const Lerp u = lerpPixel(x * shape.invCellSize, shape.width), v = lerpPixel(z * shape.invCellSize, shape.height);
    if (u.i0 < i0 || u.i1 >= i1 || v.i0 < j0 || v.i1 >= j1) return false;
    out = bilinear(pixels, stride, {u.i0 - i0, u.i1 - i0, u.t}, {v.i0 - j0, v.i1 - j0, v.t});
    return true;
  }
  // false where the bound needs pixels the window does not hold.
  bool maxIn(float x0, float z0, float x1, float z1, float& out) const {
    if (blockLevel < 0) return false;
    const PyramidSpan s = pyramidSpan(x0, z0, x1, z1, shape);
    if (s.level < blockLevel && ((s.x0 << s.level) < i0 || std::min((s.x1 + 1) << s.level, shape.width) > i1 ||
                                 (s.z0 << s.level) < j0 || std::min((s.z1 + 1) << s.level, shape.height) > j1))
      return false;
    out = pyramidMax(
        s, shape.width, shape.height, blockLevel, blocksX, blocksZ,
        [&](int i, int j) { return pixels[size_t(j - j0) * size_t(stride) + size_t(i - i0)]; },
        [&](int i, int j) { return blocks[size_t(j) * size_t(blocksX) + size_t(i)]; });
    return true;
  }
};

// Density in [0, 1] per class at a world position. Must be pure and thread-safe.
// A value <= 0 forbids a sample there.
class DensityField {
 public:
  virtual ~DensityField() = default;
  virtual float density(int cls, float x, float z) const = 0;
  // An upper bound of density(cls, .) over [x0, x1] x [z0, z1]; lets the sampler skip
  // rectangles where it is <= 0. Must be pure, like density().
  virtual float maxDensity(int /*cls*/, float /*x0*/, float /*z0*/, float /*x1*/, float /*z1*/) const { return 1.f; }
  // Optional: the class's density over at least [x0, x1] x [z0, z1] (a unit's tile and the
  // margin it reads) into `out`, whose at() equals density(cls, .) bit for bit and whose
  // bounds (if any) equal maxDensity(cls, .): the sampler reads it inline instead of through
  // the virtual calls (the bake's hottest lookups). false: no window.
  virtual bool window(int /*cls*/, float /*x0*/, float /*z0*/, float /*x1*/, float /*z1*/, DensityWindow& /*out*/) const {
    return false;
  }
  // Optional: rules checked at a candidate's exact position once its density has kept it
  // (water for a species that does not grow in it): true forbids a sample there. Pure.
  virtual bool excluded(int /*cls*/, float /*x*/, float /*z*/) const { return false; }
};

// The same density everywhere (flat-ground measurements: the count model, cover calibration).
class UniformDensity final : public DensityField {
 public:
  explicit UniformDensity(float d) : d_(d) {}
  float density(int, float, float) const override { return d_; }
  float maxDensity(int, float, float, float, float) const override { return d_; }

 private:
  float d_;
};

struct Sample {
  float x = 0, z = 0;
  uint32_t cls = 0;
};

struct TileSamples {
  int tx = 0, tz = 0;
  std::vector<Sample> samples;  // samples whose position lies in this tile: by class, then in
                                // generation order (schedule-independent)
};

struct TileRange {
  int x0 = 0, z0 = 0, x1 = 0, z1 = 0;  // half-open [x0, x1) x [z0, z1)
};

int tilesX(const SamplerParams& p);
int tilesZ(const SamplerParams& p);

// Spacing of a class at a density (variableRadius): clamp(radius / sqrt(density), radius,
// maxRadius). Where density < (radius / maxRadius)^2 the radius is clamped, so samples are
// additionally kept with probability density / (radius / maxRadius)^2 and the count still
// follows density. Two samples p, q of one class always satisfy |p - q| >= max(r_p, r_q).
inline float sampleRadius(const SampleClass& c, float density) {
  if (!(density > 0.f)) return c.maxRadius;
  return std::clamp(c.radius / std::sqrt(density), c.radius, c.maxRadius);
}

// Exclusion distance between two different classes (the symmetric rule above).
float pairDistance(const SamplerParams& p, int c, int d);

// Largest distance at which two samples can affect each other: every class's largest
// radius and every pair distance. Tiles must be at least this wide.
float interactionDistance(const SamplerParams& p);

// The tile-size rule, one definition for the sampler and the config checks: a tile depends
// only on its 8 neighbours, so tiles must be at least interactionDistance() wide.
float minTileSize(const SamplerParams& p);

// One reason params cannot be sampled, with what it concerns, so a caller (the config
// checks) can name its own field: cls / other are class indices or -1.
struct SamplerProblem {
  enum class Subject { World, TileSize, Candidates, ClassCount, Radius, MaxRadius, ClassDistance, Pattern };
  Subject subject = Subject::World;
  int cls = -1, other = -1;
  std::string reason;  // with the numbers; no "class N" prefix
};
// Every check validateSamplerParams makes. knownExtent = false leaves out the checks of
// worldX / worldZ (a config before its heightmap is read).
std::vector<SamplerProblem> samplerProblems(const SamplerParams& p, bool knownExtent = true);

// Throws InputError with the first of samplerProblems(p).
void validateSamplerParams(const SamplerParams& p);

// Calls sink once per tile of `range` as soon as that tile is final, from worker threads
// (the sink must be thread-safe). Tiles outside `range` that the range depends on are
// generated but not emitted: the last class's up to 3 tiles away in x and 1 in z, and each
// class before it one tile further for the layer rule (docs/sampling.md), at most
// unitReachRows rows in z. Memory stays bounded by a band of tile rows, not the world.
// density == nullptr means density 1 everywhere.
// threads <= 0 uses every hardware thread. Exceptions from density or sink are rethrown.
void scatter(const SamplerParams& params, const DensityField* density, TileRange range, int threads,
             const std::function<void(TileSamples&&)>& sink);

// What the sampler holds in memory, for estimates outside the stage (bake/estimate.cpp) without
// its internal headers.
struct SamplerMemoryModel {
  double poolBytes = 0;         // the Poisson pool of a class placed from it (base points and buckets)
  float poolMaxRatio = 0;       // a class is placed from the pool when largest / smallest radius <= this
  int windowRows = 0;           // tile rows the schedule holds at most
  double bytesPerHeldSample = 0;  // per sample of a held tile
};
SamplerMemoryModel samplerMemoryModel(int classes);

// Tile rows before a range's first and after its last that scatter() places samples in for
// `classes` classes (a shard's rasters must cover them and the margin a tile reads around it).
int unitReachRows(int classes);

// Instances per square metre of class `cls` of `params` placed alone at a uniform `density` on
// open ground (no canopy over it), with the params' method, candidates, density mode and seed:
// the sampler itself, run on a flat square of 300-1000 spacings a side (at least 100 clump or
// gap radii) and counted away from its edges. The estimate's count model (bake/estimate.cpp):
// how a mix of sizes packs, the hard core's thinning, clumps and gaps interact in ways the
// closed form it replaced did not follow (a size mix of 2.5 packed 20 % below its E[m^2]
// rule, and clumps then capped the survival again), and the count over the density drifts by
// 5-10 % between 1 and 1/16 for clumped classes. Deterministic for a seed and any thread count.
// The count times r^2 depends only on aloneShape(class) and those four settings.
double aloneCountPerArea(const SamplerParams& params, int cls, float density, int threads);
// The class as aloneCountPerArea measures it: every length in units of its spacing (radius 1;
// its patches are read on pixels of half their radius, so the pattern keeps its shape) and no
// canopy over it.
SampleClass aloneShape(SampleClass k);

// Convenience: whole world, all tiles collected and sorted by (tz, tx).
std::vector<TileSamples> scatterAll(const SamplerParams& params, const DensityField* density, int threads);

}  // namespace eco
