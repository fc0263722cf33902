// Raster layers of a bake (tileio.h LayerEntry): the one quantisation, and the verified read.
#include <bit>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "core/error.h"
#include "core/file_io.h"
#include "core/hash.h"
#include "core/rounding.h"
#include "tileio/tileio.h"

namespace eco {

static_assert(std::endian::native == std::endian::little, "layer files are written in host byte order");

const char* layerEncodingName(LayerEncoding encoding) {
  return encoding == LayerEncoding::Unorm16 ? "unorm16" : "unorm8";
}
uint32_t layerCodeMax(LayerEncoding encoding) { return encoding == LayerEncoding::Unorm16 ? 65535u : 255u; }
size_t layerBytesPerCode(LayerEncoding encoding) { return encoding == LayerEncoding::Unorm16 ? 2 : 1; }

uint64_t layerFileBytes(const LayerEntry& e) {
  return uint64_t(e.width) * uint64_t(e.height) * layerBytesPerCode(e.encoding);
}

uint32_t layerCodeOf(const LayerEntry& e, float value) {
  // In double: (v - min) / (max - min) of floats is exact enough that a value equal to an end
  // of the range gives exactly code 0 or codeMax. unorm8/16 clamp, and give 0 for NaN.
  const float t = float((double(value) - double(e.valueMin)) / (double(e.valueMax) - double(e.valueMin)));
  return e.encoding == LayerEncoding::Unorm16 ? unorm16(t) : unorm8(t);
}

std::vector<uint8_t> encodeLayer(const LayerEntry& e, const std::vector<float>& values) {
  if (e.width <= 0 || e.height <= 0 || values.size() != size_t(e.width) * size_t(e.height))
    throw std::invalid_argument("encodeLayer: " + std::to_string(values.size()) + " values for a " +
                                std::to_string(e.width) + " x " + std::to_string(e.height) + " layer");
  if (!(std::isfinite(e.valueMin) && std::isfinite(e.valueMax) && e.valueMin < e.valueMax))
    throw std::invalid_argument("encodeLayer: layer " + e.name + " has no finite, increasing value range");
  std::vector<uint8_t> out(values.size() * layerBytesPerCode(e.encoding));
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t c = layerCodeOf(e, values[i]);
    if (e.encoding == LayerEncoding::Unorm16) {
      out[2 * i] = uint8_t(c & 0xff);
      out[2 * i + 1] = uint8_t(c >> 8);
    } else {
      out[i] = uint8_t(c);
    }
  }
  return out;
}

uint32_t layerCode(const LayerEntry& e, const std::vector<uint8_t>& bytes, size_t i) {
  if (e.encoding == LayerEncoding::Unorm16) return uint32_t(bytes[2 * i]) | uint32_t(bytes[2 * i + 1]) << 8;
  return bytes[i];
}

float layerValue(const LayerEntry& e, uint32_t code) {
  return float(double(e.valueMin) +
               double(code) / double(layerCodeMax(e.encoding)) * (double(e.valueMax) - double(e.valueMin)));
}

std::vector<uint8_t> readLayerVerified(const std::string& dir, const LayerEntry& e) {
  const std::string path = bakeMemberPath(dir, e.file);
  const uint64_t expected = layerFileBytes(e);
  if (const uint64_t size = regularFileSize(path); size != expected)
    throw InputError(path + ": " + std::to_string(size) + " bytes, but the manifest's layer \"" + e.name + "\" is " +
                     std::to_string(e.width) + " x " + std::to_string(e.height) + " " + layerEncodingName(e.encoding) +
                     " (" + std::to_string(expected) + " bytes)");
  // At most `expected` bytes even if the file grew since the stat above.
  std::vector<uint8_t> bytes = readFileBytes(path, expected, "layer");
  if (bytes.size() != expected)
    throw InputError(path + ": " + std::to_string(bytes.size()) + " bytes, manifest says " + std::to_string(expected));
  if (const uint64_t actual = checksum64(bytes); actual != e.checksum)
    throw InputError(path + ": checksum mismatch (xxh3_64 " + hex64(actual) + ", manifest says " + hex64(e.checksum) + ")");
  return bytes;
}

}  // namespace eco
