#include "terrain/png16.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/error.h"

// Defined in libstb (stb_image_write.c) but only declared inside its implementation section.
extern "C" unsigned char* stbi_zlib_compress(unsigned char* data, int dataLen, int* outLen, int quality);
extern "C" unsigned char* stbi_write_png_to_mem(const unsigned char* pixels, int strideBytes, int x, int y, int n,
                                                int* outLen);

namespace eco {
namespace {

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc = 0) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

void putU32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(uint8_t(v >> shift));
}

void putChunk(std::vector<uint8_t>& out, const char type[4], const uint8_t* data, size_t size) {
  putU32(out, uint32_t(size));
  size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data, data + size);
  putU32(out, crc32(out.data() + start, out.size() - start));
}

int paeth(int a, int b, int c) {
  int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

// Filters one scanline of big-endian samples with each PNG filter and keeps the one with the
// smallest sum of absolute signed residuals (the usual heuristic from the PNG spec).
void filterRow(const uint8_t* row, const uint8_t* prev, size_t size, std::vector<uint8_t>& out) {
  const size_t bpp = 2;
  std::vector<uint8_t> best, candidate(size);
  long bestCost = -1;
  for (int filter = 0; filter < 5; ++filter) {
    long cost = 0;
    for (size_t i = 0; i < size; ++i) {
      int a = i >= bpp ? row[i - bpp] : 0;
      int b = prev ? prev[i] : 0;
      int c = (prev && i >= bpp) ? prev[i - bpp] : 0;
      int predictor = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : filter == 4 ? paeth(a, b, c) : 0;
      candidate[i] = uint8_t(row[i] - predictor);
      cost += std::abs(int(int8_t(candidate[i])));
    }
    if (bestCost < 0 || cost < bestCost) {
      bestCost = cost;
      best = candidate;
      best.insert(best.begin(), uint8_t(filter));
    }
  }
  out.insert(out.end(), best.begin(), best.end());
}

}  // namespace

std::vector<uint8_t> encodePngRgb8(const std::string& path, int w, int h, const uint8_t* rgb) {
  if (w <= 0 || h <= 0 || size_t(w) * 3 * size_t(h) > size_t(INT32_MAX))
    throw InputError(path + ": cannot write PNG of size " + std::to_string(w) + "x" + std::to_string(h));
  int size = 0;
  unsigned char* png = stbi_write_png_to_mem(rgb, w * 3, w, h, 3, &size);
  if (!png) throw InputError(path + ": PNG encoding failed");
  std::vector<uint8_t> out(png, png + size);
  std::free(png);
  return out;
}

void writePng16(const std::string& path, int w, int h, const uint16_t* pixels) {
  std::vector<uint8_t> png = encodePng16(path, w, h, pixels);
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
  if (!file.good()) throw InputError(path + ": cannot write file");
}

std::vector<uint8_t> encodePng16(const std::string& path, int w, int h, const uint16_t* pixels) {
  const size_t rowBytes = size_t(w) * 2;
  if (w <= 0 || h <= 0 || (rowBytes + 1) * size_t(h) > size_t(INT32_MAX))
    throw InputError(path + ": cannot write PNG of size " + std::to_string(w) + "x" + std::to_string(h));

  std::vector<uint8_t> filtered;
  filtered.reserve((rowBytes + 1) * size_t(h));
  std::vector<uint8_t> row(rowBytes), prev(rowBytes);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint16_t v = pixels[size_t(y) * size_t(w) + size_t(x)];
      row[size_t(x) * 2] = uint8_t(v >> 8);
      row[size_t(x) * 2 + 1] = uint8_t(v);
    }
    filterRow(row.data(), y > 0 ? prev.data() : nullptr, rowBytes, filtered);
    std::swap(row, prev);
  }

  int zlibSize = 0;
  unsigned char* zlib = stbi_zlib_compress(filtered.data(), int(filtered.size()), &zlibSize, 8);
  if (!zlib) throw InputError(path + ": PNG compression failed");

  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> header;
  putU32(header, uint32_t(w));
  putU32(header, uint32_t(h));
  header.insert(header.end(), {16, 0, 0, 0, 0});  // 16 bit, grayscale, deflate, no interlace
  putChunk(png, "IHDR", header.data(), header.size());
  putChunk(png, "IDAT", zlib, size_t(zlibSize));
  putChunk(png, "IEND", nullptr, 0);
  std::free(zlib);
  return png;
}

}  // namespace eco
