#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.h"
#include "terrain/image_io_internal.h"

namespace eco {
namespace detail {

void checkImageSize(const std::string& path, int64_t width, int64_t height) {
  std::string size = std::to_string(width) + "x" + std::to_string(height);
  if (width <= 0 || height <= 0) throw InputError(path + ": image has zero size (" + size + ")");
  if (width > kMaxImageSide || height > kMaxImageSide || width * height > kMaxImagePixels)
    throw InputError(path + ": image of " + size + " pixels is too large (limit " + std::to_string(kMaxImageSide) +
                     " per side and " + std::to_string(kMaxImagePixels) + " pixels)");
}

void checkFinite(const std::string& path, const Grid& grid) {
  for (int y = 0; y < grid.height; ++y)
    for (int x = 0; x < grid.width; ++x)
      if (!std::isfinite(grid.at(x, y)))
        throw InputError(path + ": pixel " + std::to_string(x) + "," + std::to_string(y) + " is " +
                         (std::isnan(grid.at(x, y)) ? "NaN" : "infinite"));
}

}  // namespace detail

namespace {

enum class FileKind { Png, Exr };

// Identifies the file by its magic bytes, so a misnamed file still gets a precise message.
FileKind fileKind(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path + ": file not found or not a regular file");
  std::ifstream file(path, std::ios::binary);
  unsigned char magic[8] = {};
  if (!file.read(reinterpret_cast<char*>(magic), sizeof(magic))) {
    if (!file.is_open()) throw InputError(path + ": cannot open file");
    throw InputError(path + ": file too short to be a PNG or EXR image");
  }
  const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  const unsigned char exr[4] = {0x76, 0x2f, 0x31, 0x01};
  if (std::memcmp(magic, png, 8) == 0) return FileKind::Png;
  if (std::memcmp(magic, exr, 4) == 0) return FileKind::Exr;
  throw InputError(path + ": not a PNG or EXR image (unknown file signature)");
}

}  // namespace

ImageInfo probeImage(const std::string& path) {
  return fileKind(path) == FileKind::Png ? detail::probePng(path) : detail::probeExr(path);
}

Image loadImage(const std::string& path) {
  return fileKind(path) == FileKind::Png ? detail::loadPng(path) : detail::loadExr(path);
}

ImageInfo probeRaw(const std::string& path, RawFormat format, int width, int height) {
  detail::checkImageSize(path, width, height);
  const int bytesPerSample = format == RawFormat::R16 ? 2 : 4;
  const char* name = format == RawFormat::R16 ? "r16" : "r32f";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path + ": file not found or not a regular file");
  uintmax_t actual = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path + ": cannot read file size");
  uintmax_t expected = uintmax_t(width) * uintmax_t(height) * uintmax_t(bytesPerSample);
  if (actual != expected)
    throw InputError(path + ": raw " + name + " file of " + std::to_string(width) + "x" + std::to_string(height) +
                     " should be " + std::to_string(expected) + " bytes but is " + std::to_string(actual) + " bytes");
  return {width, height, 1, bytesPerSample * 8};
}

Image loadRaw(const std::string& path, RawFormat format, int width, int height) {
  ImageInfo info = probeRaw(path, format, width, height);
  std::vector<unsigned char> bytes(size_t(width) * size_t(height) * size_t(info.bitsPerChannel / 8));
  std::ifstream file(path, std::ios::binary);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
    throw InputError(path + ": cannot read file");

  Image image{Grid(width, height), info.bitsPerChannel};
  for (size_t i = 0; i < image.pixels.values.size(); ++i) {
    if (format == RawFormat::R16) {
      uint16_t v = uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8));
      image.pixels.values[i] = float(v) / 65535.f;
    } else {
      uint32_t bits = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 | uint32_t(bytes[4 * i + 2]) << 16 |
                      uint32_t(bytes[4 * i + 3]) << 24;
      std::memcpy(&image.pixels.values[i], &bits, 4);
    }
  }
  if (format == RawFormat::R32F) detail::checkFinite(path, image.pixels);
  return image;
}

}  // namespace eco
