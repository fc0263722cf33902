#include "core/hash.h"

#include <cstdio>
#include <fstream>
#include <vector>

#include "core/error.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace eco {

uint64_t checksum64(std::span<const uint8_t> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

uint64_t checksum64File(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open for reading");
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    XXH3_64bits_update(&state, buf.data(), size_t(in.gcount()));
  }
  return XXH3_64bits_digest(&state);
}

std::string hex64(uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
  return s;
}

}  // namespace eco
