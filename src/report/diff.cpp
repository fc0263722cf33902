// `ecobake diff`: two bakes of one world compared species by species (report.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>

#include "core/error.h"
#include "core/file_io.h"
#include "core/output_dir.h"
#include "report/report.h"
#include "report/terrain_bins.h"
#include "terrain/png16.h"
#include "tileio/tileio.h"

namespace eco {

namespace fs = std::filesystem;

namespace {

// A bake's plants binned by the terrain under them, per species (by name).
struct Binned {
  Manifest manifest;
  std::vector<float> heights;
  std::map<std::string, std::vector<std::vector<uint64_t>>> bins;  // name -> mask -> bin -> plants
  std::map<std::string, std::vector<uint32_t>> density;            // name -> plants per map pixel (--report)
};

// The moved-density maps' size: the world's longer side in this many pixels.
constexpr int kMovedMapSide = 256;
void mapSize(const Manifest& m, int& w, int& h) {
  w = m.world.sizeX >= m.world.sizeZ ? kMovedMapSide : std::max(1, int(kMovedMapSide * m.world.sizeX / m.world.sizeZ));
  h = m.world.sizeX >= m.world.sizeZ ? std::max(1, int(kMovedMapSide * m.world.sizeZ / m.world.sizeX)) : kMovedMapSide;
}

Binned binBake(const std::string& dir, bool maps) {
  Binned b;
  b.manifest = readManifest(dir);
  b.heights = readTerrainRaw(dir, b.manifest);
  const Manifest& m = b.manifest;
  const BinTerrain t{b.heights, m.terrain.width, m.terrain.height, m.terrain.cellSize, m.world.minY, m.world.maxY};
  std::vector<std::vector<std::vector<uint64_t>>*> bySpecies;
  for (const SpeciesRecord& s : m.species) {
    auto& bins = b.bins[s.name];
    bins.assign(kMasks, {});
    for (int k = 0; k < kMasks; ++k) bins[size_t(k)].assign(size_t(TerrainBins::binCount(k)), 0);
    bySpecies.push_back(&bins);
  }
  int mapW = 0, mapH = 0;
  mapSize(m, mapW, mapH);
  std::vector<std::vector<uint32_t>*> densityOf;
  if (maps)
    for (const SpeciesRecord& s : m.species) {
      b.density[s.name].assign(size_t(mapW) * size_t(mapH), 0);
      densityOf.push_back(&b.density[s.name]);
    }
  for (const TileEntry& e : m.tiles) {
    const TileData tile = readTileVerified(dir, m, e);  // every instance's species is in the table
    for (const Instance& in : tile.instances) {
      int bin[kMasks];
      t.bins(in.position.x, in.position.z, bin);
      for (int k = 0; k < kMasks; ++k) ++(*bySpecies[in.species])[size_t(k)][size_t(bin[k])];
      if (maps) {
        const int mx = std::clamp(int(in.position.x / m.world.sizeX * float(mapW)), 0, mapW - 1);
        const int mz = std::clamp(int(in.position.z / m.world.sizeZ * float(mapH)), 0, mapH - 1);
        ++(*densityOf[in.species])[size_t(mz) * size_t(mapW) + size_t(mx)];
      }
    }
  }
  return b;
}

std::vector<double> shares(const std::vector<uint64_t>& bins, uint64_t total) {
  std::vector<double> out(bins.size(), 0.0);
  if (total)
    for (size_t i = 0; i < bins.size(); ++i) out[i] = 100.0 * double(bins[i]) / double(total);
  return out;
}

std::string htmlText(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '\'' ? "&#39;" : std::string(1, c);
  return out;
}

// --report DIR: per species the moved density (B - A plants per pixel: red gained, blue lost,
// white unchanged), an index.html with the table and the maps, and diff.json (the marker).
void writeMovedMaps(const BakeDiff& d, const Binned& A, const Binned& B, const std::string& dir, std::optional<double> failOnPct) {
  const OutputKind kind = markedOutput("ecobake diff report", "ecobake diff", "write a diff report", "diff.json", "ecobake-diff",
                                       uint64_t(16) << 20, {"maps"});
  StagedDir staged(dir, kind);
  const fs::path root(staged.staging);
  fs::create_directory(root / "maps");
  int w = 0, h = 0;
  mapSize(A.manifest, w, h);
  std::vector<std::string> files;
  std::string html = "<!doctype html><html><head><meta charset='utf-8'><title>ecobake diff</title><style>body{font-family:"
                     "sans-serif;margin:1.5em}figure{display:inline-block;margin:4px}img{border:1px solid #999}</style>"
                     "</head><body><h1>ecobake diff</h1><pre>" + htmlText(describeDiff(d, failOnPct)) + "</pre>"
                     "<p>Moved density, plants per pixel of B minus A: red where B has more, blue where it has fewer "
                     "(each map scaled to its own largest change).</p>";
  for (size_t s = 0; s < d.species.size(); ++s) {
    const std::string& name = d.species[s].name;
    const std::vector<uint32_t> none(size_t(w) * size_t(h), 0);
    const auto ia = A.density.find(name), ib = B.density.find(name);
    const std::vector<uint32_t>& da = ia != A.density.end() ? ia->second : none;
    const std::vector<uint32_t>& db = ib != B.density.end() ? ib->second : none;
    int64_t largest = 0;
    for (size_t p = 0; p < none.size(); ++p) largest = std::max(largest, std::abs(int64_t(db[p]) - int64_t(da[p])));
    std::vector<uint8_t> rgb(none.size() * 3);
    for (size_t p = 0; p < none.size(); ++p) {
      const double t = largest ? double(int64_t(db[p]) - int64_t(da[p])) / double(largest) : 0.0;  // -1 .. 1
      const double k = std::sqrt(std::abs(t));
      const uint8_t fade = uint8_t(std::lround(255 * (1 - k)));
      rgb[3 * p] = t > 0 ? 255 : fade;
      rgb[3 * p + 1] = fade;
      rgb[3 * p + 2] = t < 0 ? 255 : fade;
    }
    const std::string file = "maps/moved_" + std::to_string(s) + ".png";
    const std::vector<uint8_t> bytes = encodePngRgb8((root / file).string(), w, h, rgb.data());
    writeFilePlain((root / file).string(), bytes.data(), bytes.size());
    files.push_back(file);
    html += "<figure><img src='" + file + "' alt='moved density of " + htmlText(name) + "'><figcaption>" + htmlText(name) +
            " (largest change " + std::to_string(largest) + " per pixel)</figcaption></figure>";
  }
  html += "</body></html>\n";
  writeFilePlain((root / "index.html").string(), html.data(), html.size());
  files.push_back("index.html");
  nlohmann::ordered_json marker = nlohmann::ordered_json::parse(diffJson(d, failOnPct));
  marker["files"] = files;
  const std::string text = marker.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  writeFilePlain((root / "diff.json").string(), text.data(), text.size());
  syncFileSystemOf(staged.staging);
  staged.commit();
}

}  // namespace

const char* TerrainBins::maskName(int mask) {
  return mask == 0 ? "elevation" : mask == 1 ? "slope" : mask == 2 ? "aspect" : "moisture";
}

int TerrainBins::binCount(int mask) {
  return mask == 0 ? kElevationBins : mask == 1 ? kSlopeBins : mask == 2 ? kAspectBins : kMoistureBins;
}

std::string TerrainBins::binLabel(int mask, int bin, float minY, float maxY) {
  char buf[64];
  if (mask == 0) {
    const double step = (double(maxY) - double(minY)) / kElevationBins;
    std::snprintf(buf, sizeof buf, "%.0f-%.0f m", double(minY) + step * bin, double(minY) + step * (bin + 1));
  } else if (mask == 1) {
    std::snprintf(buf, sizeof buf, "%.0f-%.0f deg", double(kSlopeEdges[bin]),
                  bin + 1 < kSlopeBins ? double(kSlopeEdges[bin + 1]) : 90.0);
  } else if (mask == 2) {
    std::snprintf(buf, sizeof buf, "%s", bin < 8 ? kAspectNames[bin] : "flat");
  } else {
    std::snprintf(buf, sizeof buf, "%.1f-%.1f", 0.1 * bin, 0.1 * (bin + 1));
  }
  return buf;
}

std::vector<std::string> BakeDiff::exceeding(double pct) const {
  std::vector<std::string> out;
  for (const SpeciesDiff& s : species)
    if (s.inA != s.inB || !(std::abs(s.countChangePct) <= pct) || s.largestShift > pct) out.push_back(s.name);
  return out;
}

BakeDiff diffBakes(const std::string& a, const std::string& b, const std::string& reportDir, std::optional<double> failOnPct) {
  if (!reportDir.empty() && (isInsideFolder(reportDir, a) || isInsideFolder(reportDir, b)))
    throw InputError(reportDir + ": is inside a bake being compared; write the report elsewhere");
  const Binned A = binBake(a, !reportDir.empty()), B = binBake(b, !reportDir.empty());
  const Manifest &ma = A.manifest, &mb = B.manifest;
  auto differentWorlds = [&](const std::string& what) {
    return InputError(a + " and " + b + " are bakes of different worlds (" + what + " differ); diff compares bakes of one world");
  };
  if (ma.terrain.width != mb.terrain.width || ma.terrain.height != mb.terrain.height ||
      ma.terrain.cellSize != mb.terrain.cellSize)
    throw differentWorlds("their terrain sizes");
  if (A.heights.size() != B.heights.size() ||
      std::memcmp(A.heights.data(), B.heights.data(), A.heights.size() * sizeof(float)) != 0)
    throw differentWorlds("their terrain heights");
  if (ma.tiling.tileSize != mb.tiling.tileSize || ma.tiling.tilesX != mb.tiling.tilesX || ma.tiling.tilesZ != mb.tiling.tilesZ)
    throw differentWorlds("their tilings");

  BakeDiff d;
  d.minY = ma.world.minY;
  d.maxY = ma.world.maxY;
  std::vector<std::string> names;
  for (const SpeciesRecord& s : ma.species) names.push_back(s.name);
  for (const SpeciesRecord& s : mb.species)
    if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
  auto has = [](const Manifest& m, const std::string& name) {
    return std::any_of(m.species.begin(), m.species.end(), [&name](const SpeciesRecord& s) { return s.name == name; });
  };
  auto countOf = [](const Manifest& m, const std::string& name) -> uint64_t {
    for (const SpeciesRecord& s : m.species)
      if (s.name == name) return s.id < m.totals.speciesCounts.size() ? m.totals.speciesCounts[s.id] : 0;
    return 0;
  };
  for (const std::string& name : names) {
    SpeciesDiff s;
    s.name = name;
    s.countA = countOf(ma, name);
    s.countB = countOf(mb, name);
    s.inA = has(ma, name);
    s.inB = has(mb, name);
    s.countChangePct = s.countA ? 100.0 * (double(s.countB) - double(s.countA)) / double(s.countA)
                       : s.countB ? std::numeric_limits<double>::infinity()
                                  : 0.0;
    for (int k = 0; k < kMasks; ++k) {
      const auto ia = A.bins.find(name), ib = B.bins.find(name);
      const std::vector<uint64_t> none(size_t(TerrainBins::binCount(k)), 0);
      s.shareA.push_back(shares(ia != A.bins.end() ? ia->second[size_t(k)] : none, s.countA));
      s.shareB.push_back(shares(ib != B.bins.end() ? ib->second[size_t(k)] : none, s.countB));
      for (size_t i = 0; i < s.shareA.back().size(); ++i) {
        const double shift = std::abs(s.shareB.back()[i] - s.shareA.back()[i]);
        if (shift > s.largestShift) s.largestShift = shift, s.shiftMask = k, s.shiftBin = int(i);
      }
    }
    d.species.push_back(std::move(s));
  }

  // Tiles by position: bytes and checksum as the manifests list them (each verified on read).
  std::map<std::pair<int, int>, const TileEntry*> tilesA;
  for (const TileEntry& e : ma.tiles) tilesA[{e.z, e.x}] = &e;
  d.tilesA = ma.tiles.size();
  d.tilesB = mb.tiles.size();
  auto list = [&d](const std::string& file) {
    if (d.differingTiles.size() < BakeDiff::kMaxListedTiles) d.differingTiles.push_back(file);
  };
  std::map<std::pair<int, int>, bool> seen;
  for (const TileEntry& e : mb.tiles) {
    auto it = tilesA.find({e.z, e.x});
    seen[{e.z, e.x}] = true;
    if (it == tilesA.end()) {
      ++d.tilesOnlyB;
      list(e.file);
    } else if (it->second->bytes != e.bytes || it->second->checksum != e.checksum) {
      ++d.tilesDiffer;
      list(e.file);
    }
  }
  for (const TileEntry& e : ma.tiles)
    if (!seen.count({e.z, e.x})) ++d.tilesOnlyA, list(e.file);
  if (!reportDir.empty()) writeMovedMaps(d, A, B, reportDir, failOnPct);
  return d;
}

std::string describeDiff(const BakeDiff& d, std::optional<double> failOnPct) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %10s %10s %9s  %s\n", "species", "A", "B", "change", "largest shift of its plants");
  out += line;
  for (const SpeciesDiff& s : d.species) {
    char change[32];
    if (!s.inA)
      std::snprintf(change, sizeof change, "new");
    else if (!s.inB)
      std::snprintf(change, sizeof change, "gone");
    else if (std::isinf(s.countChangePct))
      std::snprintf(change, sizeof change, "from 0");
    else
      std::snprintf(change, sizeof change, "%+.2f %%", s.countChangePct);
    std::string shift = "-";
    if (s.largestShift > 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s %s: %.1f -> %.1f %% (%+.2f pts)", TerrainBins::maskName(s.shiftMask),
                    TerrainBins::binLabel(s.shiftMask, s.shiftBin, d.minY, d.maxY).c_str(),
                    s.shareA[size_t(s.shiftMask)][size_t(s.shiftBin)], s.shareB[size_t(s.shiftMask)][size_t(s.shiftBin)],
                    s.shareB[size_t(s.shiftMask)][size_t(s.shiftBin)] - s.shareA[size_t(s.shiftMask)][size_t(s.shiftBin)]);
      shift = buf;
    }
    const bool over =
        failOnPct && (s.inA != s.inB || !(std::abs(s.countChangePct) <= *failOnPct) || s.largestShift > *failOnPct);
    std::snprintf(line, sizeof line, "%-28s %10llu %10llu %9s  %s%s\n", s.name.c_str(),
                  static_cast<unsigned long long>(s.countA), static_cast<unsigned long long>(s.countB), change,
                  shift.c_str(), over ? "  <-- over the threshold" : "");
    out += line;
  }
  std::snprintf(line, sizeof line, "tiles: %llu in A, %llu in B; %llu differ, %llu only in A, %llu only in B\n",
                static_cast<unsigned long long>(d.tilesA), static_cast<unsigned long long>(d.tilesB),
                static_cast<unsigned long long>(d.tilesDiffer), static_cast<unsigned long long>(d.tilesOnlyA),
                static_cast<unsigned long long>(d.tilesOnlyB));
  out += line;
  return out;
}

