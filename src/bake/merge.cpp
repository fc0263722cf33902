// `ecobake merge`: the parts of a sharded bake (bake --shard I/N) back into one bake folder,
// byte for byte the folder one process would have written.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bake/bake.h"
#include "core/output_dir.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/hash.h"
#include "tileio/tileio.h"

namespace eco {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStagingTag = ".ecobake-staging-";  // output_dir.cpp's working folders
constexpr const char* kLockSuffix = ".ecobake-lock";

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool isFolder(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string manifestOf(const std::string& dir) { return (fs::path(dir) / "manifest.json").string(); }

std::string rowsText(int first, int last) { return std::to_string(first) + ".." + std::to_string(last); }

// What makes two parts parts of one bake, as "field: value" lines, in the order they are
// reported: everything the merged manifest takes from a part, the shard count and the terrain.
std::vector<std::pair<std::string, std::string>> identity(const Manifest& m) {
  std::vector<std::pair<std::string, std::string>> id;
  auto add = [&id](std::string field, auto... values) {
    std::ostringstream text;
    text.precision(9);
    ((text << values << ' '), ...);
    std::string s = text.str();
    s.pop_back();
    id.emplace_back(std::move(field), std::move(s));
  };
  add("tool version", m.toolVersion);
  add("config hash", m.hashes.config);
  add("heightmap hash", m.hashes.heightmap);
  add("river hash", m.hashes.river.empty() ? std::string("(none)") : m.hashes.river);
  add("seed", m.seed);
  add("name", m.name);
  add("shard count", m.part ? m.part->count : 0);
  add("world", m.world.sizeX, m.world.sizeZ, m.world.minY, m.world.maxY);
  add("terrain", m.terrain.file, m.terrain.width, m.terrain.height, m.terrain.cellSize);
  add("terrain checksum", hex64(m.part ? m.part->terrainChecksum : 0));
  add("tiling", m.tiling.tileSize, m.tiling.tilesX, m.tiling.tilesZ);
  add("species count", m.species.size());
  for (const SpeciesRecord& s : m.species)
    add("species " + std::to_string(s.id), s.name, int(s.kind), s.meshHeight, s.crownRadius, s.scaleMin, s.scaleMax,
        s.boundingCenterY, s.boundingRadius, s.baseColor, int(speciesMeshForm(s)),
        s.meshFile.empty() ? std::string("(no mesh file)") : s.meshFile + " " + hex64(s.meshChecksum));
  add("sun", m.sunAzimuthDeg, m.sunElevationDeg);
  if (m.ground) {
    for (uint32_t k = 0; k < kGroundColors; ++k)
      add(std::string("ground ") + kGroundColorNames[k], m.ground->color[k][0], m.ground->color[k][1], m.ground->color[k][2]);
    add("ground snowline", m.ground->snowline);
  }
  // Every part computes the layers from the whole world; parts baked with and without
  // --layers masks are parts of different bakes.
  add("layer count", m.layers.size());
  for (const LayerEntry& l : m.layers)
    add("layer " + l.name, l.kind, l.species, l.file, l.width, l.height, layerEncodingName(l.encoding), l.valueMin,
        l.valueMax, l.unit, l.waterDistance, hex64(l.checksum));
  return id;
}

std::string identityKey(const Manifest& m) {
  std::string key;
  for (const auto& [field, value] : identity(m)) key += field + '=' + value + '\n';
  return key;
}

struct Part {
  std::string dir;
  Manifest manifest;
  const ManifestPart& part() const { return *manifest.part; }
};

// Every part from one bake: the parts that differ from the majority (ties: from the part
// with the lowest index) are foreign, and the first of them is named with the first field
// that differs.
void requireOneBake(const std::vector<Part>& parts) {
  std::map<std::string, int> votes;
  for (const Part& p : parts) ++votes[identityKey(p.manifest)];
  if (votes.size() == 1) return;
  const Part* reference = &parts.front();  // sorted by index
  for (const Part& p : parts)
    if (votes[identityKey(p.manifest)] > votes[identityKey(reference->manifest)]) reference = &p;
  const auto want = identity(reference->manifest);
  for (const Part& p : parts) {
    const auto have = identity(p.manifest);
    if (have == want) continue;
    std::string field = "identity", mine, theirs;
    for (size_t i = 0; i < std::max(have.size(), want.size()); ++i) {
      mine = i < have.size() ? have[i].second : "(none)";
      theirs = i < want.size() ? want[i].second : "(none)";
      field = i < have.size() ? have[i].first : want[i].first;
      if (mine != theirs) break;
    }
    const int others = votes[identityKey(reference->manifest)];
    throw InputError(p.dir + ": is a part of another bake: its " + field + " is " + mine + ", " +
                     (others > 1 ? "the other " + std::to_string(others) + " parts' " : reference->dir + "'s ") +
                     theirs + " (all parts must come from the same config, inputs, seed and ecobake version)");
  }
}

// Indices 1..count each once, rows back to back from 0 to the last tile row.
void requireCover(const std::vector<Part>& parts) {
  const int count = parts.front().part().count;
  const int rows = parts.front().manifest.tiling.tilesZ;
  for (size_t i = 1; i < parts.size(); ++i)
    if (parts[i].part().index == parts[i - 1].part().index && fs::path(parts[i].dir) == fs::path(parts[i - 1].dir))
      throw InputError(parts[i].dir + ": is given twice (part " + std::to_string(parts[i].part().index) + " of " +
                       std::to_string(count) + ")");
    else if (parts[i].part().index == parts[i - 1].part().index)
      throw InputError(parts[i].dir + ": duplicates part " + std::to_string(parts[i].part().index) + " of " +
                       std::to_string(count) + " (so is " + parts[i - 1].dir + "); give each part once");
  std::vector<int> missing;
  size_t at = 0;
  for (int k = 1; k <= count; ++k) {
    if (at < parts.size() && parts[at].part().index == k)
      ++at;
    else
      missing.push_back(k);
  }
  if (!missing.empty()) {
    // The rows no part covers around the first missing one.
    const int k = missing.front();
    int first = 0, last = rows - 1;
    for (const Part& p : parts) {
      if (p.part().index < k) first = std::max(first, p.part().lastRow + 1);
      if (p.part().index > k) last = std::min(last, p.part().firstRow - 1);
    }
    std::string which;
    for (size_t i = 0; i < missing.size() && i < 10; ++i) which += (i ? ", " : "") + std::to_string(missing[i]);
    if (missing.size() > 10) which += ", ...";
    throw InputError(std::string(missing.size() == 1 ? "part " : "parts ") + which + " of " + std::to_string(count) +
                     (missing.size() == 1 ? " is" : " are") + " missing (" + std::to_string(parts.size()) +
                     " parts given; tile rows " + rowsText(first, last) + " are not covered)");
  }
  int next = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const ManifestPart& p = parts[i].part();
    if (p.firstRow != next)
      throw InputError(parts[i].dir + ": part " + std::to_string(p.index) + " has tile rows " +
                       rowsText(p.firstRow, p.lastRow) + ", but " +
                       (i ? "part " + std::to_string(p.index - 1) + " (" + parts[i - 1].dir + ") ends at row " +
                                std::to_string(next - 1)
                          : std::string("the first part must start at row 0")) +
                       ": the parts were split differently (a different ecobake build?)");
    next = p.lastRow + 1;
  }
  if (next != rows)
    throw InputError(parts.back().dir + ": the last part ends at tile row " + std::to_string(next - 1) +
                     ", but the world has " + std::to_string(rows) + " rows: the parts were split differently");
}

// Reads src (at most `bytes`), checks its size and checksum, writes it to dst.
void copyVerified(const std::string& src, const std::string& dst, uint64_t bytes, uint64_t checksum,
                  const std::string& manifest) {
  std::vector<uint8_t> data = readFileBytes(src, bytes, "file");
  if (data.size() != bytes)
    throw InputError(src + ": " + std::to_string(data.size()) + " bytes, " + manifest + " says " + std::to_string(bytes));
  if (const uint64_t actual = checksum64(data); actual != checksum)
    throw InputError(src + ": checksum mismatch (xxh3_64 " + hex64(actual) + ", " + manifest + " says " + hex64(checksum) +
                     ")");
  writeFilePlain(dst, data.data(), data.size());
}

// Hard-links src to dst after checking src's size; false (nothing done) where the file
// system cannot (another device, no hard links), so the caller copies.
bool linkChecked(const std::string& src, const std::string& dst, uint64_t bytes, const std::string& manifest) {
  if (const uint64_t size = regularFileSize(src); size != bytes)
    throw InputError(src + ": " + std::to_string(size) + " bytes, " + manifest + " says " + std::to_string(bytes));
  if (::linkat(AT_FDCWD, src.c_str(), AT_FDCWD, dst.c_str(), AT_SYMLINK_FOLLOW) == 0) return true;
  const int err = errno;
  if (err == EXDEV || err == EPERM || err == EOPNOTSUPP || err == EMLINK) return false;
  throw InputError(dst + ": cannot hard-link " + src + ": " + std::strerror(err));
}

// The file placed at dst, linked or copied; true when linked.
bool place(const MergeOptions& options, const std::string& src, const std::string& dst, uint64_t bytes,
           uint64_t checksum, const std::string& manifest) {
  if (options.link && linkChecked(src, dst, bytes, manifest)) return true;
  copyVerified(src, dst, bytes, checksum, manifest);
  return false;
}

}  // namespace

