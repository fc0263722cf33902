// PNG reading through stb_image, after validating the IHDR ourselves: stb silently converts
// palettes, low bit depths and alpha, which would hide user mistakes in a heightmap.
#include <stb_image.h>

#include <fstream>

#include "core/error.h"
#include "terrain/image_io_internal.h"

namespace eco::detail {
namespace {

struct PngHeader {
  int64_t width = 0, height = 0;
  int bitDepth = 0;
  int colorType = 0;
};

uint32_t readBigEndian32(const unsigned char* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

PngHeader readPngHeader(const std::string& path) {
  // signature (8) + chunk length (4) + "IHDR" (4) + width, height (8) + depth, colour type (2)
  unsigned char bytes[26] = {};
  std::ifstream file(path, std::ios::binary);
  if (!file.read(reinterpret_cast<char*>(bytes), sizeof(bytes)) || std::string(bytes + 12, bytes + 16) != "IHDR")
    throw InputError(path + ": corrupt PNG (missing or truncated IHDR header)");
  return {readBigEndian32(bytes + 16), readBigEndian32(bytes + 20), bytes[24], bytes[25]};
}

// Validates everything the loader relies on; returns the header for convenience.
PngHeader checkedPngHeader(const std::string& path) {
  PngHeader header = readPngHeader(path);
  checkImageSize(path, header.width, header.height);
  const char* layout = nullptr;
  switch (header.colorType) {
    case 0: break;
    case 2: layout = "3 channels (RGB)"; break;
    case 3: layout = "a colour palette"; break;
    case 4: layout = "2 channels (gray + alpha)"; break;
    case 6: layout = "4 channels (RGBA)"; break;
    default: throw InputError(path + ": corrupt PNG (invalid colour type " + std::to_string(header.colorType) + ")");
  }
  if (layout) throw InputError(path + ": PNG has " + layout + ", expected a single grayscale channel");
  if (header.bitDepth != 8 && header.bitDepth != 16)
    throw InputError(path + ": unsupported PNG bit depth " + std::to_string(header.bitDepth) + " (expected 8 or 16)");
  return header;
}

}  // namespace

ImageInfo probePng(const std::string& path) {
  PngHeader header = checkedPngHeader(path);
  return {int(header.width), int(header.height), 1, header.bitDepth};
}

Image loadPng(const std::string& path) {
  PngHeader header = checkedPngHeader(path);
  const bool is16 = header.bitDepth == 16;
  if (stbi_is_16_bit(path.c_str()) != int(is16)) throw InputError(path + ": corrupt PNG (inconsistent header)");

  // Ask for exactly one channel: with a tRNS chunk stb would otherwise add an alpha channel.
  int w = 0, h = 0, fileChannels = 0;
  void* data = is16 ? static_cast<void*>(stbi_load_16(path.c_str(), &w, &h, &fileChannels, 1))
                    : static_cast<void*>(stbi_load(path.c_str(), &w, &h, &fileChannels, 1));
  if (!data) throw InputError(path + ": corrupt or truncated PNG (" + stbi_failure_reason() + ")");
  if (w != header.width || h != header.height) {
    stbi_image_free(data);
    throw InputError(path + ": corrupt PNG (decoded size differs from header)");
  }

  Image image{Grid(w, h), header.bitDepth};
  for (size_t i = 0; i < image.pixels.values.size(); ++i)
    image.pixels.values[i] = is16 ? float(static_cast<const uint16_t*>(data)[i]) / 65535.f
                                  : float(static_cast<const uint8_t*>(data)[i]) / 255.f;
  stbi_image_free(data);
  return image;
}

}  // namespace eco::detail
