// Placement quality (issue #15), with the measures of tests/placement_metrics.h:
//   placement_bench                       synthetic worlds, both methods
//   placement_bench BAKE [OTHER_BAKE]     per species of a finished bake: twins, tile-border
//                                         profile, folded tile map; with OTHER_BAKE, counts
//                                         as a ratio to it (e.g. a Bridson bake of the world)
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "placement_metrics.h"
#include "sampling_fixtures.h"
#include "sampling/sampling.h"
#include "tileio/tileio.h"

namespace {

using eco::metrics::Pt;

const char* methodName(eco::SamplerMethod m) { return m == eco::SamplerMethod::Pool ? "pool" : "bridson"; }

std::vector<std::vector<Pt>> byClass(const std::vector<eco::TileSamples>& tiles, size_t classes) {
  std::vector<std::vector<Pt>> out(classes);
  for (const eco::TileSamples& t : tiles)
    for (const eco::Sample& s : t.samples) out[s.cls].push_back({s.x, s.z});
  return out;
}

void printProfile(const eco::metrics::BorderProfile& p) {
  std::printf("    border profile (bins of r/4 from the tile edge):");
  for (double r : p.ratio) std::printf(" %.3f", r);
  std::printf("\n    worst |ratio - 1| %.3f, beyond 2 sigma %.3f\n", p.worstDeviation(), p.worstExcess());
}


void synthetic() {
  for (const eco::SamplerMethod method : {eco::SamplerMethod::Pool, eco::SamplerMethod::Bridson}) {
    std::printf("== %s\n", methodName(method));
    {
      // Uniform density, r = 1, 16 m tiles: 1024 tiles for the border measures.
      eco::SamplerParams p;
      p.worldX = p.worldZ = 512.f;
      p.tileSize = 16.f;
      p.seed = 7;
      p.method = method;
      p.classes = {{1.f, 1.f}};
      const auto t0 = std::chrono::steady_clock::now();
      const auto pts = byClass(eco::scatterAll(p, nullptr, 2), 1)[0];
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const auto twins = eco::metrics::worstTwins(pts, p.worldX, p.worldZ, {{256.f, 0.f}, {0.f, 256.f}, {256.f, 256.f}});
      const auto ref = eco::metrics::referenceMaximal(
          p.worldX, p.worldZ, 1.f, 1.f, [](float, float) { return 1.f; }, {}, 0.f, 100, 3);
      std::printf("  uniform r=1, 512 m, 16 m tiles: %zu points (%.0f ms, 2 threads), reference %zu: ratio %.4f\n",
                  pts.size(), ms, ref.size(), double(pts.size()) / double(ref.size()));
      std::printf("    twins: worst share %.5f at (%.2f, %.2f) of %d translations\n", twins.worstShare,
                  double(twins.tx), double(twins.tz), twins.candidates);
      printProfile(eco::metrics::borderProfile(pts, p.worldX, p.worldZ, p.tileSize, 0.25f, 3.f));
      std::printf("    folded 8x8 tile map: worst %.2f sigma\n", eco::metrics::foldedMaxSigma(pts, p.worldX, p.worldZ, p.tileSize, 8));
      p.tileSize = 128.f;
      const auto big = byClass(eco::scatterAll(p, nullptr, 2), 1)[0];
      printProfile(eco::metrics::borderProfile(big, p.worldX, p.worldZ, p.tileSize, 0.25f, 3.f));
      std::printf("    (128 m tiles) folded 16x16 tile map: worst %.2f sigma\n",
                  eco::metrics::foldedMaxSigma(big, p.worldX, p.worldZ, p.tileSize, 16));
    }
    {
      // Trees (r 4) then grass (r 0.5, variable density) kept 2 m from every tree.
      eco::SamplerParams p;
      p.worldX = p.worldZ = 256.f;
      p.tileSize = 32.f;
      p.seed = 11;
      p.method = method;
      p.classes = {{4.f, 8.f}, {0.5f, 2.f}};
      p.classDistance = {0.f, 2.f, 2.f, 0.f};
      const eco::test::TreesAndGrass field;
      const auto cls = byClass(eco::scatterAll(p, &field, 2), 2);
      const auto refTrees = eco::metrics::referenceMaximal(
          p.worldX, p.worldZ, 4.f, 8.f, [&](float x, float z) { return field.density(0, x, z); }, {}, 0.f, 100, 5);
      const auto refGrass = eco::metrics::referenceMaximal(
          p.worldX, p.worldZ, 0.5f, 2.f, [&](float x, float z) { return field.density(1, x, z); }, cls[0], 2.f, 100, 6);
      std::printf("  trees + grass 2 m from trees, 256 m: trees %zu / reference %zu = %.4f, grass %zu / reference %zu "
                  "(same trees) = %.4f\n",
                  cls[0].size(), refTrees.size(), double(cls[0].size()) / double(refTrees.size()), cls[1].size(),
                  refGrass.size(), double(cls[1].size()) / double(refGrass.size()));
    }
  }
}

int bake(const std::string& dir, const std::string& other) {
  auto load = [](const std::string& d, eco::Manifest& m) {
    m = eco::readManifest(d);
    std::vector<std::vector<Pt>> out(m.species.size());
    for (const eco::TileEntry& e : m.tiles)
      for (const eco::Instance& i : eco::readTileVerified(d, m, e).instances)
        out[i.species].push_back({i.position.x, i.position.z});
    return out;
  };
  eco::Manifest m, mo;
  const auto species = load(dir, m);
  const auto others = other.empty() ? std::vector<std::vector<Pt>>{} : load(other, mo);
  const float W = m.world.sizeX, H = m.world.sizeZ, tile = m.tiling.tileSize;
  for (size_t s = 0; s < species.size(); ++s) {
    const std::vector<Pt>& pts = species[s];
    if (pts.size() < 100) continue;
    // The radius: the smallest nearest-neighbour distance (the sampler's exact minimum), over
    // every 7th point, searched out to twice the mean spacing.
    const float reach = 2.f * std::sqrt(W * H / float(pts.size()));
    const eco::metrics::PointIndex index(pts, W, H, reach);
    float r = 1e9f;
    for (size_t i = 0; i < pts.size(); i += 7)
      index.forNear(pts[i].x, pts[i].z, reach, [&](uint32_t k) {
        const float dx = pts[k].x - pts[i].x, dz = pts[k].z - pts[i].z, d = std::sqrt(dx * dx + dz * dz);
        if (k != i && d > 0) r = std::min(r, d);
      });
    const auto twins = eco::metrics::worstTwins(pts, W, H);
    const auto profile = eco::metrics::borderProfile(pts, W, H, tile, 0.25f * r, 3.f * r);
    std::printf("%-16s %9zu", m.species[s].name.c_str(), pts.size());
    if (!others.empty() && s < others.size()) std::printf("  / other %9zu = %.4f", others[s].size(), double(pts.size()) / double(others[s].size()));
    std::printf("  r~%.2f  twins %.5f  border worst %.3f (beyond 2 sigma %.3f)  folded %.1f sigma\n", double(r),
                twins.worstShare, profile.worstDeviation(), profile.worstExcess(),
                eco::metrics::foldedMaxSigma(pts, W, H, tile, 16));
    if (std::getenv("ECO_PROFILE")) {
      printProfile(profile);
      // The same measure against a grid shifted by half a tile, which no sampler follows: how
      // far the terrain alone moves it.
      std::vector<Pt> shifted;
      for (const Pt& q : pts)
        if (q.x >= 0.5f * tile && q.z >= 0.5f * tile) shifted.push_back({q.x - 0.5f * tile, q.z - 0.5f * tile});
      std::printf("    against a grid shifted by half a tile:\n");
      printProfile(eco::metrics::borderProfile(shifted, W - 0.5f * tile, H - 0.5f * tile, tile, 0.25f * r, 3.f * r));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2) return bake(argv[1], argc >= 3 ? argv[2] : "");
  synthetic();
  return 0;
}
