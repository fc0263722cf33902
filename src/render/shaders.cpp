#include "render/shaders.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace eco {
struct EmbeddedShader {
  const char* name;
  const uint8_t* data;
  size_t size;
};
extern const EmbeddedShader kEmbeddedShaders[];
}  // namespace eco

namespace eco::render {

std::vector<uint32_t> loadSpirv(const std::string& name) {
  std::vector<uint32_t> words;
  if (const char* dir = std::getenv("ECO_SHADER_DIR"); dir && *dir) {
    std::ifstream in(std::string(dir) + "/" + name + ".spv", std::ios::binary);
    if (in) {
      std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      words.resize(bytes.size() / 4);
      std::memcpy(words.data(), bytes.data(), words.size() * 4);
      return words;
    }
  }
  for (const EmbeddedShader* s = kEmbeddedShaders; s->name; ++s) {
    if (name == s->name) {
      words.resize(s->size / 4);
      std::memcpy(words.data(), s->data, words.size() * 4);
      return words;
    }
  }
  throw std::runtime_error("shader not found: " + name);
}

}  // namespace eco::render
