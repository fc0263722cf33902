#pragma once
// Shared pieces of the image readers (image_io.cpp, png_read.cpp, exr_read.cpp).
#include <cstdint>
#include <string>

#include "terrain/terrain.h"

namespace eco::detail {

constexpr int64_t kMaxImageSide = 32768;
constexpr int64_t kMaxImagePixels = int64_t(1) << 28;

// Throws InputError unless 0 < width, height <= kMaxImageSide and the pixel count fits.
void checkImageSize(const std::string& path, int64_t width, int64_t height);
// Throws InputError naming the first NaN/Inf pixel as "x,y".
void checkFinite(const std::string& path, const Grid& grid);

ImageInfo probePng(const std::string& path);
Image loadPng(const std::string& path);
ImageInfo probeExr(const std::string& path);
Image loadExr(const std::string& path);

}  // namespace eco::detail
