// readManifest on arbitrary manifest.json text, then, for a manifest it accepts, the readers
// that trust it next: the terrain, each layer and each tile entry. The private bake folder holds the
// terrain, a layer and the tiles of the small bake whose manifest is in the seed corpus
// (fuzz/fixtures/bake), so a mutated manifest meets real files of the wrong size, checksum
// or contents.
#include <filesystem>

#include "core/error.h"
#include "fuzz_support.h"
#include "tileio/tileio.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string dir = eco::fuzz::privateDir() + "/bake";
  std::filesystem::create_directories(dir);
  std::filesystem::copy(ECO_FUZZ_FIXTURES "/bake", dir, std::filesystem::copy_options::recursive);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  eco::fuzz::writeInput("bake/manifest.json", data, size);
  const std::string dir = eco::fuzz::privateDir() + "/bake";
  try {
    const eco::Manifest manifest = eco::readManifest(dir);
    try {
      (void)eco::readTerrainRaw(dir, manifest);
    } catch (const eco::InputError&) {
    }
    for (const eco::LayerEntry& layer : manifest.layers) {
      try {
        (void)eco::readLayerVerified(dir, layer);
      } catch (const eco::InputError&) {
      }
    }
    for (const eco::TileEntry& entry : manifest.tiles) {
      try {
        (void)eco::readTileVerified(dir, manifest, entry);
      } catch (const eco::InputError&) {
      }
    }
  } catch (const eco::InputError&) {
  }
  return 0;
}
