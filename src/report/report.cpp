// `ecobake report`: a bake's ecology at a glance (report.h, docs/ci.md).
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "core/output_dir.h"
#include "report/report.h"
#include "report/terrain_bins.h"
#include "terrain/png16.h"

namespace eco {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

PatternStats patternStats(const std::vector<Point2>& all, const std::array<double, 4>& window, const std::vector<double>& radii,
                          double ringWidth, double histogramBin) {
  PatternStats st;
  st.radii = radii;
  st.ringWidth = ringWidth;
  st.histogramBin = histogramBin;
  st.g.assign(radii.size(), 0.0);
  st.nearestHistogram.assign(16, 0);
  const double area = (window[2] - window[0]) * (window[3] - window[1]);
  std::vector<size_t> inside;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].x >= window[0] && all[i].x < window[2] && all[i].z >= window[1] && all[i].z < window[3]) inside.push_back(i);
  st.points = inside.size();
  if (inside.size() < 2 || !(area > 0)) return st;
  st.intensity = double(inside.size()) / area;
  // A grid over every point, cells about two mean spacings wide.
  double x0 = all[0].x, x1 = x0, z0 = all[0].z, z1 = z0;
  for (const Point2& p : all) x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), z0 = std::min(z0, p.z), z1 = std::max(z1, p.z);
  const double cell = std::max(2.0 / std::sqrt(st.intensity), 1e-3);
  const int nx = std::min(int((x1 - x0) / cell) + 1, 4096), nz = std::min(int((z1 - z0) / cell) + 1, 4096);
  const double cx = (x1 - x0) / nx + 1e-12, cz = (z1 - z0) / nz + 1e-12;
  std::vector<std::vector<uint32_t>> grid(size_t(nx) * size_t(nz));
  auto cellOf = [&](const Point2& p, int& i, int& j) {
    i = std::min(int((p.x - x0) / cx), nx - 1), j = std::min(int((p.z - z0) / cz), nz - 1);
  };
  for (size_t k = 0; k < all.size(); ++k) {
    int i, j;
    cellOf(all[k], i, j);
    grid[size_t(j) * size_t(nx) + size_t(i)].push_back(uint32_t(k));
  }
  const double reach = radii.empty() ? 0.0 : radii.back() + 0.5 * ringWidth;
  double sumNearest = 0;
  std::vector<uint64_t> ring(radii.size(), 0);
  for (size_t k : inside) {
    const Point2& p = all[k];
    int pi, pj;
    cellOf(p, pi, pj);
    double best = std::numeric_limits<double>::infinity();
    // rings of cells outward until the nearest found is closer than any unvisited cell
    for (int r = 0;; ++r) {
      for (int j = pj - r; j <= pj + r; ++j)
        for (int i = pi - r; i <= pi + r; ++i) {
          if (std::max(std::abs(i - pi), std::abs(j - pj)) != r || i < 0 || j < 0 || i >= nx || j >= nz) continue;
          for (uint32_t q : grid[size_t(j) * size_t(nx) + size_t(i)]) {
            if (q == k) continue;
            const double d = std::hypot(all[q].x - p.x, all[q].z - p.z);
            best = std::min(best, d);
            if (d < reach)
              for (size_t b = 0; b < radii.size(); ++b)
                if (d >= radii[b] - 0.5 * ringWidth && d < radii[b] + 0.5 * ringWidth) ++ring[b];
          }
        }
      const double covered = double(r) * std::min(cx, cz);  // every point closer than this is seen
      if ((best <= covered && covered >= reach) || (r > nx && r > nz)) break;
    }
    sumNearest += best;
    ++st.nearestHistogram[std::min(size_t(best / histogramBin), size_t(15))];
  }
  st.meanNearest = sumNearest / double(inside.size());
  st.clarkEvans = st.meanNearest / (0.5 / std::sqrt(st.intensity));
  for (size_t b = 0; b < radii.size(); ++b) {
    // pairs at distance in the ring over those a Poisson pattern of the same intensity gives
    const double lo = std::max(radii[b] - 0.5 * ringWidth, 0.0), hi = radii[b] + 0.5 * ringWidth;
    const double expected = double(inside.size()) * st.intensity * std::numbers::pi * (hi * hi - lo * lo);
    st.g[b] = expected > 0 ? double(ring[b]) / expected : 0.0;
  }
  return st;
}

