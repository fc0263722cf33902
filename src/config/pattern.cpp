// Species point patterns: the kinds' natural defaults, the sampler class of a species, and
// the density that gives a species the cover it asks for. Design and figures: docs/ecology.md.
#include <algorithm>
#include <cmath>

#include "config/config.h"

namespace eco {

PatternConfig naturalPattern(SpeciesKind kind, float radius) {
  PatternConfig p;
  p.style = PatternStyle::Natural;
  p.sizeSpacing = 1.f;
  switch (kind) {
    case SpeciesKind::Tree:
      // Canopy trees: mildly regular (competition), clearings a few crowns wide.
      p.hardCore = 0.55f;
      p.gapShare = 0.12f;
      p.gapSize = 5.f * radius;
      break;
    case SpeciesKind::Shrub:
      p.hardCore = 0.6f;
      p.clumpRadius = 3.f * radius;
      p.clumpShare = 0.2f;
      p.clumpBetween = 0.04f;
      break;
    case SpeciesKind::Grass:
      p.hardCore = 0.6f;
      p.clumpRadius = 6.f * radius;
      p.clumpShare = 0.3f;
      p.clumpBetween = 0.05f;
      break;
    case SpeciesKind::GroundCover:
      p.hardCore = 0.6f;
      p.clumpRadius = 5.f * radius;
      p.clumpShare = 0.3f;
      p.clumpBetween = 0.05f;
      break;
  }
  return p;
}

SampleClass sampleClass(const SpeciesConfig& sp, bool variableRadius) {
  const PatternConfig& pt = sp.pattern;
  SampleClass k;
  k.radius = sp.radius;
  k.maxRadius = sp.radius * std::max(1.f, sp.maxRadiusFactor);
  // Woody species make the canopy that the understory answers (grass and ground cover do not).
  if (sp.kind == SpeciesKind::Tree || sp.kind == SpeciesKind::Shrub) {
    k.crownLo = sp.crownRadius * sp.scaleMin;
    k.crownHi = sp.crownRadius * sp.scaleMax;
  }
  if (pt.style == PatternStyle::Packed) return k;
  const float h = pt.hardCore;
  k.radius = sp.radius * h;
  k.maxRadius = k.radius * std::max(1.f, sp.maxRadiusFactor);
  if (variableRadius && sp.scaleMin > 0.f) k.sizeSpread = 1.f + pt.sizeSpacing * (sp.scaleMax / sp.scaleMin - 1.f);
  // Thinning back to the count of a packing at `radius`: a packing's count goes as 1 / r^2,
  // and a mix of spacings r m (m uniform in [1, S]) packs like r sqrt(E[m^2]).
  const float s1 = k.sizeSpread - 1.f;
  const float meanM2 = 1.f + s1 + s1 * s1 / 3.f;
  k.keep = std::min(1.f, h * h * meanM2);
  if (pt.clumpShare > 0.f) {
    k.clumps = makePatchField(pt.clumpShare, pt.clumpRadius, 0x636c756d70ull);
    k.between = pt.clumpBetween;
  }
  // Gaps of one size are the same clearings for every species of a layer that has them.
  if (pt.gapShare > 0.f) k.gaps = makePatchField(pt.gapShare, pt.gapSize / 2.f, 0x6761707300ull + uint64_t(unsigned(sp.layer)));
  const float clumpMean = k.clumps.active() ? k.clumps.share + (1.f - k.clumps.share) * k.between : 1.f;
  const float gapMean = k.gaps.active() ? 1.f - k.gaps.share : 1.f;
  k.patternMean = std::max(1e-3f, clumpMean * gapMean);
  const float contrast = std::max(1.f, pt.canopyContrast);
  if (pt.canopy == CanopyResponse::Shade) k.inOpen = 1.f / contrast;
  if (pt.canopy == CanopyResponse::Sun) k.underCrown = 1.f / contrast;
  return k;
}

namespace {

// Share of the inner square (a crown's width in from each edge) under the crowns of the
// species sampled at density d on a flat patch of `side` metres.
float coverAt(const SpeciesConfig& sp, uint64_t seed, float side, float density) {
  SamplerParams p;
  p.worldX = p.worldZ = side;
  p.seed = seed;
  p.classes.push_back(sampleClass(sp, true));
  p.tileSize = std::max(side / 4, minTileSize(p));
  p.worldX = p.worldZ = side = std::max(side, p.tileSize);
  const UniformDensity field(density);
  const std::vector<TileSamples> tiles = scatterAll(p, &field, 1);
  const float crownMax = sp.crownRadius * sp.scaleMax, margin = crownMax;
  // Pixel centres sample the ground (unbiased at any pixel size); at most 2048^2 of them.
  const float pixel = std::max(std::max(sp.crownRadius * sp.scaleMin, 1e-3f) / 2.f, side / 2048.f);
  const int n = std::max(1, int((side - 2 * margin) / pixel));
  std::vector<uint8_t> under(size_t(n) * size_t(n), 0);
  for (const TileSamples& t : tiles)
    for (const Sample& s : t.samples) {
      const float r = sp.crownRadius * (sp.scaleMin + (sp.scaleMax - sp.scaleMin) * sizeDraw(seed, 0, s.x, s.z));
      const int i0 = std::max(0, int((s.x - r - margin) / pixel)), i1 = std::min(n - 1, int((s.x + r - margin) / pixel));
      const int j0 = std::max(0, int((s.z - r - margin) / pixel)), j1 = std::min(n - 1, int((s.z + r - margin) / pixel));
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
          const float dx = margin + (float(i) + 0.5f) * pixel - s.x, dz = margin + (float(j) + 0.5f) * pixel - s.z;
          if (dx * dx + dz * dz <= r * r) under[size_t(j) * size_t(n) + size_t(i)] = 1;
        }
    }
  size_t covered = 0;
  for (const uint8_t u : under) covered += u;
  return float(double(covered) / double(under.size()));
}

}  // namespace

float densityForCover(const SpeciesConfig& sp, uint64_t seed, float cover, float* reached) {
  // A patch wide enough for the pattern's clumps and gaps to average out (about 6400 cells of
  // their patch fields: a share within about 1.5 %), at most 1000 radii across.
  const PatternConfig& pt = sp.pattern;
  float side = 80.f * sp.radius;
  if (pt.style == PatternStyle::Natural) {
    if (pt.gapShare > 0.f) side = std::max(side, 120.f * pt.gapSize);
    if (pt.clumpShare > 0.f) side = std::max(side, 240.f * pt.clumpRadius);
  }
  side = std::min(side, 1000.f * sp.radius);
  const float full = coverAt(sp, seed, side, 1.f);
  if (reached) *reached = full;
  if (!(full > cover)) return 1.f;
  // Cover grows with density (more crowns); bisection on log density.
  float lo = std::log(1e-3f), hi = 0.f;
  for (int it = 0; it < 10; ++it) {
    const float mid = 0.5f * (lo + hi);
    (coverAt(sp, seed, side, std::exp(mid)) < cover ? lo : hi) = mid;
  }
  return std::exp(0.5f * (lo + hi));
}

}  // namespace eco
