#pragma once
// Small procedural meshes, one per species class and LOD, in unit space: within radius 1 of
// the y axis, y in [0, 1]. Instance transforms scale them by crown radius and mesh height,
// so the unit-space bounding sphere (centre y = 0.5, radius sqrt(1.25)) bounds every mesh.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shaders/shared.h"

namespace eco {

struct MeshVertex {
  float position[4];  // xyz, w = 1 tinted by the instance colour, 0 bark
  float normal[4];
};

struct MeshRange {
  uint32_t firstIndex = 0, indexCount = 0, vertexOffset = 0;
};

struct MeshSet {
  std::vector<MeshVertex> vertices;
  std::vector<uint32_t> indices;
  MeshRange ranges[gpu::KIND_COUNT * gpu::LOD_COUNT];  // kind * LOD_COUNT + lod
};

MeshSet buildMeshes();

enum class MeshForm : uint8_t { Broadleaf, Conifer, Shrub, Grass, GroundCover };
struct SpeciesMeshSource {
  MeshForm form = MeshForm::Broadleaf;
  std::string file;
  float meshHeight = 1, crownRadius = 1;
};
struct SpeciesMesh {
  MeshRange lods[gpu::LOD_COUNT];
  float sphere[4];
  uint32_t triangles[gpu::LOD_COUNT];
  std::string source, error;
};
struct SpeciesMeshSet {
  std::vector<MeshVertex> vertices;
  std::vector<uint32_t> indices;
  std::vector<SpeciesMesh> species;
};
SpeciesMeshSet buildSpeciesMeshes(std::span<const SpeciesMeshSource> species);

}  // namespace eco