namespace {

// Crowns are rasterised per tile at 0.25 m, or coarser for tiles over 1024 m so that a tile's
// bitmap stays within 4096 x 4096 pixels (2 MiB a species).
constexpr double kCoverPixel = 0.25;
constexpr int kMaxCoverSide = 4096;
constexpr int kMapSide = 256;         // density maps, pixels on the longer side
constexpr int kSpeciesMapSide = 768;  // the species map

// Colour ramp of the density maps: dark to light, 0 transparent-ish grey (viridis stops).
std::array<uint8_t, 3> ramp(double t) {
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int i = std::min(int(t), 3);
  const double f = t - i;
  std::array<uint8_t, 3> c{};
  for (int k = 0; k < 3; ++k) c[size_t(k)] = uint8_t(std::lround(stops[i][k] * (1 - f) + stops[i + 1][k] * f));
  return c;
}

// Species colours on the species map: twelve well-separated hues (the config's own colours are
// mostly similar greens), repeated past twelve species.
std::array<uint8_t, 3> categorical(size_t i) {
  static const uint8_t colours[12][3] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                                         {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                         {188, 189, 34}, {23, 190, 207}, {0, 0, 128}, {128, 0, 0}};
  return {colours[i % 12][0], colours[i % 12][1], colours[i % 12][2]};
}

std::string htmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;  // attributes are single-quoted
      default: out += c;
    }
  }
  return out;
}

// File names from species names: letters, digits, '-' and '_' kept, others '_', and the id.
std::string fileStem(const SpeciesRecord& s) {
  std::string out = "sp" + std::to_string(s.id) + "_";
  for (char c : s.name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out;
}

// Bars of shares (percent) as inline SVG: a small plot per mask.
std::string barsSvg(const std::vector<double>& shares, const std::vector<double>* rule, const std::vector<std::string>& labels) {
  const int w = 22 * int(shares.size()) + 10, h = 90;
  double top = 1;
  for (double v : shares) top = std::max(top, v);
  if (rule)
    for (double v : *rule) top = std::max(top, v);
  std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(w + 30) + "' height='" + std::to_string(h + 60) + "'>";
  for (size_t i = 0; i < shares.size(); ++i) {
    // the plants' share (dark), and beside it the share of the species' suitability (light)
    const int bh = int(std::lround(shares[i] / top * h));
    char buf[768];
    std::snprintf(buf, sizeof buf,
                  "<rect x='%zu' y='%d' width='%d' height='%d' fill='#3b528b'><title>%s: %.1f %% of the plants</title></rect>"
                  "<text x='%zu' y='%d' font-size='8' transform='rotate(60 %zu %d)'>%s</text>",
                  5 + 22 * i, h - bh, rule ? 9 : 18, bh, htmlEscape(labels[i]).c_str(), shares[i], 5 + 22 * i, h + 8, 5 + 22 * i,
                  h + 8, htmlEscape(labels[i]).c_str());
    svg += buf;
    if (rule) {
      const int rh = int(std::lround((*rule)[i] / top * h));
      std::snprintf(buf, sizeof buf,
                    "<rect x='%zu' y='%d' width='9' height='%d' fill='#f0a030'><title>%s: %.1f %% of the suitability</title></rect>",
                    14 + 22 * i, h - rh, rh, htmlEscape(labels[i]).c_str(), (*rule)[i]);
      svg += buf;
    }
  }
  return svg + "</svg>";
}

}  // namespace

