#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

#include "bake/bake.h"
#include "core/hash.h"

namespace eco {

namespace {

uint32_t variedColor(const SpeciesConfig& sp, Rng& rng) {
  float brightness = 1.f + sp.colorVariation * (2.f * rng.uniform() - 1.f);
  float c[3];
  for (int i = 0; i < 3; ++i) {
    float hueJitter = 0.35f * sp.colorVariation * (2.f * rng.uniform() - 1.f);
    c[i] = sp.color[i] * (brightness + hueJitter);
  }
  return packColor(c);
}

// Squared slope tangents (tan^2 of the slope) bounding an angle: below `lo` the slope is
// surely under the angle, above `hi` surely over it, as atan in degrees computes it (0.01
// degrees of margin, far beyond float error); in between, or for angles near 90 degrees,
// callers compute the slope. Saves the atan for nearly every instance.
struct SlopeBound {
  float lo = -1.f, hi = std::numeric_limits<float>::infinity();
};

SlopeBound slopeBound(float degrees) {
  constexpr double kMargin = 0.01, kRad = std::numbers::pi / 180.0;
  if (!(double(degrees) > kMargin && double(degrees) + kMargin < 89.0)) return {};
  const double lo = std::tan((double(degrees) - kMargin) * kRad), hi = std::tan((double(degrees) + kMargin) * kRad);
  return {float(lo * lo), float(hi * hi)};
}

// What each instance of a species needs beyond its config, computed once per tile.
struct SpeciesConstants {
  uint64_t seed = 0;
  SlopeBound maxSlope, maxTilt;
  float sinMaxTilt = 0, cosMaxTilt = 1;
};

SpeciesConstants speciesConstants(const BiomeConfig& config, size_t id) {
  const SpeciesConfig& sp = config.species[id];
  SpeciesConstants c;
  c.seed = hashCombine(config.seed, 0x696e7374u + id);
  c.maxSlope = slopeBound(sp.maxSlopeDeg);
  c.maxTilt = slopeBound(sp.maxTiltDeg);
  const float angle = sp.maxTiltDeg * (std::numbers::pi_v<float> / 180.f);
  c.sinMaxTilt = std::sin(angle);
  c.cosMaxTilt = std::cos(angle);
  return c;
}

// Leans the up axis toward the terrain normal, by the normal's angle from up (of the central
// difference gradient, g2 = |gradient|^2; not the ecological slope) but at most maxTiltDeg: the
// normal itself where that angle is under the limit (always, for a limit of 90 degrees), else
// the normal's azimuth at the limit.
Vec3 tiltedUp(const SpeciesConfig& sp, const SpeciesConstants& c, Vec3 normal, float g2) {
  if (sp.maxTiltDeg <= 0.f) return {0, 1, 0};
  const float horizontal = std::sqrt(normal.x * normal.x + normal.z * normal.z);
  if (horizontal < 1e-6f) return {0, 1, 0};
  if (sp.maxTiltDeg >= 90.f || g2 < c.maxTilt.lo || (!(g2 > c.maxTilt.hi) && slopeDegrees(std::sqrt(g2)) < sp.maxTiltDeg))
    return normal;
  const float k = c.sinMaxTilt / horizontal;
  return {normal.x * k, c.cosMaxTilt, normal.z * k};
}

// The elevation weight's sign as smoothstep computes it. From max(min, opt_low) up to opt_high
// both smoothsteps are exactly 1 and 0 (also for degenerate or overflowing edges), so only the
// band's flanks need them.
bool insideBand(const ElevationBand& band, float height) {
  if (height >= band.min && height >= band.optLow && height < band.optHigh) return true;
  return !(elevationWeight(band, height) <= 0.f);
}

void appendInstance(const World& world, const HeightDerivatives& terrain, uint16_t id, const SpeciesConstants& c,
                    const Sample& sample, std::vector<Instance>& out) {
  const uint32_t cls = sample.cls;
  const SpeciesConfig& sp = world.config.species[id];
  const HeightGradient hg = terrain.at(sample.x, sample.z);
  if (!insideBand(sp.elevation, hg.height)) return;
  // Slope as surfaceAt's (slopeDegrees of the interpolated slope tangent, the same bits), so
  // no instance stands where the slope mask reads its maximum slope or more.
  const float t = hg.slopeTangent, t2 = t * t;
  if (!(t2 < c.maxSlope.lo) && (t2 > c.maxSlope.hi || slopeDegrees(t) >= sp.maxSlopeDeg)) return;
  // Normal with surfaceAt's expressions, so the same bits.
  // Nodata, painted maps and vector exclusions, exactly at the position: no instance where
  // the terrain has a hole in the interpolation's support, where the painted factor is 0, or
  // within a road's keep-out or inside an excluded area.
  if (world.terrain.noDataAt(sample.x, sample.z)) return;
  if (world.hasPaintedMaps(id) && !(world.paintedFactor(id, sample.x, sample.z) > 0.f)) return;
  if (world.shapes.excludes(id, double(sample.x), double(sample.z))) return;
  // Water is not ground, unless the species grows in it (the river layer's rule).
  if (!sp.growsInWater && world.inWater(sample.x, sample.z)) return;
  const Vec2 g = hg.gradient;
  const float g2 = g.x * g.x + g.z * g.z;
  const float invLength = 1.f / std::sqrt(g2 + 1.f);
  const Vec3 normal{-g.x * invLength, invLength, -g.z * invLength};

  uint64_t key = uint64_t(std::bit_cast<uint32_t>(sample.x)) | uint64_t(std::bit_cast<uint32_t>(sample.z)) << 32;
  Rng rng(hashCombine(c.seed, key));
  Instance& inst = out.emplace_back();
  inst.position = {sample.x, hg.height, sample.z};
  inst.species = id;
  inst.yaw = rng.uniform() * 2.f * std::numbers::pi_v<float>;
  // The size draw the sampler spaced the sample by (size-spacing coupling): big instances
  // are the ones with room.
  inst.scale = sp.scaleMin + (sp.scaleMax - sp.scaleMin) * sizeDraw(world.config.seed, int(cls), sample.x, sample.z);
  inst.up = tiltedUp(sp, c, normal, g2);
  inst.color = variedColor(sp, rng);
}

}  // namespace

// Instances by species, then sample order. Samples come by class, then generation order, so
// each class is one run: the runs are visited in species order instead of sorting.
std::vector<Instance> makeInstances(const World& world, const SpeciesOrder& order, const HeightDerivatives& terrain,
                                    const TileSamples& tile) {
  std::vector<Instance> out;
  out.reserve(tile.samples.size());
  std::vector<SpeciesConstants> constants(world.config.species.size());
  for (size_t id = 0; id < constants.size(); ++id) constants[id] = speciesConstants(world.config, id);
  const size_t classes = order.speciesOfClass.size();
  constexpr size_t kNone = ~size_t(0);
  std::vector<size_t> begin(classes, kNone), end(classes, 0);
  bool grouped = true;
  for (size_t i = 0; i < tile.samples.size(); ++i) {
    const uint32_t c = tile.samples[i].cls;
    if (begin[c] == kNone)
      begin[c] = i;
    else
      grouped &= end[c] == i;
    end[c] = i + 1;
  }
  if (!grouped) {
    for (const Sample& sample : tile.samples) {
      const uint16_t id = order.speciesOfClass[sample.cls];
      appendInstance(world, terrain, id, constants[id], sample, out);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Instance& a, const Instance& b) { return a.species < b.species; });
    return out;
  }
  std::vector<uint32_t> bySpecies(classes);
  for (uint32_t c = 0; c < classes; ++c) bySpecies[c] = c;
  std::stable_sort(bySpecies.begin(), bySpecies.end(),
            [&](uint32_t a, uint32_t b) { return order.speciesOfClass[a] < order.speciesOfClass[b]; });
  for (uint32_t c : bySpecies)
    for (size_t i = begin[c]; i < end[c]; ++i)  // absent classes: begin = kNone > end = 0
      appendInstance(world, terrain, order.speciesOfClass[c], constants[order.speciesOfClass[c]], tile.samples[i], out);
  return out;
}

}  // namespace eco
