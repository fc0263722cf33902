// The TIFF reader (src/terrain/tiff_read.cpp) on arbitrary bytes, every channel choice, from a
// structure-aware seed corpus (fuzz/make_tiff_seeds.py: strip and tile tables that disagree
// with the layout, overlap, claim more than the file holds, planar and multi-channel files).
// The first input byte picks the channel (single, r, g, b, a); the rest is the file.
#include <cmath>

#include "core/error.h"
#include "fuzz_support.h"
#include "terrain/terrain.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int channel = int(data[0] % 5) - 1;  // -1 (kSingleChannel), 0..3
  const std::string path = eco::fuzz::writeInput("input.tif", data + 1, size - 1);
  try {
    eco::probeImage(path, channel);
  } catch (const eco::InputError&) {
  }
  try {
    const eco::Image image = eco::loadImage(path, channel);
    // What loadImage promises: a non-empty grid of exactly width * height finite values, and
    // a nodata mask of the same size or none.
    const eco::Grid& g = image.pixels;
    if (g.width <= 0 || g.height <= 0 || g.values.size() != size_t(g.width) * size_t(g.height)) __builtin_trap();
    if (!image.noData.empty() && image.noData.size() != g.values.size()) __builtin_trap();
    for (float v : g.values)
      if (!std::isfinite(v)) __builtin_trap();
  } catch (const eco::InputError&) {
  }
  return 0;
}
