// The image decoders against independent references: PNGs written here (every row filter,
// Adam7 interlacing, tRNS, IDAT split over chunks) must decode to the samples written, and to
// what stb's own PNG loader gives; damaged, oversized and bomb-like files must be refused with
// one line before anything large is allocated.
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <tinyexr.h>

#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <functional>
#include <limits>
#include <random>

#include "core/error.h"
#include "terrain/terrain.h"
#include "input_error.h"
#include "test_support.h"

// Bytes held through operator new (the decoders' buffers and the Grid are std::vectors), and
// their high-water mark, for the peak-memory test.
static std::atomic<size_t> gLiveBytes{0}, gPeakBytes{0};

void* operator new(size_t size) {
  void* p = std::malloc(size ? size : 1);
  if (!p) throw std::bad_alloc();
  size_t live = gLiveBytes += malloc_usable_size(p);
  for (size_t peak = gPeakBytes; live > peak && !gPeakBytes.compare_exchange_weak(peak, live);) {
  }
  return p;
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept {
  if (!p) return;
  gLiveBytes -= malloc_usable_size(p);
  std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }

// Defined in libstb (stb_image_write.c), as in terrain/png16.cpp.
extern "C" unsigned char* stbi_zlib_compress(unsigned char* data, int dataLen, int* outLen, int quality);

using namespace eco;
using eco::test::errorOf;

namespace {

uint32_t crc32(const std::string& data) {
  uint32_t crc = ~0u;
  for (char ch : data) {
    crc ^= static_cast<unsigned char>(ch);
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
  }
  return ~crc;
}

std::string be32(uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

std::string chunk(const std::string& type, const std::string& data) {
  return be32(uint32_t(data.size())) + type + data + be32(crc32(type + data));
}

int paeth(int a, int b, int c) {
  int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

struct PngOptions {
  int bitDepth = 16;
  bool interlaced = false;
  bool trns = false;
  int idatPieces = 1;  // the compressed stream split over this many IDAT chunks
  uint32_t filterSeed = 1;
};

// A grayscale PNG of the given samples, written from the specification: random row filters,
// Adam7 passes when interlaced.
std::string encodePng(int w, int h, const std::vector<uint16_t>& samples, const PngOptions& o) {
  const size_t bpp = size_t(o.bitDepth / 8);
  std::mt19937 rng(o.filterSeed);
  std::string filtered;
  auto emitPass = [&](int x0, int y0, int dx, int dy) {
    int pw = (w - x0 + dx - 1) / dx, ph = (h - y0 + dy - 1) / dy;
    if (pw <= 0 || ph <= 0) return;
    std::vector<uint8_t> prev(size_t(pw) * bpp, 0), row(size_t(pw) * bpp);
    for (int j = 0; j < ph; ++j) {
      for (int i = 0; i < pw; ++i) {
        uint16_t v = samples[size_t(y0 + j * dy) * size_t(w) + size_t(x0 + i * dx)];
        if (bpp == 2) {
          row[size_t(i) * 2] = uint8_t(v >> 8);
          row[size_t(i) * 2 + 1] = uint8_t(v);
        } else {
          row[size_t(i)] = uint8_t(v);
        }
      }
      int filter = int(rng() % 5);
      filtered += char(filter);
      for (size_t k = 0; k < row.size(); ++k) {
        int a = k >= bpp ? row[k - bpp] : 0, b = j > 0 ? prev[k] : 0;
        int c = (j > 0 && k >= bpp) ? prev[k - bpp] : 0;
        int predictor = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : filter == 4 ? paeth(a, b, c) : 0;
        filtered += char(uint8_t(row[k] - predictor));
      }
      prev = row;
    }
  };
  if (o.interlaced) {
    const int x0[7] = {0, 4, 0, 2, 0, 1, 0}, y0[7] = {0, 0, 4, 0, 2, 0, 1};
    const int dx[7] = {8, 8, 4, 4, 2, 2, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};
    for (int p = 0; p < 7; ++p) emitPass(x0[p], y0[p], dx[p], dy[p]);
  } else {
    emitPass(0, 0, 1, 1);
  }
  int zlibSize = 0;
  unsigned char* zlib = stbi_zlib_compress(reinterpret_cast<unsigned char*>(filtered.data()), int(filtered.size()),
                                           &zlibSize, 8);
  std::string compressed(reinterpret_cast<char*>(zlib), size_t(zlibSize));
  std::free(zlib);

  std::string png = "\x89PNG\r\n\x1a\n";
  png += chunk("IHDR", be32(uint32_t(w)) + be32(uint32_t(h)) + char(o.bitDepth) + std::string(3, '\0') +
                           char(o.interlaced ? 1 : 0));
  if (o.trns) png += chunk("tRNS", std::string("\0\x07", 2));
  png += chunk("tEXt", std::string("Comment\0test", 12));
  size_t piece = compressed.size() / size_t(o.idatPieces) + 1;
  for (size_t at = 0; at < compressed.size(); at += piece) png += chunk("IDAT", compressed.substr(at, piece));
  png += chunk("IEND", "");
  return png;
}

// stb's own PNG loader on the same bytes: an independent reference for the samples.
std::vector<uint16_t> stbReference(const std::string& png, int bitDepth, int& w, int& h) {
  int n = 0;
  const auto* bytes = reinterpret_cast<const stbi_uc*>(png.data());
  std::vector<uint16_t> out;
  if (bitDepth == 16) {
    stbi_us* data = stbi_load_16_from_memory(bytes, int(png.size()), &w, &h, &n, 1);
    if (!data) return out;
    out.assign(data, data + size_t(w) * size_t(h));
    stbi_image_free(data);
  } else {
    stbi_uc* data = stbi_load_from_memory(bytes, int(png.size()), &w, &h, &n, 1);
    if (!data) return out;
    out.assign(data, data + size_t(w) * size_t(h));
    stbi_image_free(data);
  }
  return out;
}

// A zlib stream of `zeros` zero bytes, written without holding them: fixed-Huffman codes of
// one literal then back-references of 258 bytes at distance 1 (13 bits per 258 bytes).
std::string zeroBomb(uint64_t zeros) {
  std::string out = "\x78\x01";
  uint64_t bitBuffer = 0;
  int bits = 0;
  auto put = [&](uint32_t value, int count) {  // LSB-first fields
    bitBuffer |= uint64_t(value) << bits;
    bits += count;
    while (bits >= 8) {
      out += char(bitBuffer & 0xff);
      bitBuffer >>= 8;
      bits -= 8;
    }
  };
  auto putCode = [&](uint32_t code, int count) {  // Huffman codes go MSB first
    uint32_t reversed = 0;
    for (int i = 0; i < count; ++i) reversed |= ((code >> i) & 1) << (count - 1 - i);
    put(reversed, count);
  };
  put(1, 1);                           // final block
  put(1, 2);                           // fixed Huffman
  putCode(0x30, 8);                    // literal 0
  for (uint64_t done = 1; done + 258 <= zeros; done += 258) {
    putCode(0xC5, 8);                  // length 258 (code 285)
    putCode(0, 5);                     // distance 1
  }
  putCode(0, 7);                       // end of block
  if (bits > 0) put(0, 8 - bits);
  out += std::string(4, '\0');         // adler32 (not checked by the decoder)
  return out;
}

long maxRssKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

std::string pngWithIdat(int w, int h, int bitDepth, const std::string& idat) {
  return "\x89PNG\r\n\x1a\n" +
         chunk("IHDR", be32(uint32_t(w)) + be32(uint32_t(h)) + char(bitDepth) + std::string(4, '\0')) +
         chunk("IDAT", idat) + chunk("IEND", "");
}

}  // namespace

// Runs first (declaration order): the process is still small, so ru_maxrss shows what the
// load allocates. Before the fix stb grew its inflate buffer to the whole stream (256 MiB).
TEST(TerrainDecode, InflateBombIsRefusedWithoutAllocatingIt) {
  test::TempDir dir;
  std::string path = dir.file("bomb.png");
  test::writeBytes(path, pngWithIdat(64, 64, 16, zeroBomb(uint64_t(256) << 20)));
  ASSERT_LT(test::readBytes(path).size(), size_t(2) << 20);
  const long before = maxRssKb();
  EXPECT_INPUT_ERROR(loadImage(path), "bomb.png", "inflates to more than the 8256 bytes of a 64x64 image");
  EXPECT_LT(maxRssKb() - before, 32 * 1024) << "KiB grown while refusing the file";
}

TEST(TerrainDecode, MatchesWrittenSamplesAndStbForEveryLayout) {
  test::TempDir dir;
  std::mt19937 rng(3);
  const std::array<std::pair<int, int>, 9> sizes{{{1, 1}, {1, 9}, {9, 1}, {2, 2}, {5, 3}, {8, 8}, {9, 9}, {17, 6}, {33, 41}}};
  int cases = 0;
  for (auto [w, h] : sizes)
    for (int bitDepth : {8, 16})
      for (bool interlaced : {false, true})
        for (bool trns : {false, true}) {
          std::vector<uint16_t> samples(size_t(w) * size_t(h));
          for (auto& s : samples) s = uint16_t(rng() & (bitDepth == 16 ? 0xffff : 0xff));
          PngOptions o{bitDepth, interlaced, trns, int(1 + rng() % 3), uint32_t(rng())};
          std::string png = encodePng(w, h, samples, o);
          std::string path = dir.file("case.png");
          test::writeBytes(path, png);
          Image image = loadImage(path);
          ASSERT_EQ(image.pixels.width, w);
          ASSERT_EQ(image.pixels.height, h);
          EXPECT_EQ(image.bitsPerChannel, bitDepth);
          int rw = 0, rh = 0;
          std::vector<uint16_t> reference = stbReference(png, bitDepth, rw, rh);
          ASSERT_EQ(reference.size(), samples.size());
          const float scale = bitDepth == 16 ? 65535.f : 255.f;
          for (size_t i = 0; i < samples.size(); ++i) {
            ASSERT_EQ(reference[i], samples[i]) << "stb disagrees with the encoder at " << i;
            ASSERT_EQ(image.pixels.values[i], float(samples[i]) / scale)
                << w << "x" << h << " depth " << bitDepth << " interlaced " << interlaced << " pixel " << i;
          }
          ++cases;
        }
  EXPECT_EQ(cases, 72);
}

TEST(TerrainDecode, RefusesBadChunksWithOneLinePlainMessages) {
  test::TempDir dir;
  std::vector<uint16_t> samples(64 * 64, 1000);
  std::string good = encodePng(64, 64, samples, {});
  std::string path = dir.file("bad.png");

  // The file: the top bit of the IDAT length (byte 33) set.
  std::string bytes = good;
  bytes[33] = char(uint8_t(bytes[33]) | 0x80);
  test::writeBytes(path, bytes);
  std::string message = errorOf([&] { loadImage(path); });
  EXPECT_EQ(message, path + ": corrupt PNG (chunk 'tEXt' at byte 33 has an invalid length of " +
                         std::to_string(0x80000000u + 12) + " bytes)");

  // A length just inside 31 bits but past the end of the file.
  bytes = good;
  bytes[33] = 0x7f;
  test::writeBytes(path, bytes);
  EXPECT_INPUT_ERROR(loadImage(path), "bad.png", "more than the file holds");

  // Damaged chunk type letters: no junk in the message.
  bytes = good;
  size_t idat = bytes.find("IDAT");
  bytes[idat + 1] = char(0xC9);
  bytes[idat - 1] = char(0xff);
  bytes[idat - 4] = char(0x80);
  test::writeBytes(path, bytes);
  message = errorOf([&] { loadImage(path); });
  EXPECT_NE(message.find("corrupt PNG (chunk at byte"), std::string::npos) << message;

  // No IEND: a truncated file.
  test::writeBytes(path, good.substr(0, good.size() - 12));
  EXPECT_INPUT_ERROR(loadImage(path), "bad.png", "no IEND chunk");

  // Image data short of what the header needs, and a damaged deflate stream.
  test::writeBytes(path, pngWithIdat(64, 64, 16, zeroBomb(1 + 3 * 258)));
  EXPECT_INPUT_ERROR(loadImage(path), "bad.png", "the image data ends after 775 of the 8256 bytes");
  test::writeBytes(path, pngWithIdat(64, 64, 16, std::string("\x78\x01\xff\xff\xff\xff\xff\xff", 8)));
  EXPECT_INPUT_ERROR(loadImage(path), "bad.png", "the compressed image data is damaged");

  // An invalid row filter.
  std::string rows(8256, '\0');
  rows[129 * 5] = 7;
  int zlibSize = 0;
  unsigned char* zlib = stbi_zlib_compress(reinterpret_cast<unsigned char*>(rows.data()), int(rows.size()), &zlibSize, 8);
  test::writeBytes(path, pngWithIdat(64, 64, 16, std::string(reinterpret_cast<char*>(zlib), size_t(zlibSize))));
  std::free(zlib);
  EXPECT_INPUT_ERROR(loadImage(path), "bad.png", "invalid row filter 7 in row 5");

  // An unknown critical chunk.
  bytes = good;
  bytes.insert(33, chunk("ZZZZ", "x"));
  test::writeBytes(path, bytes);
  EXPECT_INPUT_ERROR(loadImage(path), "bad.png", "unknown critical chunk 'ZZZZ'");
}

TEST(TerrainDecode, RefusesAbsurdExrDataWindows) {
  test::TempDir dir;
  std::vector<float> values(16, 1.f);
  std::string path = dir.file("window.exr");
  const char* err = nullptr;
  ASSERT_EQ(SaveEXR(values.data(), 4, 4, 1, 0, path.c_str(), &err), TINYEXR_SUCCESS);
  const std::string good = test::readBytes(path);
  const std::string key("dataWindow\0box2i\0", 17);
  const size_t at = good.find(key);
  ASSERT_NE(at, std::string::npos);
  const size_t box = at + key.size() + 4;  // after the attribute's size
  auto withBox = [&](int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    std::string bytes = good;
    int32_t v[4] = {x0, y0, x1, y1};
    std::memcpy(&bytes[box], v, sizeof(v));
    test::writeBytes(path, bytes);
  };
  for (auto [x0, y0, x1, y1] : std::vector<std::array<int32_t, 4>>{
           {0, 0, std::numeric_limits<int32_t>::max(), 3},
           {std::numeric_limits<int32_t>::min(), 0, std::numeric_limits<int32_t>::max(), 3},
           {0, 0, 40000, 40000},
           {0, 0, 3, -5},
           {5, 0, 3, 3}}) {
    withBox(x0, y0, x1, y1);
    std::string message = errorOf([&] { loadImage(path); });
    EXPECT_NE(message.find("window.exr"), std::string::npos) << message;
    message = errorOf([&] { probeImage(path); });
    EXPECT_NE(message.find("window.exr"), std::string::npos) << message;
  }
}

TEST(TerrainDecode, NonRegularFilesAreRefusedWithoutBlocking) {
  test::TempDir dir;
  for (const char* name : {"fifo.png", "fifo.exr", "fifo.r16", "fifo.r32f"}) {
    ASSERT_EQ(mkfifo(dir.file(name).c_str(), 0644), 0);
    EXPECT_INPUT_ERROR(loadInput(dir.file(name), 2, 2), name, "FIFO");
    EXPECT_INPUT_ERROR(probeInput(dir.file(name), 2, 2), name, "FIFO");
  }
  EXPECT_INPUT_ERROR(loadImage("/dev/zero"), "/dev/zero", "device");
  EXPECT_INPUT_ERROR(loadRaw("/dev/zero", RawFormat::R16, 2, 2), "/dev/zero", "device");
  std::filesystem::create_directory(dir.file("folder.r32f"));
  EXPECT_INPUT_ERROR(loadInput(dir.file("folder.r32f"), 2, 2), "folder.r32f", "folder");
}

TEST(TerrainDecode, InputFormatIsCaseInsensitive) {
  EXPECT_EQ(inputFormatOf("a/HM.R16"), InputFormat::R16);
  EXPECT_EQ(inputFormatOf("HM.R32F"), InputFormat::R32F);
  EXPECT_EQ(inputFormatOf("x.Png"), InputFormat::Png);
  EXPECT_EQ(inputFormatOf("x.EXR"), InputFormat::Exr);
  EXPECT_EQ(inputFormatOf("x.r32"), InputFormat::Unknown);
  EXPECT_EQ(inputFormatOf("x.png.bak"), InputFormat::Unknown);
  EXPECT_EQ(inputFormatOf("png"), InputFormat::Unknown);

  test::TempDir dir;
  std::vector<uint16_t> samples = {0, 1, 65535, 300};
  std::string bytes;
  for (uint16_t s : samples) bytes += std::string{char(s & 0xff), char(s >> 8)};
  test::writeBytes(dir.file("HM.R16"), bytes);
  Image image = loadInput(dir.file("HM.R16"), 2, 2);
  for (size_t i = 0; i < samples.size(); ++i) EXPECT_EQ(image.pixels.values[i], float(samples[i]) / 65535.f);
}

TEST(TerrainDecode, RiverExtentRuleIsSymmetric) {
  EXPECT_EQ(riverExtentProblem(9, 7, 17, 13), "");
  EXPECT_EQ(riverExtentProblem(4, 3, 11, 8), "");   // 10 x 6.67 for 10 x 7: a third of a cell
  EXPECT_NE(riverExtentProblem(4, 4, 11, 8), "");
  // Within half a cell along z but 1 cell off along x: validate used to check z only.
  EXPECT_NE(riverExtentProblem(10, 2, 1001, 112), "");
  EXPECT_NE(riverExtentProblem(1, 5, 9, 9), "");
}

// Item 10: a load holds the file, the inflated rows (2 bytes a pixel) and the Grid (4), not
// more copies; makeHeightmap takes the Grid over instead of copying it.
TEST(TerrainDecode, PeakMemoryOfALoadStaysNearTheGrid) {
  test::TempDir dir;
  const int w = 2048, h = 2048;
  std::string path = dir.file("big.png");
  {
    std::vector<uint16_t> samples(size_t(w) * h);
    for (size_t i = 0; i < samples.size(); ++i) samples[i] = uint16_t(i * 2654435761u >> 7);
    test::writeBytes(path, encodePng(w, h, samples, {}));
  }
  const size_t fileBytes = test::readBytes(path).size();
  const size_t gridBytes = size_t(w) * h * sizeof(float), rowBytes = size_t(h) * (1 + size_t(w) * 2);
  const size_t before = gLiveBytes;
  gPeakBytes = before;
  Image image = loadImage(path);
  const size_t peak = gPeakBytes - before;
  EXPECT_LE(peak, fileBytes + rowBytes + gridBytes + (size_t(1) << 20)) << "file " << fileBytes;
  EXPECT_GE(peak, rowBytes + gridBytes);  // the accounting sees the decoder's buffers

  const float* pixels = image.pixels.values.data();
  const float first = image.pixels.values[0];
  Heightmap terrain = makeHeightmap(std::move(image), {1.f, 2.f, 3.f});
  EXPECT_EQ(terrain.metres.values.data(), pixels);
  EXPECT_EQ(terrain.metres.values[0], first * 2.f + 3.f);
}
