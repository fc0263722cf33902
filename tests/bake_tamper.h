#pragma once
// A small bake made once per test executable, copied per test and then damaged on purpose:
// manifest edits through nlohmann, tiles decoded, changed and re-encoded with their
// manifest size and checksum updated (so that only the check under test can catch them).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "bake/bake.h"
#include "bake_world.h"
#include "core/hash.h"
#include "tileio/tileio.h"

namespace eco::test {

// The ridge world baked into a folder that lives as long as the test executable.
inline const std::string& pristineBake() {
  static std::unique_ptr<TempDir> dir;
  static std::string out;
  if (!dir) {
    dir = std::make_unique<TempDir>();
    World world = loadWorld(writeRidgeWorld(*dir));
    BakeOptions o;
    o.outDir = dir->file("bake");
    o.threads = 2;
    bake(world, o);
    out = o.outDir;
  }
  return out;
}

// A private copy of the bake at dir/name; returns its path.
inline std::string copyBake(const TempDir& dir, const std::string& name = "bake") {
  std::string to = dir.file(name);
  std::filesystem::copy(pristineBake(), to, std::filesystem::copy_options::recursive);
  return to;
}

inline nlohmann::ordered_json readManifestJson(const std::string& bake) {
  return nlohmann::ordered_json::parse(readBytes(bake + "/manifest.json"));
}
inline void writeManifestJson(const std::string& bake, const nlohmann::ordered_json& j) {
  writeBytes(bake + "/manifest.json", j.dump(2));
}
inline void editManifest(const std::string& bake, const std::function<void(nlohmann::ordered_json&)>& edit) {
  nlohmann::ordered_json j = readManifestJson(bake);
  edit(j);
  writeManifestJson(bake, j);
}

// Decodes tile `index` of the manifest, lets `edit` change it, re-encodes it in place and
// makes the manifest's bytes, checksum and total bytes agree with the new file.
inline void rewriteTile(const std::string& bake, size_t index, const std::function<void(TileData&)>& edit) {
  nlohmann::ordered_json j = readManifestJson(bake);
  nlohmann::ordered_json& entry = j["tiles"][index];
  const std::string path = bake + "/" + entry["file"].get<std::string>();
  TileData tile = readTileFile(path);
  edit(tile);
  std::vector<uint8_t> bytes = encodeTile(tile);
  writeBytes(path, std::string(bytes.begin(), bytes.end()));
  j["totals"]["bytes"] = j["totals"]["bytes"].get<uint64_t>() - entry["bytes"].get<uint64_t>() + bytes.size();
  entry["bytes"] = bytes.size();
  entry["xxh3_64"] = hex64(checksum64(bytes));
  writeManifestJson(bake, j);
}

// Index of a tile whose instances include at least two species (for count swaps).
inline size_t tileWithTwoSpecies(const nlohmann::ordered_json& j) {
  for (size_t i = 0; i < j["tiles"].size(); ++i) {
    int present = 0;
    for (const auto& c : j["tiles"][i]["species_counts"]) present += c.get<uint64_t>() > 0;
    if (present >= 2) return i;
  }
  ADD_FAILURE() << "no tile with two species";
  return 0;
}

}  // namespace eco::test
