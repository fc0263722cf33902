#include "core/hash.h"

#include <cstdio>
#include <fstream>
#include <vector>

#include "core/error.h"

namespace eco {

uint64_t fnv1a64(std::span<const uint8_t> bytes, uint64_t h) {
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t fnv1a64File(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open for reading");
  uint64_t h = 0xcbf29ce484222325ull;
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    auto n = size_t(in.gcount());
    h = fnv1a64({reinterpret_cast<const uint8_t*>(buf.data()), n}, h);
  }
  return h;
}

std::string hex64(uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
  return s;
}

}  // namespace eco
