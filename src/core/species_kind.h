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

// The shape of a species' mesh (config mesh.form, manifest "mesh_form"): which procedural
// mesh stands in when no mesh.file is given. Each kind has a default form and accepts only
// the forms that suit it (a conifer is a tree; grass is not a tree).
enum class MeshForm : uint8_t { Broadleaf, Conifer, Shrub, Grass, GroundCover };

inline constexpr std::array<std::string_view, 5> kMeshFormNames = {"broadleaf", "conifer", "shrub", "grass",
                                                                  "ground_cover"};

constexpr const char* meshFormName(MeshForm form) {
  return size_t(form) < kMeshFormNames.size() ? kMeshFormNames[size_t(form)].data() : "unknown";
}

constexpr std::optional<MeshForm> meshFormFromName(std::string_view name) {
  for (size_t i = 0; i < kMeshFormNames.size(); ++i)
    if (kMeshFormNames[i] == name) return MeshForm(i);
  return std::nullopt;
}

// tree: broadleaf, shrub: shrub, grass: grass, ground cover: ground_cover.
constexpr MeshForm defaultMeshForm(SpeciesKind kind) {
  switch (kind) {
    case SpeciesKind::Tree: return MeshForm::Broadleaf;
    case SpeciesKind::Shrub: return MeshForm::Shrub;
    case SpeciesKind::Grass: return MeshForm::Grass;
    case SpeciesKind::GroundCover: return MeshForm::GroundCover;
  }
  return MeshForm::Broadleaf;
}

// The colour (linear RGB) of a species whose config gives none: its kind's foliage, in the
// range of the shipped configs' own (a tree between their broadleaves and their spruce, grass
// a meadow's, ground cover moss). White, the old default, drew a config without colours as a
// woodland of snow-white cones.
constexpr std::array<float, 3> defaultSpeciesColor(SpeciesKind kind) {
  switch (kind) {
    case SpeciesKind::Tree: return {0.15f, 0.28f, 0.1f};
    case SpeciesKind::Shrub: return {0.22f, 0.32f, 0.12f};
    case SpeciesKind::Grass: return {0.36f, 0.48f, 0.18f};
    case SpeciesKind::GroundCover: return {0.22f, 0.33f, 0.1f};
  }
  return {0.15f, 0.28f, 0.1f};
}

// Trees are broadleaf or conifer; every other kind has exactly its own form.
constexpr bool meshFormSuits(MeshForm form, SpeciesKind kind) {
  if (kind == SpeciesKind::Tree) return form == MeshForm::Broadleaf || form == MeshForm::Conifer;
  return form == defaultMeshForm(kind);
}

}  // namespace eco
