#pragma once
// SPIR-V lookup: "cull.comp" -> words. Reads $ECO_SHADER_DIR/<name>.spv when that variable is
// set (for shader iteration without rebuilding), else the copy embedded at build time.
#include <cstdint>
#include <string>
#include <vector>

namespace eco::render {
std::vector<uint32_t> loadSpirv(const std::string& name);
}