std::string diffJson(const BakeDiff& d, std::optional<double> failOnPct) {
  nlohmann::ordered_json j;
  j["format"] = "ecobake-diff";
  j["format_version"] = 1;
  j["elevation_range"] = {d.minY, d.maxY};
  nlohmann::ordered_json species = nlohmann::ordered_json::array();
  for (const SpeciesDiff& s : d.species) {
    nlohmann::ordered_json e = {{"name", s.name}, {"in_a", s.inA}, {"in_b", s.inB}, {"count_a", s.countA}, {"count_b", s.countB}};
    e["count_change_pct"] = std::isinf(s.countChangePct) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.countChangePct);
    nlohmann::ordered_json masks = nlohmann::ordered_json::object();
    for (int k = 0; k < kMasks; ++k) {
      nlohmann::ordered_json bins = nlohmann::ordered_json::array();
      for (size_t i = 0; i < s.shareA[size_t(k)].size(); ++i)
        bins.push_back({{"bin", TerrainBins::binLabel(k, int(i), d.minY, d.maxY)},
                        {"share_a_pct", s.shareA[size_t(k)][i]},
                        {"share_b_pct", s.shareB[size_t(k)][i]}});
      masks[TerrainBins::maskName(k)] = std::move(bins);
    }
    e["bins"] = std::move(masks);
    e["largest_shift_pts"] = s.largestShift;
    species.push_back(std::move(e));
  }
  j["species"] = std::move(species);
  j["tiles"] = {{"a", d.tilesA}, {"b", d.tilesB}, {"differ", d.tilesDiffer}, {"only_a", d.tilesOnlyA},
                {"only_b", d.tilesOnlyB}, {"listed", d.differingTiles}};
  if (failOnPct) {
    j["fail_on_pct"] = *failOnPct;
    j["exceeding"] = d.exceeding(*failOnPct);
  }
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace eco
