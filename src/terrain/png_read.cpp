// PNG reading: the chunk walk, header checks and row filters are here; stb's zlib inflates
// the image data into a buffer of exactly the size the header implies. stb's own PNG loader
// is not used: it silently converts palettes, low bit depths and alpha (which would hide user
// mistakes in a heightmap), grows its inflate buffer without bound (a small file can claim
// gigabytes of image data) and keeps a second copy of the pixels.
#include <stb_image.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "core/error.h"
#include "terrain/image_io_internal.h"

namespace eco::detail {
namespace {

struct PngHeader {
  int64_t width = 0, height = 0;
  int bitDepth = 0;
  int colorType = 0;
  int interlace = 0;
};

uint32_t readBigEndian32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

[[noreturn]] void corrupt(const std::string& path, const std::string& what) {
  throw InputError(path + ": corrupt PNG (" + what + ")");
}

// "chunk 'tEXt'" when the type is four letters as the format requires, else "chunk" (a
// damaged type would print as junk).
std::string chunkName(const uint8_t* type) {
  for (int i = 0; i < 4; ++i)
    if (!((type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z'))) return "chunk";
  return "chunk '" + std::string(type, type + 4) + "'";
}

PngHeader readPngHeader(const std::string& path, Bytes file) {
  // signature (8) + chunk length (4) + "IHDR" (4) + 13 bytes of fields + CRC (4)
  if (file.size < 33 || readBigEndian32(file.data + 8) != 13 || std::memcmp(file.data + 12, "IHDR", 4) != 0)
    corrupt(path, "missing or truncated IHDR header");
  const uint8_t* f = file.data + 16;
  return {readBigEndian32(f), readBigEndian32(f + 4), f[8], f[9], f[12]};
}

int pngChannels(int colorType) { return colorType == 2 ? 3 : colorType == 4 ? 2 : colorType == 6 ? 4 : 1; }

// Validates everything the loader relies on; returns the header for convenience.
PngHeader checkedPngHeader(const std::string& path, Bytes file, int channel) {
  PngHeader header = readPngHeader(path, file);
  checkImageSize(path, header.width, header.height);
  const char* layout = nullptr;
  switch (header.colorType) {
    case 0: break;
    case 2: layout = "3 channels (RGB)"; break;
    case 3: layout = "a colour palette"; break;
    case 4: layout = "2 channels (gray + alpha)"; break;
    case 6: layout = "4 channels (RGBA)"; break;
    default: corrupt(path, "invalid colour type " + std::to_string(header.colorType));
  }
  if (header.colorType == 3 || (layout && channel == kSingleChannel))
    throw InputError(path + ": PNG has " + layout + ", expected a single grayscale channel");
  const bool gray = header.colorType == 0 || header.colorType == 4;
  if (channel != kSingleChannel && channelSample(channel, pngChannels(header.colorType), gray) < 0) {
    static const char* names[] = {"r", "g", "b", "a"};
    throw InputError(path + ": PNG has " + (layout ? std::string(layout) : std::string("1 channel (gray)")) +
                     ", no channel '" + (channel < 4 ? names[channel] : "?") + "'");
  }
  if (header.bitDepth != 8 && header.bitDepth != 16)
    throw InputError(path + ": unsupported PNG bit depth " + std::to_string(header.bitDepth) + " (expected 8 or 16)");
  const uint8_t* f = file.data + 16;
  if (f[10] != 0 || f[11] != 0) corrupt(path, "unknown compression or filter method in the IHDR header");
  if (header.interlace > 1) corrupt(path, "unknown interlace method " + std::to_string(header.interlace));
  return header;
}

// A pass of the image: all of it, or one of Adam7's seven sub-images.
struct Pass {
  int64_t x0 = 0, y0 = 0, dx = 1, dy = 1;
  int64_t width = 0, height = 0;  // in pixels; a pass of an image narrower than its step is empty
};

std::vector<Pass> passesOf(const PngHeader& h) {
  if (h.interlace == 0) return {Pass{0, 0, 1, 1, h.width, h.height}};
  const int x0[7] = {0, 4, 0, 2, 0, 1, 0}, y0[7] = {0, 0, 4, 0, 2, 0, 1};
  const int dx[7] = {8, 8, 4, 4, 2, 2, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};
  std::vector<Pass> passes;
  for (int p = 0; p < 7; ++p) {
    Pass pass{x0[p], y0[p], dx[p], dy[p], (h.width - x0[p] + dx[p] - 1) / dx[p], (h.height - y0[p] + dy[p] - 1) / dy[p]};
    if (pass.width > 0 && pass.height > 0) passes.push_back(pass);
  }
  return passes;
}

int paeth(int a, int b, int c) {
  int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

// Undoes the per-row filters of one pass in place; each row is a filter byte and rowBytes
// of samples. bpp: bytes per pixel (1 to 8).
void unfilter(const std::string& path, uint8_t* rows, size_t rowBytes, int64_t height, size_t bpp) {
  const uint8_t* prev = nullptr;
  for (int64_t y = 0; y < height; ++y) {
    uint8_t* row = rows + size_t(y) * (rowBytes + 1);
    const int filter = row[0];
    uint8_t* cur = row + 1;
    switch (filter) {
      case 0: break;
      case 1:
        for (size_t i = bpp; i < rowBytes; ++i) cur[i] = uint8_t(cur[i] + cur[i - bpp]);
        break;
      case 2:
        if (prev)
          for (size_t i = 0; i < rowBytes; ++i) cur[i] = uint8_t(cur[i] + prev[i]);
        break;
      case 3:
        for (size_t i = 0; i < rowBytes; ++i) {
          int a = i >= bpp ? cur[i - bpp] : 0, b = prev ? prev[i] : 0;
          cur[i] = uint8_t(cur[i] + ((a + b) >> 1));
        }
        break;
      case 4:
        for (size_t i = 0; i < rowBytes; ++i) {
          int a = i >= bpp ? cur[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= bpp ? prev[i - bpp] : 0;
          cur[i] = uint8_t(cur[i] + paeth(a, b, c));
        }
        break;
      default:
        corrupt(path, "invalid row filter " + std::to_string(filter) + " in row " + std::to_string(y));
    }
    prev = cur;
  }
}

}  // namespace

ImageInfo probePng(const std::string& path, Bytes file, int channel) {
  PngHeader header = checkedPngHeader(path, file, channel);
  return {int(header.width), int(header.height), pngChannels(header.colorType), header.bitDepth};
}

Image loadPng(const std::string& path, std::vector<uint8_t>&& fileBytes, int channel) {
  std::vector<uint8_t> bytes = std::move(fileBytes);
  const PngHeader header = checkedPngHeader(path, {bytes.data(), bytes.size()}, channel);
  const size_t sampleBytes = size_t(header.bitDepth / 8);
  const size_t bpp = sampleBytes * size_t(pngChannels(header.colorType));
  const bool gray = header.colorType == 0 || header.colorType == 4;
  const size_t first =
      channel == kSingleChannel ? 0 : size_t(channelSample(channel, pngChannels(header.colorType), gray)) * sampleBytes;

  // Chunk walk: the image data is the concatenation of the IDAT chunks (CRCs are not checked).
  std::vector<std::pair<size_t, size_t>> idat;  // offset, length
  size_t idatBytes = 0;
  bool ended = false;
  for (size_t pos = 8; !ended;) {
    if (bytes.size() - pos < 12) {
      if (pos == bytes.size()) corrupt(path, "truncated file: no IEND chunk");
      corrupt(path, "truncated file: it ends inside the chunk header at byte " + std::to_string(pos));
    }
    const uint32_t length = readBigEndian32(bytes.data() + pos);
    const uint8_t* type = bytes.data() + pos + 4;
    if (length > uint32_t(INT32_MAX))
      corrupt(path, chunkName(type) + " at byte " + std::to_string(pos) + " has an invalid length of " +
                        std::to_string(length) + " bytes");
    if (length > bytes.size() - pos - 12)
      corrupt(path, chunkName(type) + " at byte " + std::to_string(pos) + " claims " + std::to_string(length) +
                        " bytes, more than the file holds (truncated file?)");
    if (std::memcmp(type, "IDAT", 4) == 0) {
      idat.emplace_back(pos + 8, length);
      idatBytes += length;
    } else if (std::memcmp(type, "IEND", 4) == 0) {
      ended = true;
    } else if (std::memcmp(type, "IHDR", 4) == 0) {
      if (pos != 8) corrupt(path, "second IHDR chunk at byte " + std::to_string(pos));
    } else if ((type[0] & 0x20) == 0 && std::memcmp(type, "PLTE", 4) != 0) {
      // Critical chunks other than these change how the image reads; ancillary ones do not.
      throw InputError(path + ": PNG uses an unknown critical " + chunkName(type) + " at byte " +
                       std::to_string(pos) + ", cannot read it");
    }
    pos += 12 + size_t(length);
  }
  if (idat.empty()) corrupt(path, "no image data (IDAT chunk)");

  // The filtered rows take exactly this many bytes; stb inflates into a buffer of this size
  // and fails rather than grow it, so a stream claiming more is refused, not allocated.
  const std::vector<Pass> passes = passesOf(header);
  size_t rawSize = 0;
  for (const Pass& p : passes) rawSize += size_t(p.height) * (1 + size_t(p.width) * bpp);
  if (rawSize > size_t(INT_MAX) || idatBytes > size_t(INT_MAX)) corrupt(path, "image data too large");

  std::vector<uint8_t> joined;
  const uint8_t* zlib = bytes.data() + idat[0].first;
  if (idat.size() > 1) {
    joined.reserve(idatBytes);
    for (auto [offset, length] : idat) joined.insert(joined.end(), bytes.data() + offset, bytes.data() + offset + length);
    zlib = joined.data();
  }
  std::vector<uint8_t> raw(rawSize);
  // stb keeps its last failure reason and some failures set none: start from a known one, so
  // "output buffer limit" below can only come from this call.
  const char empty[1] = {0};
  char scratch[1];
  stbi_zlib_decode_buffer(scratch, 1, empty, 0);
  const int inflated = stbi_zlib_decode_buffer(reinterpret_cast<char*>(raw.data()), int(rawSize),
                                               reinterpret_cast<const char*>(zlib), int(idatBytes));
  const std::string size = std::to_string(header.width) + "x" + std::to_string(header.height);
  if (inflated < 0) {
    const char* why = stbi_failure_reason();  // may be null; only its one telling value is used
    if (why && std::strcmp(why, "output buffer limit") == 0)
      corrupt(path, "the image data inflates to more than the " + std::to_string(rawSize) + " bytes of a " + size +
                        " image");
    corrupt(path, "the compressed image data is damaged");
  }
  if (size_t(inflated) != rawSize)
    corrupt(path, "the image data ends after " + std::to_string(inflated) + " of the " + std::to_string(rawSize) +
                      " bytes of a " + size + " image (truncated file?)");
  std::vector<uint8_t>().swap(joined);
  std::vector<uint8_t>().swap(bytes);

  Image image{Grid(int(header.width), int(header.height)), header.bitDepth};
  size_t offset = 0;
  for (const Pass& p : passes) {
    const size_t rowBytes = size_t(p.width) * bpp;
    uint8_t* rows = raw.data() + offset;
    unfilter(path, rows, rowBytes, p.height, bpp);
    for (int64_t j = 0; j < p.height; ++j) {
      const uint8_t* s = rows + size_t(j) * (rowBytes + 1) + 1 + first;
      float* out = &image.pixels.values[size_t(p.y0 + j * p.dy) * size_t(header.width) + size_t(p.x0)];
      if (sampleBytes == 2) {
        for (int64_t i = 0; i < p.width; ++i) {
          const uint8_t* v = s + size_t(i) * bpp;
          out[i * p.dx] = float(uint16_t(v[0] << 8 | v[1])) / 65535.f;
        }
      } else {
        for (int64_t i = 0; i < p.width; ++i) out[i * p.dx] = float(s[size_t(i) * bpp]) / 255.f;
      }
    }
    offset += size_t(p.height) * (rowBytes + 1);
  }
  return image;
}

}  // namespace eco::detail
