#pragma once
// Minimal 16-bit grayscale PNG writer (the stb writer only does 8 bit), and in-memory PNG
// encoders, so callers write the bytes with the checked writers of core/file_io.h.
#include <cstdint>
#include <string>
#include <vector>

namespace eco {

// Writes w x h row-major samples as a 16-bit grayscale PNG. Throws InputError naming the
// path when the file cannot be written or the size is invalid.
void writePng16(const std::string& path, int w, int h, const uint16_t* pixels);

// The bytes writePng16 would write. InputError naming `path` for an invalid size.
std::vector<uint8_t> encodePng16(const std::string& path, int w, int h, const uint16_t* pixels);
// An 8-bit RGB PNG (stb's encoder). InputError naming `path` when it fails.
std::vector<uint8_t> encodePngRgb8(const std::string& path, int w, int h, const uint8_t* rgb);

}  // namespace eco
