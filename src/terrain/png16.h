#pragma once
// Minimal 16-bit grayscale PNG writer (the stb writer only does 8 bit).
#include <cstdint>
#include <string>

namespace eco {

// Writes w x h row-major samples as a 16-bit grayscale PNG. Throws InputError naming the
// path when the file cannot be written or the size is invalid.
void writePng16(const std::string& path, int w, int h, const uint16_t* pixels);

}  // namespace eco
