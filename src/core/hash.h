#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace eco {

// SplitMix64 finalizer: a fast, well-mixed 64-bit hash step used to seed per-tile and
// per-instance random streams deterministically.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr uint64_t hashCombine(uint64_t seed, uint64_t value) { return mix64(seed ^ mix64(value)); }

// XXH3-64 (xxHash, seed 0) over bytes: the manifest's tile checksums and config/input hashes.
// About 30x faster than a byte-serial hash such as FNV-1a, which cost 5 % of a bake.
uint64_t checksum64(std::span<const uint8_t> bytes);
uint64_t checksum64File(const std::string& path);  // throws InputError if unreadable
std::string hex64(uint64_t v);

// Small deterministic generator (PCG32-like via SplitMix64 stream); cheap to construct per
// tile or per instance.
struct Rng {
  uint64_t state;
  explicit constexpr Rng(uint64_t seed) : state(seed) {}
  constexpr uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  constexpr float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }
};

}  // namespace eco
