#include <algorithm>
#include <cmath>
#include <thread>

#include "masks/masks.h"

namespace eco {

namespace {

// Calls f(first, step) on `threads` threads (the calling one included), joined on return.
template <typename F>
void onThreads(int threads, F&& f) {
  threads = std::max(1, threads);
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(f, t, threads);
  f(0, threads);
}

}  // namespace

SuitabilityField::SuitabilityField(const World& world, int threads, std::optional<std::array<int, 2>> rows)
    : world_(&world) {
  const Grid& h = world.terrain.metres;
  const auto& species = world.config.species;
  width_ = h.width;
  height_ = h.height;
  cellSize_ = world.terrain.cellSize;
  invCellSize_ = 1.f / cellSize_;
  constexpr int B = 1 << kBlockLevel;
  blocksX_ = (width_ + B - 1) / B;
  blocksZ_ = (height_ + B - 1) / B;
  rowFirst_ = rows ? std::clamp((*rows)[0], 0, height_) : 0;
  rowEnd_ = rows ? std::clamp((*rows)[1], rowFirst_, height_) : height_;
  painted_.assign(species.size(), 0);
  extras_ = !world.terrain.noData.empty() || !world.shapes.empty();
  for (size_t s = 0; s < species.size(); ++s) extras_ |= (painted_[s] = uint8_t(world.hasPaintedMaps(s))) != 0;

  // The rule's inputs, each computed only where some species still needs it (the factors are
  // finite, so a zero product stays zero): on the heights and slopes no species takes, the
  // normal, the noise and the river are never looked at, and fill() never reads them there.
  sites_.assign(size_t(width_) * size_t(rowEnd_ - rowFirst_), Site{0, 0, 0, 0});
  onThreads(threads, [&](int first, int step) {
    for (int j = rowFirst_ + first; j < rowEnd_; j += step)
      for (int i = 0; i < width_; ++i) {
        Site& site = sites_[size_t(j - rowFirst_) * size_t(width_) + size_t(i)];
        const float x = float(i) * cellSize_, z = float(j) * cellSize_;
        site.height = world.terrain.heightAt(x, z);
        auto some = [&](auto&& weight) {
          return std::any_of(species.begin(), species.end(), [&](const SpeciesConfig& sp) { return weight(sp) != 0.f; });
        };
        if (!some([&](const SpeciesConfig& sp) { return sp.density * elevationWeight(sp.elevation, site.height); }))
          continue;
        const SurfaceSample surface = surfaceAt(world.terrain, x, z, world.sunDirXZ, /*withAspect=*/false);
        site.slopeDeg = surface.slopeDeg;
        site.sunExposure = surface.sunExposure;
        if (some([&](const SpeciesConfig& sp) {
              return sp.density * elevationWeight(sp.elevation, site.height) * slopeWeight(sp, site.slopeDeg) *
                     sunWeight(sp, site.sunExposure);
            }))
          site.moisture = moistureAt(world, x, z);
      }
  });

  // Per species, the raster where they all fit, and the max over each block (rows of blocks
  // are independent).
  const double pixels = double(width_) * double(height_);
  if (keepsRasters(species.size(), pixels))
    rasters_.assign(species.size(), std::vector<float>(size_t(pixels), 0.f));
  blocks_.assign(species.size(), std::vector<float>(size_t(blocksX_) * size_t(blocksZ_), 0.f));
  onThreads(threads, [&](int first, int step) {
    std::vector<float> own;
    for (int bj = first; bj < blocksZ_; bj += step) {
      const int j0 = std::max(bj * B, rowFirst_), j1 = std::min((bj + 1) * B, rowEnd_);
      if (j0 >= j1) continue;
      for (size_t s = 0; s < species.size(); ++s) {
        float* strip = rasters_.empty() ? (own.resize(size_t(width_) * size_t(j1 - j0)), own.data())
                                        : &rasters_[s][size_t(j0) * size_t(width_)];
        fill(int(s), 0, j0, width_, j1, strip);
        float* out = &blocks_[s][size_t(bj) * size_t(blocksX_)];
        for (int j = j0; j < j1; ++j)
          for (int i = 0; i < width_; ++i)
            out[i / B] = std::max(out[i / B], strip[size_t(j - j0) * size_t(width_) + size_t(i)]);
      }
    }
  });
}

// The rule's product in its order (masks.h), the same multiplications for every caller.
inline float SuitabilityField::rule(const SpeciesConfig& sp, const Site& site) {
  float w = sp.density * elevationWeight(sp.elevation, site.height);
  if (w == 0.f) return 0.f;
  w = w * slopeWeight(sp, site.slopeDeg) * sunWeight(sp, site.sunExposure);
  if (w == 0.f) return 0.f;
  return w * moistureWeight(sp, site.moisture);
}

// Beyond the rule: zero at nodata pixels and inside vector exclusions, times the painted maps'
// factor (World::paintedFactor).
float SuitabilityField::extras(int s, int i, int j, float w) const {
  const float x = float(i) * cellSize_, z = float(j) * cellSize_;
  const std::vector<uint8_t>& noData = world_->terrain.noData;
  if ((!noData.empty() && noData[size_t(j) * size_t(width_) + size_t(i)]) ||
      world_->shapes.excludes(size_t(s), double(x), double(z)))
    return 0.f;
  return painted_[size_t(s)] ? w * world_->paintedFactor(size_t(s), x, z) : w;
}

float SuitabilityField::pixel(int s, int i, int j) const {
  if (j < rowFirst_ || j >= rowEnd_) return 0.f;
  const float w = rule(world_->config.species[size_t(s)], sites_[size_t(j - rowFirst_) * size_t(width_) + size_t(i)]);
  return w != 0.f && extras_ ? extras(s, i, j, w) : w;
}

void SuitabilityField::fill(int s, int i0, int j0, int i1, int j1, float* out) const {
  const SpeciesConfig& sp = world_->config.species[size_t(s)];
  for (int j = j0; j < j1; ++j) {
    if (j < rowFirst_ || j >= rowEnd_) {
      std::fill(out, out + (i1 - i0), 0.f);
      out += i1 - i0;
      continue;
    }
    const Site* row = &sites_[size_t(j - rowFirst_) * size_t(width_)];
    for (int i = i0; i < i1; ++i) {
      const float w = rule(sp, row[i]);
      *out++ = w != 0.f && extras_ ? extras(s, i, j, w) : w;
    }
  }
}

float SuitabilityField::at(int s, float x, float z) const {
  const Lerp u = lerpPixel(x * invCellSize_, width_), v = lerpPixel(z * invCellSize_, height_);
  const float p[4] = {pixel(s, u.i0, v.i0), pixel(s, u.i1, v.i0), pixel(s, u.i0, v.i1), pixel(s, u.i1, v.i1)};
  return bilinear(p, 2, {0, u.i1 - u.i0, u.t}, {0, v.i1 - v.i0, v.t});
}

float SuitabilityField::maxIn(int s, float x0, float z0, float x1, float z1) const {
  return pyramidMax(
      pyramidSpan(x0, z0, x1, z1, shape()), width_, height_, kBlockLevel, blocksX_, blocksZ_,
      [&](int i, int j) { return pixel(s, i, j); }, [&](int i, int j) { return blockMax(s, i, j); });
}

SuitabilityRasters computeSuitability(const World& world, int threads) {
  const SuitabilityField field(world, threads);
  SuitabilityRasters out;
  out.cellSize = world.terrain.cellSize;
  out.invCellSize = 1.f / out.cellSize;
  const int w = field.shape().width, h = field.shape().height;
  out.species.assign(size_t(field.species()), Grid(w, h));
  onThreads(threads, [&](int first, int step) {
    for (int j = first; j < h; j += step)
      for (int s = 0; s < field.species(); ++s) field.fill(s, 0, j, w, j + 1, &out.species[size_t(s)].at(0, j));
  });
  return out;
}

}  // namespace eco