std::vector<std::string> findPartFolders(const std::vector<std::string>& inputs) {
  std::vector<std::string> parts;
  for (const std::string& input : inputs) {
    if (!exists(input)) throw InputError(input + ": does not exist");
    if (!isFolder(input))
      throw InputError(input + ": is not a folder (a part is the folder ecobake bake --shard I/N -o PART writes)");
    if (exists(manifestOf(input))) {
      parts.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    std::error_code ec;
    for (fs::directory_iterator it(input, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.find(kStagingTag) != std::string::npos || name.find(kLockSuffix) != std::string::npos) continue;
      const std::string dir = it->path().string();
      if (isFolder(dir) && exists(manifestOf(dir))) found.push_back(dir);
    }
    if (ec) throw InputError(input + ": cannot read the folder: " + ec.message());
    if (found.empty())
      throw InputError(input + ": holds no manifest.json and no part folders (folders written by ecobake bake --shard "
                               "I/N, each with a manifest.json)");
    std::sort(found.begin(), found.end());
    parts.insert(parts.end(), found.begin(), found.end());
  }
  return parts;
}

MergeSummary mergeParts(const std::vector<std::string>& dirs, const MergeOptions& options) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  if (dirs.empty()) throw InputError("merge: no parts given");
  checkOutputFolder(options.outDir, bakeOutput());  // an unusable -o fails before the parts are read
  std::vector<Part> parts;
  for (const std::string& dir : dirs) parts.push_back({dir, readPartManifest(dir)});
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part& a, const Part& b) { return a.part().index < b.part().index; });
  requireOneBake(parts);
  requireCover(parts);
  for (const Part& p : parts) {
    if (isInsideFolder(options.outDir, p.dir))
      throw InputError(options.outDir + ": lies inside part " + p.dir + " (or is it); merge into another folder");
    if (isInsideFolder(p.dir, options.outDir))
      throw InputError(options.outDir + ": holds part " + p.dir + ", which the merge would replace; merge into another folder");
  }

  Manifest merged = parts.front().manifest;
  merged.part.reset();
  merged.tiles.clear();
  size_t tileCount = 0;
  for (const Part& p : parts) tileCount += p.manifest.tiles.size();
  merged.tiles.reserve(tileCount);

  StagedDir out(options.outDir, bakeOutput());
  const Part& first = parts.front();  // part 1, the one that carries the terrain
  const uint64_t terrainBytes = uint64_t(first.manifest.terrain.width) * uint64_t(first.manifest.terrain.height) * 4;
  MergeSummary s;
  s.linked += place(options, bakeMemberPath(first.dir, first.manifest.terrain.file),
                    (fs::path(out.staging) / "terrain.r32f").string(), terrainBytes, first.part().terrainChecksum,
                    manifestOf(first.dir));
  // Every part carries the species' mesh files (the same bytes, checked by their hashes in
  // the parts' identity); part 1's are placed.
  for (const SpeciesRecord& sp : first.manifest.species) {
    if (sp.meshFile.empty()) continue;
    fs::create_directories(fs::path(out.staging) / "meshes");
    s.linked += place(options, bakeMemberPath(first.dir, sp.meshFile), (fs::path(out.staging) / sp.meshFile).string(),
                      sp.meshBytes, sp.meshChecksum, manifestOf(first.dir));
  }
  // The layers, like the terrain, from part 1 (every part lists the same ones).
  for (const LayerEntry& layer : first.manifest.layers) {
    const fs::path dst = fs::path(out.staging) / layer.file;
    fs::create_directories(dst.parent_path());
    s.linked += place(options, bakeMemberPath(first.dir, layer.file), dst.string(), layerFileBytes(layer),
                      layer.checksum, manifestOf(first.dir));
  }
  for (const Part& p : parts) {
    for (const TileEntry& entry : p.manifest.tiles) {
      s.linked += place(options, bakeMemberPath(p.dir, entry.file), (fs::path(out.staging) / entry.file).string(),
                        entry.bytes, entry.checksum, manifestOf(p.dir));
      merged.tiles.push_back(entry);
      if (options.progress) options.progress(int(merged.tiles.size()), int(tileCount));
    }
  }
  computeTotals(merged);
  writeManifest(out.staging, merged);
  syncFileSystemOf(out.staging);
  out.commit();

  s.parts = int(parts.size());
  s.tiles = int(merged.tiles.size());
  s.files = 1 + s.tiles;
  for (const SpeciesRecord& sp : merged.species) s.files += !sp.meshFile.empty();
  s.files += int(merged.layers.size());
  s.instances = merged.totals.instances;
  s.bytes = merged.totals.bytes;
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return s;
}

}  // namespace eco