uint64_t writeReport(const std::string& bakeDir, const std::string& outDir, const std::function<void(int, int)>& progress) {
  if (outDir.empty()) throw InputError("output name is empty (-o \"\")");
  if (isInsideFolder(outDir, bakeDir))
    throw InputError(outDir + ": is inside the bake being reported (" + bakeDir + "); write the report elsewhere");
  const Manifest m = readManifest(bakeDir);
  const std::vector<float> heights = readTerrainRaw(bakeDir, m);
  const size_t n = m.species.size();
  const double tileSize = double(m.tiling.tileSize);
  // The region the bake holds: the rectangle of its tiles (the whole world for a whole bake, the
  // --tiles range for a partial one, less any rows or columns of edge tiles without plants).
  int rx0 = m.tiling.tilesX, rz0 = m.tiling.tilesZ, rx1 = 0, rz1 = 0;
  for (const TileEntry& e : m.tiles) rx0 = std::min(rx0, e.x), rz0 = std::min(rz0, e.z), rx1 = std::max(rx1, e.x + 1), rz1 = std::max(rz1, e.z + 1);
  if (m.tiles.empty()) rx0 = rz0 = 0, rx1 = m.tiling.tilesX, rz1 = m.tiling.tilesZ;
  const double regionX0 = rx0 * tileSize, regionZ0 = rz0 * tileSize;
  const double regionX1 = std::min(rx1 * tileSize, double(m.world.sizeX)), regionZ1 = std::min(rz1 * tileSize, double(m.world.sizeZ));
  const double worldArea = std::max(regionX1 - regionX0, 0.0) * std::max(regionZ1 - regionZ0, 0.0);
  const BinTerrain terrain{heights, m.terrain.width, m.terrain.height, m.terrain.cellSize, m.world.minY, m.world.maxY};

  // The river layer's water rule, when the bake has one: nearest sample's distance at most waterDistance.
  const LayerEntry* river = nullptr;
  for (const LayerEntry& l : m.layers)
    if (l.kind == "river" && l.waterDistance >= 0) river = &l;
  const std::vector<uint8_t> riverBytes = river ? readLayerVerified(bakeDir, *river) : std::vector<uint8_t>{};

  // Moisture, a fourth mask, when the bake carries its layer (`--layers masks`).
  const LayerEntry* moisture = nullptr;
  for (const LayerEntry& l : m.layers)
    if (l.kind == "mask" && l.name == "moisture") moisture = &l;
  const std::vector<uint8_t> moistureBytes = moisture ? readLayerVerified(bakeDir, *moisture) : std::vector<uint8_t>{};
  const int masks = moisture ? kMasks + 1 : kMasks;
  // the moisture band of terrain sample (i, j)
  auto moistureBin = [&](int i, int j) {
    const float v = layerValue(*moisture, layerCode(*moisture, moistureBytes, size_t(j) * size_t(moisture->width) + size_t(i)));
    return std::clamp(int(v * float(TerrainBins::kMoistureBins)), 0, TerrainBins::kMoistureBins - 1);
  };

  const OutputKind kind = markedOutput("ecobake report", "ecobake report", "report", "report.json", "ecobake-report",
                                       uint64_t(16) << 20, {"maps"});
  StagedDir staged(outDir, kind);
  const fs::path root(staged.staging);
  fs::create_directory(root / "maps");

  // Pass 1: every tile once.
  const int mapW = m.world.sizeX >= m.world.sizeZ ? kMapSide : std::max(1, int(kMapSide * m.world.sizeX / m.world.sizeZ));
  const int mapH = m.world.sizeX >= m.world.sizeZ ? std::max(1, int(kMapSide * m.world.sizeZ / m.world.sizeX)) : kMapSide;
  const int spW = mapW * kSpeciesMapSide / kMapSide, spH = mapH * kSpeciesMapSide / kMapSide;
  std::vector<std::vector<uint32_t>> density(n, std::vector<uint32_t>(size_t(mapW) * size_t(mapH), 0));
  std::vector<float> topHeight(size_t(spW) * size_t(spH), -1.f);
  std::vector<uint16_t> topSpecies(size_t(spW) * size_t(spH), 0);
  std::vector<std::vector<std::vector<uint64_t>>> bins(n);
  for (auto& b : bins) {
    b.assign(size_t(masks), {});
    for (int k = 0; k < masks; ++k) b[size_t(k)].assign(size_t(TerrainBins::binCount(k)), 0);
  }
  std::vector<double> covered(n, 0.0);
  std::vector<uint64_t> inWater(n, 0), counted(n, 0);
  const double coverPixel = std::max(kCoverPixel, tileSize / kMaxCoverSide);
  const int coverSide = int(std::ceil(tileSize / coverPixel));
  std::vector<std::vector<uint64_t>> coverBits(n);
  int done = 0;
  for (const TileEntry& e : m.tiles) {
    const TileData tile = readTileVerified(bakeDir, m, e);
    const double tx0 = double(e.x) * tileSize, tz0 = double(e.z) * tileSize;
    for (auto& bits : coverBits) bits.assign(size_t(coverSide) * size_t(coverSide) / 64 + 1, 0);
    std::vector<bool> touched(n, false);
    for (const Instance& in : tile.instances) {
      const SpeciesRecord& s = m.species[in.species];
      ++counted[in.species];
      int bin[kMasks + 1];
      terrain.bins(in.position.x, in.position.z, bin);
      if (moisture)
        bin[kMasks] = moistureBin(std::clamp(int(std::lround(in.position.x / m.terrain.cellSize)), 0, moisture->width - 1),
                                  std::clamp(int(std::lround(in.position.z / m.terrain.cellSize)), 0, moisture->height - 1));
      for (int k = 0; k < masks; ++k) ++bins[in.species][size_t(k)][size_t(bin[k])];
      const int mx = std::clamp(int(in.position.x / m.world.sizeX * float(mapW)), 0, mapW - 1);
      const int mz = std::clamp(int(in.position.z / m.world.sizeZ * float(mapH)), 0, mapH - 1);
      ++density[in.species][size_t(mz) * size_t(mapW) + size_t(mx)];
      const int sx = std::clamp(int(in.position.x / m.world.sizeX * float(spW)), 0, spW - 1);
      const int sz = std::clamp(int(in.position.z / m.world.sizeZ * float(spH)), 0, spH - 1);
      const float top = s.meshHeight * in.scale;
      float& best = topHeight[size_t(sz) * size_t(spW) + size_t(sx)];
      if (top > best) best = top, topSpecies[size_t(sz) * size_t(spW) + size_t(sx)] = in.species;
      if (river) {
        // the layer's distance, bilinear between its samples as the bake reads its river field
        const float fx = std::clamp(in.position.x / m.terrain.cellSize, 0.f, float(river->width - 1));
        const float fz = std::clamp(in.position.z / m.terrain.cellSize, 0.f, float(river->height - 1));
        const int i = std::min(int(fx), river->width - 2), j = std::min(int(fz), river->height - 2);
        auto at = [&](int a, int b) {
          return layerValue(*river, layerCode(*river, riverBytes, size_t(b) * size_t(river->width) + size_t(a)));
        };
        const float u = fx - float(i), v = fz - float(j);
        const float d = (at(i, j) * (1 - u) + at(i + 1, j) * u) * (1 - v) + (at(i, j + 1) * (1 - u) + at(i + 1, j + 1) * u) * v;
        if (d <= river->waterDistance) ++inWater[in.species];
      }
      // the crown, clipped to its tile, into the tile's bitmap of pixel centres
      const double r = double(s.crownRadius) * double(in.scale);
      const double px = double(in.position.x) - tx0, pz = double(in.position.z) - tz0;
      const int i0 = std::max(0, int(std::floor((px - r) / coverPixel))), i1 = std::min(coverSide - 1, int(std::floor((px + r) / coverPixel)));
      const int j0 = std::max(0, int(std::floor((pz - r) / coverPixel))), j1 = std::min(coverSide - 1, int(std::floor((pz + r) / coverPixel)));
      std::vector<uint64_t>& bits = coverBits[in.species];
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
          const double dx = (i + 0.5) * coverPixel - px, dz = (j + 0.5) * coverPixel - pz;
          if (dx * dx + dz * dz > r * r) continue;
          const size_t bit = size_t(j) * size_t(coverSide) + size_t(i);
          bits[bit >> 6] |= uint64_t(1) << (bit & 63);
        }
      touched[in.species] = true;
    }
    for (size_t s = 0; s < n; ++s)
      if (touched[s]) {
        uint64_t set = 0;
        for (uint64_t w : coverBits[s]) set += uint64_t(std::popcount(w));
        covered[s] += double(set) * coverPixel * coverPixel;
      }
    if (progress) progress(++done, int(m.tiles.size()) + int(n));
  }

  // The rule beside the result: with the bake's suitability layers (`--layers masks`), each
  // species' suitability summed over the terrain samples of each bin, as shares.
  std::vector<std::vector<std::vector<double>>> rule(n);
  {
    std::vector<const LayerEntry*> layerOf(n, nullptr);
    bool any = false;
    for (const LayerEntry& l : m.layers)
      for (size_t s = 0; s < n; ++s)
        if (l.kind == "suitability" && l.species == m.species[s].name) layerOf[s] = &l, any = true;
    if (any) {
      const int W = m.terrain.width, H = m.terrain.height;
      std::vector<std::array<uint8_t, kMasks + 1>> pixelBins(size_t(W) * size_t(H));
      for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) {
          int b[kMasks + 1];
          terrain.bins(float(i) * m.terrain.cellSize, float(j) * m.terrain.cellSize, b);
          if (moisture) b[kMasks] = moistureBin(i, j);
          for (int k = 0; k < masks; ++k) pixelBins[size_t(j) * size_t(W) + size_t(i)][size_t(k)] = uint8_t(b[k]);
        }
      // only the terrain of the region the plants were baked in
      std::vector<uint8_t> inRegion(pixelBins.size(), 0);
      for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) {
          const double x = double(i) * double(m.terrain.cellSize), z = double(j) * double(m.terrain.cellSize);
          inRegion[size_t(j) * size_t(W) + size_t(i)] = x >= regionX0 && x <= regionX1 && z >= regionZ0 && z <= regionZ1;
        }
      for (size_t s = 0; s < n; ++s) {
        if (!layerOf[s]) continue;
        const std::vector<uint8_t> bytes = readLayerVerified(bakeDir, *layerOf[s]);
        rule[s].assign(size_t(masks), {});
        for (int k = 0; k < masks; ++k) rule[s][size_t(k)].assign(size_t(TerrainBins::binCount(k)), 0.0);
        double sum = 0;
        for (size_t p = 0; p < pixelBins.size(); ++p) {
          if (!inRegion[p]) continue;
          const double v = double(layerValue(*layerOf[s], layerCode(*layerOf[s], bytes, p)));
          sum += v;
          for (int k = 0; k < masks; ++k) rule[s][size_t(k)][pixelBins[p][size_t(k)]] += v;
        }
        for (auto& mask : rule[s])
          for (double& v : mask) v = sum > 0 ? 100.0 * v / sum : 0.0;
      }
    }
  }

  // Pass 2: each species' pattern in its densest tile, its 8 neighbours as the buffer.
  std::map<std::pair<int, int>, const TileEntry*> byPos;
  for (const TileEntry& e : m.tiles) byPos[{e.x, e.z}] = &e;
  std::vector<PatternStats> patterns(n);
  std::vector<std::array<int, 2>> densest(n, {-1, -1});
  std::vector<bool> bufferWhole(n, false);
  for (size_t s = 0; s < n; ++s) {
    // the densest tile whose neighbours were all baked (or lie past the world's edge), so the
    // buffer is whole; else the densest of all, flagged
    auto buffered = [&](const TileEntry& e) {
      for (int dz = -1; dz <= 1; ++dz)
        for (int dx = -1; dx <= 1; ++dx) {
          const int x = e.x + dx, z = e.z + dz;
          const bool inWorld = x >= 0 && z >= 0 && x < m.tiling.tilesX && z < m.tiling.tilesZ;
          if (inWorld && (x < rx0 || x >= rx1 || z < rz0 || z >= rz1)) return false;
        }
      return true;
    };
    const TileEntry* best = nullptr;
    bool whole = false;
    for (const TileEntry& e : m.tiles) {
      if (s >= e.speciesCounts.size() || e.speciesCounts[s] == 0) continue;
      const bool w = buffered(e);
      if (!best || (w && !whole) || (w == whole && e.speciesCounts[s] > best->speciesCounts[s])) best = &e, whole = w;
    }
    bufferWhole[s] = whole;
    if (progress) progress(++done, int(m.tiles.size()) + int(n));
    if (!best || best->speciesCounts[s] < 2) continue;
    densest[s] = {best->x, best->z};
    std::vector<Point2> points;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dx = -1; dx <= 1; ++dx) {
        auto it = byPos.find({best->x + dx, best->z + dz});
        if (it == byPos.end()) continue;
        for (const Instance& in : readTileVerified(bakeDir, m, *it->second).instances)
          if (in.species == s) points.push_back({double(in.position.x), double(in.position.z)});
      }
    const std::array<double, 4> window = {double(best->x) * tileSize, double(best->z) * tileSize,
                                          std::min(double(best->x + 1) * tileSize, double(m.world.sizeX)),
                                          std::min(double(best->z + 1) * tileSize, double(m.world.sizeZ))};
    // radii in units of the mean spacing: a first pass for it, then g at 0.5 .. 4 of it
    const PatternStats first = patternStats(points, window, {}, 1.0, 1.0);
    const double spacing = std::max(first.meanNearest, 1e-3);
    std::vector<double> radii;
    for (double k : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0})
      if (k * spacing + 0.125 * spacing <= double(tileSize)) radii.push_back(k * spacing);
    patterns[s] = patternStats(points, window, radii, 0.25 * spacing, 0.25 * spacing);
  }

  // Maps.
  std::vector<std::string> files;
  auto png = [&](const std::string& name, int w, int h, const std::vector<uint8_t>& rgb) {
    const std::string path = (root / "maps" / name).string();
    const std::vector<uint8_t> bytes = encodePngRgb8(path, w, h, rgb.data());
    writeFilePlain(path, bytes.data(), bytes.size());
    files.push_back("maps/" + name);
  };
  std::vector<uint32_t> maxDensity(n, 0);
  for (size_t s = 0; s < n; ++s) {
    for (uint32_t v : density[s]) maxDensity[s] = std::max(maxDensity[s], v);
    std::vector<uint8_t> rgb(size_t(mapW) * size_t(mapH) * 3, 0);
    for (size_t p = 0; p < density[s].size(); ++p) {
      // square-root scale, so sparse stands still show; empty pixels dark grey
      const std::array<uint8_t, 3> c =
          density[s][p] ? ramp(std::sqrt(double(density[s][p]) / double(std::max(maxDensity[s], 1u)))) : std::array<uint8_t, 3>{40, 40, 40};
      std::copy(c.begin(), c.end(), rgb.begin() + std::ptrdiff_t(3 * p));
    }
    png("density_" + fileStem(m.species[s]) + ".png", mapW, mapH, rgb);
  }
  {
    // hillshade (light from the north-west) under the tallest plant of each pixel in its colour
    std::vector<uint8_t> rgb(size_t(spW) * size_t(spH) * 3);
    for (int j = 0; j < spH; ++j)
      for (int i = 0; i < spW; ++i) {
        const float x = (float(i) + 0.5f) / float(spW) * m.world.sizeX, z = (float(j) + 0.5f) / float(spH) * m.world.sizeZ;
        const int hi = std::clamp(int(x / m.terrain.cellSize), 1, m.terrain.width - 2);
        const int hj = std::clamp(int(z / m.terrain.cellSize), 1, m.terrain.height - 2);
        const float gx = (terrain.at(hi + 1, hj) - terrain.at(hi - 1, hj)) / (2 * m.terrain.cellSize);
        const float gz = (terrain.at(hi, hj + 1) - terrain.at(hi, hj - 1)) / (2 * m.terrain.cellSize);
        const float shade = std::clamp(0.75f + 0.5f * (gx + gz) / std::sqrt(1.f + gx * gx + gz * gz), 0.2f, 1.f);
        const size_t p = size_t(j) * size_t(spW) + size_t(i);
        std::array<float, 3> c = {200.f * shade, 195.f * shade, 185.f * shade};
        if (topHeight[p] >= 0) {
          const std::array<uint8_t, 3> col = categorical(topSpecies[p]);
          for (int k = 0; k < 3; ++k) c[size_t(k)] = float(col[size_t(k)]) * (0.6f + 0.4f * shade);
        }
        for (int k = 0; k < 3; ++k) rgb[3 * p + size_t(k)] = uint8_t(std::clamp(std::lround(c[size_t(k)]), 0l, 255l));
      }
    png("species.png", spW, spH, rgb);
  }
  {
    std::vector<uint8_t> rgb(256 * 12 * 3);
    for (int j = 0; j < 12; ++j)
      for (int i = 0; i < 256; ++i) {
        const std::array<uint8_t, 3> c = ramp(double(i) / 255.0);
        std::copy(c.begin(), c.end(), rgb.begin() + std::ptrdiff_t(3 * (j * 256 + i)));
      }
    png("legend.png", 256, 12, rgb);
  }

  // report.json
  Json report = {{"format", "ecobake-report"}, {"format_version", 1}};
  Json provenance = {{"bake", m.name}, {"seed", m.seed}, {"tool_version", m.toolVersion}, {"report_tool_version", ECO_VERSION}};
  Json inputs = {{"config", m.hashes.config}, {"heightmap", m.hashes.heightmap}};
  if (!m.hashes.river.empty()) inputs["river"] = m.hashes.river;
  for (const auto& [pointer, hash] : m.inputHashes) inputs[pointer] = hash;
  provenance["inputs"] = std::move(inputs);
  if (!m.crs.empty()) provenance["crs"] = m.crs;
  report["provenance"] = std::move(provenance);
  report["world"] = {{"size_x_m", m.world.sizeX}, {"size_z_m", m.world.sizeZ}, {"min_y_m", m.world.minY},
                     {"max_y_m", m.world.maxY}};
  report["region"] = {{"tiles", {rx0, rz0, rx1 - 1, rz1 - 1}}, {"area_ha", worldArea / 1e4}};
  uint64_t total = 0;
  Json species = Json::array();
  for (size_t s = 0; s < n; ++s) {
    const SpeciesRecord& sp = m.species[s];
    const uint64_t count = s < m.totals.speciesCounts.size() ? m.totals.speciesCounts[s] : 0;
    if (counted[s] != count)
      throw std::logic_error("report: " + sp.name + ": " + std::to_string(counted[s]) + " plants read, the manifest says " +
                             std::to_string(count));
    total += count;
    Json e = {{"name", sp.name}, {"kind", kSpeciesKindNames[std::min<size_t>(sp.kind, kSpeciesKindNames.size() - 1)]},
              {"count", count}, {"density_per_ha", double(count) / (worldArea / 1e4)},
              {"cover", covered[s] / worldArea}};
    e["in_water"] = river ? Json(inWater[s]) : Json(nullptr);
    const PatternStats& p = patterns[s];
    if (densest[s][0] >= 0) {
      Json pattern = {{"tile", densest[s]}, {"buffer_whole", bool(bufferWhole[s])}, {"points", p.points}, {"intensity_per_m2", p.intensity},
                      {"mean_nearest_m", p.meanNearest}, {"clark_evans", p.clarkEvans}};
      Json g = Json::array();
      for (size_t b = 0; b < p.radii.size(); ++b) g.push_back({{"r_m", p.radii[b]}, {"g", p.g[b]}});
      pattern["pair_correlation"] = std::move(g);
      pattern["ring_width_m"] = p.ringWidth;
      pattern["nearest_histogram"] = {{"bin_m", p.histogramBin}, {"counts", p.nearestHistogram}};
      e["pattern"] = std::move(pattern);
    } else {
      e["pattern"] = nullptr;
    }
    Json shares = Json::object();
    for (int k = 0; k < masks; ++k) {
      Json b = Json::array();
      for (int i = 0; i < TerrainBins::binCount(k); ++i) {
        b.push_back({{"bin", TerrainBins::binLabel(k, i, m.world.minY, m.world.maxY)},
                     {"share_pct", count ? 100.0 * double(bins[s][size_t(k)][size_t(i)]) / double(count) : 0.0}});
        // the species' suitability over the terrain in this bin, as a share of all of it (the rule)
        b.back()["suitability_share_pct"] = rule[s].empty() ? Json(nullptr) : Json(rule[s][size_t(k)][size_t(i)]);
      }
      shares[TerrainBins::maskName(k)] = std::move(b);
    }
    e["terrain_shares"] = std::move(shares);
    e["density_map"] = "maps/density_" + fileStem(sp) + ".png";
    e["density_map_max_per_pixel"] = maxDensity[s];
    species.push_back(std::move(e));
  }
  report["instances"] = total;
  report["species"] = species;
  Json palette = Json::array();
  for (size_t s = 0; s < n; ++s) palette.push_back({{"species", m.species[s].name}, {"rgb", categorical(s)}});
  report["maps"] = {{"species", "maps/species.png"}, {"species_colours", std::move(palette)}, {"density_pixel_m", double(m.world.sizeX) / mapW},
                    {"species_pixel_m", double(m.world.sizeX) / spW}};

  // index.html: self-contained but for the maps beside it.
  std::string html = "<!doctype html><html><head><meta charset='utf-8'><title>ecobake report: " + htmlEscape(m.name) +
                     "</title><style>body{font-family:sans-serif;margin:1.5em;max-width:1100px}table{border-collapse:collapse}"
                     "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}th{background:#eee}td:first-child{text-align:left}"
                     ".maps img{margin:4px;border:1px solid #999}figure{display:inline-block;margin:4px}</style></head><body>";
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "<h1>%s</h1><p>seed %llu, baked by ecobake %s; %llu plants on %.2f x %.2f km (tiles %d..%d x %d..%d of a "
                "%.1f x %.1f km world)</p>",
                htmlEscape(m.name).c_str(), static_cast<unsigned long long>(m.seed), htmlEscape(m.toolVersion).c_str(),
                static_cast<unsigned long long>(total), (regionX1 - regionX0) / 1000, (regionZ1 - regionZ0) / 1000, rx0,
                rx1 - 1, rz0, rz1 - 1, double(m.world.sizeX) / 1000, double(m.world.sizeZ) / 1000);
  html += buf;
  {  // provenance: what the bake was made from (XXH3-64 of each input)
    html += "<p>inputs (XXH3-64):";
    for (const auto& [pointer, hash] : report["provenance"]["inputs"].items()) {
      html += ' ';  // (appended piecewise: GCC 12 warns falsely on a chain of + starting at a literal here)
      html += htmlEscape(pointer);
      html += " <code>";
      html += htmlEscape(hash.get<std::string>());
      html += "</code>";
    }
    html += "</p>";
  }
  html += "<h2>Species</h2><table><tr><th>species</th><th>kind</th><th>count</th><th>per ha</th><th>cover</th><th>in water</th>"
          "<th>Clark-Evans</th><th>mean nearest (m)</th><th>g(r) at 0.5, 1, 2, 4 spacings</th></tr>";
  for (const Json& e : species) {
    std::string gtext = "-";
    if (!e["pattern"].is_null()) {
      gtext.clear();
      for (const Json& g : e["pattern"]["pair_correlation"]) {
        const double r = g["r_m"].get<double>() / e["pattern"]["mean_nearest_m"].get<double>();
        if (std::abs(r - 0.5) < 1e-6 || std::abs(r - 1) < 1e-6 || std::abs(r - 2) < 1e-6 || std::abs(r - 4) < 1e-6) {
          std::snprintf(buf, sizeof buf, "%s%.2f", gtext.empty() ? "" : ", ", g["g"].get<double>());
          gtext += buf;
        }
      }
    }
    std::snprintf(buf, sizeof buf,
                  "<tr><td>%s</td><td>%s</td><td>%llu</td><td>%.1f</td><td>%.1f %%</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>",
                  htmlEscape(e["name"].get<std::string>()).c_str(), e["kind"].get<std::string>().c_str(),
                  static_cast<unsigned long long>(e["count"].get<uint64_t>()), e["density_per_ha"].get<double>(),
                  100.0 * e["cover"].get<double>(), e["in_water"].is_null() ? "-" : std::to_string(e["in_water"].get<uint64_t>()).c_str(),
                  e["pattern"].is_null() ? "-" : (std::to_string(e["pattern"]["clark_evans"].get<double>()).substr(0, 4)).c_str(),
                  e["pattern"].is_null() ? "-" : std::to_string(e["pattern"]["mean_nearest_m"].get<double>()).substr(0, 5).c_str(),
                  gtext.c_str());
    html += buf;
  }
  html += "</table><p>Density and cover over the baked region; cover: the share of it under the species' crowns (crown "
          "radius x scale). Clark-Evans, g(r) and the spacing: in the species' densest tile whose neighbours were all baked, "
          "they as the buffer (1: random, above 1: regular, below: clumped).</p>";
  html += "<h2>Where each species stands</h2><p>Share of its plants by elevation, slope and aspect of the terrain under "
          "them (and moisture, with the bake's layers)";
  bool anyRule = false;
  for (const auto& r : rule) anyRule |= !r.empty();
  html += anyRule ? " (dark), beside the share of the suitability its config gives each bin (light): where the plants follow "
                    "their rule, the bars match.</p>"
                  : ". Bake with <code>--layers masks</code> to see the suitability the config asked for beside them.</p>";
  for (size_t s = 0; s < n; ++s) {
    html += "<h3>" + htmlEscape(m.species[s].name) + "</h3>";
    for (int k = 0; k < masks; ++k) {
      std::vector<double> v;
      std::vector<std::string> labels;
      for (const Json& b : species[s]["terrain_shares"][TerrainBins::maskName(k)])
        v.push_back(b["share_pct"].get<double>()), labels.push_back(b["bin"].get<std::string>());
      html += "<figure>" + barsSvg(v, rule[s].empty() ? nullptr : &rule[s][size_t(k)], labels) + "<figcaption>" +
              TerrainBins::maskName(k) + "</figcaption></figure>";
    }
  }
  html += "<h2>Maps</h2><p>The tallest plant of each pixel in its species' colour over a hillshade";
  for (size_t s = 0; s < n; ++s) {
    const std::array<uint8_t, 3> c = categorical(s);
    std::snprintf(buf, sizeof buf, "%s <span style='display:inline-block;width:12px;height:12px;background:rgb(%d,%d,%d)'></span> %s",
                  s ? "," : ":", c[0], c[1], c[2], htmlEscape(m.species[s].name).c_str());
    html += buf;
  }
  html += "</p><div class='maps'><img src='maps/species.png' alt='species map' width='" + std::to_string(spW) + "'></div>";
  std::snprintf(buf, sizeof buf, "<p>Plants per %.3g m pixel, square-root scale from 0 to each map's maximum: "
                "<img src='maps/legend.png' alt='legend' style='vertical-align:middle'></p><div class='maps'>",
                double(m.world.sizeX) / mapW);
  html += buf;
  for (size_t s = 0; s < n; ++s)
    html += "<figure><img src='" + species[s]["density_map"].get<std::string>() + "' alt='density of " +
            htmlEscape(m.species[s].name) + "'><figcaption>" + htmlEscape(m.species[s].name) + " (max " +
            std::to_string(maxDensity[s]) + ")</figcaption></figure>";
  // For automation (the tests open the page headless): how many pictures loaded, on <body>.
  html += "</div><script>window.addEventListener('load',function(){var i=document.images,n=0;"
          "for(var k=0;k<i.length;++k)if(i[k].complete&&i[k].naturalWidth>0)++n;"
          "document.body.setAttribute('data-images-loaded',n+'/'+i.length);});</script></body></html>\n";
  writeFilePlain((root / "index.html").string(), html.data(), html.size());
  files.push_back("index.html");
  report["files"] = files;  // the marker lists what the report wrote (core/output_dir.h)
  const std::string text = report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  writeFilePlain((root / "report.json").string(), text.data(), text.size());
  syncFileSystemOf(staged.staging);
  staged.commit();
  return total;
}

}  // namespace eco
