#pragma once
// The species kinds and their spelling in configs, manifests and tools: the one definition
// every reader and writer uses, so a new kind cannot be known to one and not another.
// The numeric values are stored in tiles (tile.fbs SpeciesKind) and must not change.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace eco {

enum class SpeciesKind : uint8_t { Tree = 0, Shrub = 1, Grass = 2, GroundCover = 3 };

inline constexpr std::array<std::string_view, 4> kSpeciesKindNames = {"tree", "shrub", "grass", "ground_cover"};

// "tree", "shrub", "grass", "ground_cover"; "unknown" for a value outside the enum (a
// corrupt tile's byte).
constexpr const char* speciesKindName(uint8_t kind) {
  return kind < kSpeciesKindNames.size() ? kSpeciesKindNames[kind].data() : "unknown";
}
constexpr const char* speciesKindName(SpeciesKind kind) { return speciesKindName(uint8_t(kind)); }

constexpr std::optional<SpeciesKind> speciesKindFromName(std::string_view name) {
  for (size_t i = 0; i < kSpeciesKindNames.size(); ++i)
    if (kSpeciesKindNames[i] == name) return SpeciesKind(i);
  return std::nullopt;
}

}  // namespace eco
