#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "terrain/image_io_internal.h"

namespace eco {
namespace detail {

int channelSample(int channel, int samples, bool gray) {
  if (channel < 0 || channel > 3) return -1;
  if (gray) return channel < 3 ? 0 : samples >= 2 ? 1 : -1;
  return channel < samples ? channel : -1;
}

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

// Enough for any PNG header and for EXR headers with the usual attributes (a header larger
// than this, e.g. with a big embedded preview, fails the probe as truncated).
constexpr uint64_t kProbeBytes = uint64_t(4) << 20;

enum class FileKind { Png, Exr, Tiff };

// Identifies the file by its magic bytes, so a misnamed file still gets a precise message.
FileKind fileKind(const std::string& path, detail::Bytes file) {
  if (file.size < 8) throw InputError(path + ": file too short to be a PNG, EXR or TIFF image");
  const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  const unsigned char exr[4] = {0x76, 0x2f, 0x31, 0x01};
  if (std::memcmp(file.data, png, 8) == 0) return FileKind::Png;
  if (std::memcmp(file.data, exr, 4) == 0) return FileKind::Exr;
  // Little- or big-endian TIFF (42) or BigTIFF (43).
  if ((std::memcmp(file.data, "II", 2) == 0 && (file.data[2] == 42 || file.data[2] == 43) && file.data[3] == 0) ||
      (std::memcmp(file.data, "MM", 2) == 0 && file.data[2] == 0 && (file.data[3] == 42 || file.data[3] == 43)))
    return FileKind::Tiff;
  throw InputError(path + ": not a PNG, EXR or TIFF image (unknown file signature)");
}

ImageInfo probeBytes(const std::string& path, detail::Bytes file, int channel) {
  switch (fileKind(path, file)) {
    case FileKind::Png: return detail::probePng(path, file, channel);
    case FileKind::Exr: return detail::probeExr(path, file, channel);
    case FileKind::Tiff: break;
  }
  return detail::probeTiff(path, file, channel);
}

}  // namespace

InputFormat inputFormatOf(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (InputFormat f : {InputFormat::Png, InputFormat::Exr, InputFormat::R16, InputFormat::R32F, InputFormat::Tiff})
    if (ext == inputFormatExtension(f)) return f;
  if (ext == ".tiff") return InputFormat::Tiff;
  return InputFormat::Unknown;
}

const char* inputFormatExtension(InputFormat format) {
  switch (format) {
    case InputFormat::Png: return ".png";
    case InputFormat::Exr: return ".exr";
    case InputFormat::R16: return ".r16";
    case InputFormat::R32F: return ".r32f";
    case InputFormat::Tiff: return ".tif";
    case InputFormat::Unknown: break;
  }
  return "";
}

uint64_t imageFileLimit(const ImageInfo& info) {
  const uint64_t samples = uint64_t(info.width) * uint64_t(info.height) * uint64_t(std::max(info.bitsPerChannel / 8, 1)) *
                           uint64_t(std::max(info.channels, 1));
  return 2 * (samples + 16 * uint64_t(info.height)) + (uint64_t(16) << 20);
}

uint64_t imageLoadPeakBytes(const ImageInfo& info) {
  // File bytes, one buffer of decoded samples (PNG rows, tinyexr's floats) and the Grid.
  const uint64_t pixels = uint64_t(info.width) * uint64_t(info.height);
  return imageFileLimit(info) + pixels * 4 + pixels * sizeof(float);
}

ImageInfo probeImage(const std::string& path, int channel) {
  std::vector<uint8_t> head = readFileHead(path, kProbeBytes);
  const detail::Bytes bytes{head.data(), head.size()};
  if (fileKind(path, bytes) == FileKind::Tiff && head.size() == kProbeBytes) {
    // A TIFF's directory may lie anywhere, often after the image data: a head without it
    // fails the probe, and then the whole file is read.
    try {
      return detail::probeTiff(path, bytes, channel);
    } catch (const InputError&) {
      std::vector<uint8_t> whole = readFileBytes(path, kMaxTiffFileBytes, "TIFF file");
      return detail::probeTiff(path, {whole.data(), whole.size()}, channel);
    }
  }
  return probeBytes(path, bytes, channel);
}

Image loadImage(const std::string& path, int channel) {
  // The header first, from the file's head: its size bounds how much of the file is read.
  const ImageInfo info = probeImage(path, channel);
  std::vector<uint8_t> bytes = readFileBytes(path, imageFileLimit(info), "image file");
  // The loaders re-check the header from the full bytes (the file may have changed since).
  switch (fileKind(path, {bytes.data(), bytes.size()})) {
    case FileKind::Exr: return detail::loadExr(path, std::move(bytes), channel);
    case FileKind::Tiff: return detail::loadTiff(path, std::move(bytes), channel);
    case FileKind::Png: break;
  }
  return detail::loadPng(path, std::move(bytes), channel);
}

ImageInfo probeRaw(const std::string& path, RawFormat format, int width, int height) {
  detail::checkImageSize(path, width, height);
  const int bytesPerSample = format == RawFormat::R16 ? 2 : 4;
  const char* name = format == RawFormat::R16 ? "r16" : "r32f";
  uint64_t actual = regularFileSize(path);
  uint64_t expected = uint64_t(width) * uint64_t(height) * uint64_t(bytesPerSample);
  if (actual != expected)
    throw InputError(path + ": raw " + name + " file of " + std::to_string(width) + "x" + std::to_string(height) +
                     " should be " + std::to_string(expected) + " bytes but is " + std::to_string(actual) + " bytes");
  return {width, height, 1, bytesPerSample * 8};
}

Image loadRaw(const std::string& path, RawFormat format, int width, int height) {
  ImageInfo info = probeRaw(path, format, width, height);
  const uint64_t expected = uint64_t(width) * uint64_t(height) * uint64_t(info.bitsPerChannel / 8);
  std::vector<uint8_t> bytes = readFileBytes(path, expected, "raw heightmap");
  if (bytes.size() != expected)
    throw InputError(path + ": raw file changed size while being read (" + std::to_string(bytes.size()) +
                     " bytes, expected " + std::to_string(expected) + ")");

  Image image{Grid(width, height), info.bitsPerChannel};
  image.metres = format != RawFormat::R16;
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

ImageInfo probeInput(const std::string& path, int rawWidth, int rawHeight, int channel) {
  switch (inputFormatOf(path)) {
    case InputFormat::R16: return probeRaw(path, RawFormat::R16, rawWidth, rawHeight);
    case InputFormat::R32F: return probeRaw(path, RawFormat::R32F, rawWidth, rawHeight);
    default: return probeImage(path, channel);
  }
}

Image loadInput(const std::string& path, int rawWidth, int rawHeight, int channel) {
  switch (inputFormatOf(path)) {
    case InputFormat::R16: return loadRaw(path, RawFormat::R16, rawWidth, rawHeight);
    case InputFormat::R32F: return loadRaw(path, RawFormat::R32F, rawWidth, rawHeight);
    default: return loadImage(path, channel);
  }
}

}  // namespace eco
