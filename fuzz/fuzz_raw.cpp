// loadRaw / probeRaw (.r16, .r32f). The first 3 bytes pick the format and a size of up to
// 64 x 64 samples; the rest is the file, so both matching and mismatching sizes are reached.
#include <cmath>

#include "core/error.h"
#include "fuzz_support.h"
#include "terrain/terrain.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const eco::RawFormat format = data[0] & 1 ? eco::RawFormat::R32F : eco::RawFormat::R16;
  const int width = 1 + data[1] % 64, height = 1 + data[2] % 64;
  const std::string path = eco::fuzz::writeInput(format == eco::RawFormat::R16 ? "raw.r16" : "raw.r32f", data + 3, size - 3);
  try {
    eco::probeRaw(path, format, width, height);
  } catch (const eco::InputError&) {
  }
  try {
    const eco::Image image = eco::loadRaw(path, format, width, height);
    const eco::Grid& g = image.pixels;
    if (g.width != width || g.height != height || g.values.size() != size_t(width) * size_t(height)) __builtin_trap();
    for (float v : g.values)
      if (!std::isfinite(v)) __builtin_trap();
  } catch (const eco::InputError&) {
  }
  return 0;
}
