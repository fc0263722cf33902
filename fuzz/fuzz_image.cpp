// loadImage / probeImage (PNG 8/16-bit gray, EXR) on arbitrary file contents. The format is
// taken from the signature, so one target covers both decoders.
#include <cmath>

#include "core/error.h"
#include "fuzz_support.h"
#include "terrain/terrain.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = eco::fuzz::writeInput("image", data, size);
  try {
    eco::probeImage(path);
  } catch (const eco::InputError&) {
  }
  try {
    const eco::Image image = eco::loadImage(path);
    // What loadImage promises: a non-empty grid of exactly width * height finite values.
    const eco::Grid& g = image.pixels;
    if (g.width <= 0 || g.height <= 0 || g.values.size() != size_t(g.width) * size_t(g.height)) __builtin_trap();
    for (float v : g.values)
      if (!std::isfinite(v)) __builtin_trap();
  } catch (const eco::InputError&) {
  }
  return 0;
}
