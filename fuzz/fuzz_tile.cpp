// decodeTile on arbitrary bytes. A tile it accepts must be a valid tile: it encodes again
// (encodeTile throws std::invalid_argument on a species id outside the table or a bad tile
// size, which decodeTile must have refused) and decodes to the same instances and species.
#include "core/error.h"
#include "fuzz_support.h"
#include "tileio/tileio.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const eco::TileData tile = eco::decodeTile(data, size, "fuzz.ecot");
    const std::vector<uint8_t> again = eco::encodeTile(tile);
    const eco::TileData back = eco::decodeTile(again.data(), again.size(), "re-encoded");
    if (back.instances.size() != tile.instances.size() || back.species.size() != tile.species.size()) __builtin_trap();
    for (size_t i = 0; i < tile.instances.size(); ++i)
      if (back.instances[i].species != tile.instances[i].species) __builtin_trap();
  } catch (const eco::InputError&) {
  }
  return 0;
}
