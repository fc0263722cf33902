// Single-channel OpenEXR reading through tinyexr (scanline files, half or float pixels), from
// bytes in memory: tinyexr never opens the path itself.
#include <tinyexr.h>

#include <cstring>
#include <utility>
#include <vector>

#include "core/error.h"
#include "terrain/image_io_internal.h"

namespace eco::detail {
namespace {

// Owns a parsed header and turns tinyexr's error strings into one-line InputErrors.
struct ExrHeader {
  EXRHeader header;
  ExrHeader() { InitEXRHeader(&header); }
  ~ExrHeader() { FreeEXRHeader(&header); }
  ExrHeader(const ExrHeader&) = delete;
  ExrHeader& operator=(const ExrHeader&) = delete;
};

[[noreturn]] void throwExrError(const std::string& path, const char* what, const char* err) {
  std::string reason = err ? err : "";
  if (err) FreeEXRErrorMessage(err);
  // tinyexr's reasons are sentences, some ending in a newline or a full stop; keep one line
  // of printable text.
  for (char& c : reason)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = ' ';
  while (!reason.empty() && (reason.back() == ' ' || reason.back() == '.')) reason.pop_back();
  throw InputError(path + ": " + what + (reason.empty() ? "" : " (" + reason + ")"));
}

// Channels of multi-channel EXRs (splat maps) are not read: one channel per EXR file.
void refuseChannel(const std::string& path, int channel) {
  if (channel != kSingleChannel)
    throw InputError(path + ": a channel of an EXR cannot be chosen; give a single-channel EXR, or a PNG or TIFF "
                            "splat map");
}

void parseHeader(const std::string& path, Bytes file, ExrHeader& out) {
  EXRVersion version;
  if (ParseEXRVersionFromMemory(&version, file.data, file.size) != TINYEXR_SUCCESS)
    throwExrError(path, "corrupt EXR (bad version header)", nullptr);
  if (version.multipart || version.non_image)
    throw InputError(path + ": multi-part or deep EXR is not supported, expected a single-channel scanline image");
  const char* err = nullptr;
  if (ParseEXRHeaderFromMemory(&out.header, &version, file.data, file.size, &err) != TINYEXR_SUCCESS)
    throwExrError(path, "corrupt or truncated EXR header", err);

  const EXRHeader& h = out.header;
  if (h.num_channels != 1)
    throw InputError(path + ": EXR has " + std::to_string(h.num_channels) + " channels, expected exactly one");
  if (h.tiled) throw InputError(path + ": tiled EXR is not supported, expected a scanline image");
  // tinyexr 1.0.1's PIZ decoder copies the bitmap range a chunk claims without checking it
  // against the chunk's size (a heap over-read found by fuzz/fuzz_image), so damaged PIZ data
  // cannot be read safely; the lossless codecs it checks are accepted.
  const int compression = h.compression_type;
  if (compression != TINYEXR_COMPRESSIONTYPE_NONE && compression != TINYEXR_COMPRESSIONTYPE_RLE &&
      compression != TINYEXR_COMPRESSIONTYPE_ZIPS && compression != TINYEXR_COMPRESSIONTYPE_ZIP)
    throw InputError(path + ": EXR compression " + (compression == TINYEXR_COMPRESSIONTYPE_PIZ ? std::string("PIZ")
                                                                                             : std::to_string(compression)) +
                     " is not supported; save it uncompressed or with RLE, ZIPS or ZIP");
  int type = h.pixel_types[0];
  if (type != TINYEXR_PIXELTYPE_HALF && type != TINYEXR_PIXELTYPE_FLOAT)
    throw InputError(path + ": EXR channel '" + h.channels[0].name + "' is uint, expected half or float");
  checkImageSize(path, int64_t(h.data_window.max_x) - h.data_window.min_x + 1,
                 int64_t(h.data_window.max_y) - h.data_window.min_y + 1);
}

}  // namespace

ImageInfo probeExr(const std::string& path, Bytes file, int channel) {
  refuseChannel(path, channel);
  ExrHeader exr;
  parseHeader(path, file, exr);
  const EXRBox2i& box = exr.header.data_window;
  return {box.max_x - box.min_x + 1, box.max_y - box.min_y + 1, 1, 32};
}

Image loadExr(const std::string& path, std::vector<uint8_t>&& fileBytes, int channel) {
  refuseChannel(path, channel);
  std::vector<uint8_t> bytes = std::move(fileBytes);
  ExrHeader exr;
  parseHeader(path, {bytes.data(), bytes.size()}, exr);
  exr.header.requested_pixel_types[0] = TINYEXR_PIXELTYPE_FLOAT;  // converts half on load

  EXRImage loaded;
  InitEXRImage(&loaded);
  // tinyexr 1.0.1 calls FreeEXRImage itself when decoding the pixels fails, but sets
  // num_channels only on success, so its cleanup would free the channel array and leak the
  // channel (fuzzing under LeakSanitizer reports it). With the count set (the header says
  // one channel) that cleanup frees everything.
  loaded.num_channels = 1;
  const char* err = nullptr;
  // No FreeEXRImage on failure: tinyexr has already freed what it allocated (a second free
  // would crash).
  if (LoadEXRImageFromMemory(&loaded, &exr.header, bytes.data(), bytes.size(), &err) != TINYEXR_SUCCESS)
    throwExrError(path, "corrupt or truncated EXR", err);
  std::vector<uint8_t>().swap(bytes);  // before the Grid: the peak is tinyexr's floats + the Grid

  const EXRBox2i& box = exr.header.data_window;
  if (!loaded.images || !loaded.images[0] || loaded.num_channels != 1 || loaded.width != box.max_x - box.min_x + 1 ||
      loaded.height != box.max_y - box.min_y + 1) {
    FreeEXRImage(&loaded);
    throw InputError(path + ": corrupt EXR (no scanline pixel data)");
  }
  Image image{Grid(loaded.width, loaded.height), 32};
  image.metres = true;
  std::memcpy(image.pixels.values.data(), loaded.images[0], image.pixels.values.size() * sizeof(float));
  FreeEXRImage(&loaded);
  checkFinite(path, image.pixels);
  return image;
}

}  // namespace eco::detail
