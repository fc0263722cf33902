// loadExclusionShapes (GeoJSON roads and areas for vector_exclusions) on arbitrary file
// contents, then exact queries against what it accepted: a 1000 m world, two species (a tree
// and a grass), one file for every species and one for trees only.
#include <cmath>
#include <vector>

#include "config/config.h"
#include "core/error.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = eco::fuzz::writeInput("roads.geojson", data, size);
  eco::BiomeConfig config;
  for (eco::SpeciesKind kind : {eco::SpeciesKind::Tree, eco::SpeciesKind::Grass}) {
    eco::SpeciesConfig& s = config.species.emplace_back();
    s.kind = kind;
    s.name = kind == eco::SpeciesKind::Tree ? "tree" : "grass";
    s.footprint = kind == eco::SpeciesKind::Tree ? 1.5f : 0.f;
  }
  config.vectorExclusions.push_back({path, {}, {}});
  config.vectorExclusions.push_back({path, {}, {eco::SpeciesKind::Tree}});
  try {
    std::vector<eco::ConfigProblem> problems;
    const eco::ExclusionShapes shapes = eco::loadExclusionShapes(config, 1000.0, 1000.0, problems);
    for (const eco::ConfigProblem& p : problems) (void)eco::formatProblem("config.json", p);
    // What the index promises: every query answers (no out-of-range bucket), and a point on
    // a road's centre line is excluded for every species it applies to.
    if (problems.empty()) {
      for (double x = 0; x <= 1000.0; x += 97.3)
        for (double z = 0; z <= 1000.0; z += 101.7) (void)shapes.excludes(0, x, z), (void)shapes.excludes(1, x, z);
      for (const eco::ExclusionShapes::Segment& s : shapes.segments)
        if (s.halfWidth > 1e-6 && !shapes.excludes(1, (s.ax + s.bx) / 2, (s.az + s.bz) / 2)) __builtin_trap();
    }
  } catch (const eco::InputError&) {
  }
  return 0;
}
