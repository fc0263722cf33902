#pragma once
// Shared pieces of the image readers (image_io.cpp, png_read.cpp, exr_read.cpp). The readers
// decode from bytes in memory (read through core/file_io); `path` only names the file in
// messages.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "terrain/terrain.h"

namespace eco::detail {

// A file's bytes, or its first bytes for a header probe.
struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// Throws InputError unless 0 < width, height <= kMaxImageSide and the pixel count fits.
void checkImageSize(const std::string& path, int64_t width, int64_t height);
// Throws InputError naming the first NaN/Inf pixel as "x,y".
void checkFinite(const std::string& path, const Grid& grid);

// The sample a config channel (0..3: r, g, b, a) reads in a pixel of `samples` samples, or -1
// where the image has no such channel. In a gray image (gray, or gray + alpha) r, g and b all
// name the gray sample, as a viewer shows it, and a the alpha after it; in a colour image each
// names its own sample.
int channelSample(int channel, int samples, bool gray);

// Header checks of everything the loaders rely on; the bytes may be only the file's head.
// channel: kSingleChannel or the channel to read (terrain.h). ImageInfo::channels is the
// file's channel count.
ImageInfo probePng(const std::string& path, Bytes file, int channel);
ImageInfo probeExr(const std::string& path, Bytes file, int channel);
ImageInfo probeTiff(const std::string& path, Bytes file, int channel);
// Full decodes of a whole file. They take the bytes to free them before the Grid is
// allocated, which keeps the peak of a load near the final Grid.
Image loadPng(const std::string& path, std::vector<uint8_t>&& file, int channel);
Image loadExr(const std::string& path, std::vector<uint8_t>&& file, int channel);
Image loadTiff(const std::string& path, std::vector<uint8_t>&& file, int channel);

}  // namespace eco::detail
