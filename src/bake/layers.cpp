// The bake's raster layers (tileio.h LayerEntry, docs/tile-format.md "Layers"): the river's
// distance field, and on request the eco-masks and each species' suitability, each sampled at
// the heightmap's pixels from the whole world, so every bake of a world (any -j, any tile
// range, any shard) writes the same layers.
#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>

#include "bake/bake.h"
#include "core/hash.h"

namespace eco {

namespace {

// f(i, j, k) at every heightmap pixel (k: its index, row-major), rows split over threads
// (each pixel on its own, so any split gives the same values).
void forEachPixel(const Grid& grid, int threads, const std::function<void(int, int, size_t)>& f) {
  auto rows = [&](int first, int step) {
    for (int j = first; j < grid.height; j += step)
      for (int i = 0; i < grid.width; ++i) f(i, j, size_t(j) * size_t(grid.width) + size_t(i));
  };
  threads = std::clamp(threads, 1, std::max(1, grid.height));
  std::vector<std::jthread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(rows, t, threads);
  rows(0, threads);
}

LayerEntry layerEntry(const Grid& grid, std::string name, std::string kind, LayerEncoding encoding, float lo,
                      float hi, std::string unit, const std::string& fileStem) {
  LayerEntry e;
  e.name = std::move(name);
  e.kind = std::move(kind);
  e.file = "layers/" + fileStem + (encoding == LayerEncoding::Unorm16 ? ".r16" : ".r8");
  e.width = grid.width;
  e.height = grid.height;
  e.encoding = encoding;
  e.valueMin = lo;
  e.valueMax = hi > lo ? hi : lo + 1;  // a constant field still needs a range
  e.unit = std::move(unit);
  return e;
}

BakeLayer finished(LayerEntry entry, std::vector<uint8_t> bytes) {
  entry.checksum = checksum64(bytes);
  return {std::move(entry), std::move(bytes)};
}

}  // namespace

float waterDistance(const World& world) { return world.waterDistance; }

void bakeLayers(const World& world, const SuitabilityField& suitability, bool masks, int threads,
                const std::function<void(BakeLayer&&)>& write) {
  const Heightmap& t = world.terrain;
  const Grid& grid = t.metres;
  const float cell = t.cellSize;
  const size_t n = grid.values.size();
  if (world.hasRiver) {
    // The distance to the nearest river at each heightmap pixel, as the masks read it
    // (bilinear in the river field, which may have another resolution). 16 bits over
    // [0, largest distance], capped at kRiverLayerMaxDistance so that the step stays at most
    // 0.25 m for the water's edge; farther pixels read the cap.
    std::vector<float> d(n);
    forEachPixel(grid, threads, [&](int i, int j, size_t k) { d[k] = world.river.distanceAt(float(i) * cell, float(j) * cell); });
    const float largest = *std::max_element(d.begin(), d.end());
    LayerEntry river = layerEntry(grid, "river_distance", "river", LayerEncoding::Unorm16, 0.f,
                                  std::min(largest, kRiverLayerMaxDistance), "m", "river_distance");
    river.waterDistance = waterDistance(world);
    std::vector<uint8_t> bytes = encodeLayer(river, d);
    d = {};
    write(finished(std::move(river), std::move(bytes)));
  }
  if (!masks) return;

  // The masks' own per-pixel functions (masks.h: environmentAt's parts, with the aspect), at
  // the pixels the suitability rasters use, all five in one pass, each pixel quantised at once
  // (one byte a mask: the bake holds 5 bytes per pixel here, less than the terrain's 4 plus
  // each species' suitability raster).
  auto [lo, hi] = std::minmax_element(grid.values.begin(), grid.values.end());
  std::vector<LayerEntry> entries = {
      layerEntry(grid, "elevation", "mask", LayerEncoding::Unorm8, *lo, *hi, "m", "elevation"),
      layerEntry(grid, "slope", "mask", LayerEncoding::Unorm8, 0.f, 90.f, "deg", "slope"),
      layerEntry(grid, "aspect", "mask", LayerEncoding::Unorm8, 0.f, 360.f, "deg", "aspect"),
      layerEntry(grid, "sun_exposure", "mask", LayerEncoding::Unorm8, -1.f, 1.f, "", "sun_exposure"),
      layerEntry(grid, "moisture", "mask", LayerEncoding::Unorm8, 0.f, 1.f, "", "moisture")};
  std::vector<std::vector<uint8_t>> codes(entries.size(), std::vector<uint8_t>(n));
  forEachPixel(grid, threads, [&](int i, int j, size_t k) {
    const float x = float(i) * cell, z = float(j) * cell;
    const SurfaceSample s = surfaceAt(t, x, z, world.sunDirXZ);
    const float values[] = {t.heightAt(x, z), s.slopeDeg, s.aspectDeg, s.sunExposure, moistureAt(world, x, z)};
    for (size_t m = 0; m < entries.size(); ++m) codes[m][k] = uint8_t(layerCodeOf(entries[m], values[m]));
  });
  for (size_t m = 0; m < entries.size(); ++m) write(finished(std::move(entries[m]), std::move(codes[m])));
  // The rasters the sampler reads (painted maps, nodata and vector exclusions included). File
  // names by species id: names may hold spaces and any letter.
  // One species' raster at a time: the field's own where it keeps them, else computed pixel
  // by pixel (the values fill gives).
  std::vector<float> raster(n);
  for (size_t s = 0; s < world.config.species.size(); ++s) {
    if (const float* kept = suitability.raster(int(s)))
      std::copy(kept, kept + n, raster.begin());
    else
      forEachPixel(grid, threads, [&](int i, int j, size_t k) { raster[k] = suitability.pixel(int(s), i, j); });
    LayerEntry e = layerEntry(grid, "suitability_" + world.config.species[s].name, "suitability", LayerEncoding::Unorm8,
                              0.f, 1.f, "", "suitability_" + std::to_string(s));
    e.species = world.config.species[s].name;
    std::vector<uint8_t> bytes = encodeLayer(e, raster);
    write(finished(std::move(e), std::move(bytes)));
  }
}

}  // namespace eco
