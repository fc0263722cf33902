#pragma once
// The meshes stage: one mesh per species and LOD, drawn by the viewer and written by the USD /
// glTF exports. A species' mesh is its glTF file (mesh.file) or the procedural mesh of its
// form (broadleaf, conifer, shrub, grass, ground cover). Meshes live in unit space: within
// radius 1 of the y axis, y in [0, 1] for the procedural ones; an instance draws its species'
// mesh at scale * (crownRadius, meshHeight, crownRadius) (shaders/transform.h). A file is in
// metres and is divided by those bounds on load, so it is drawn at its true size times the
// instance scale. Design, tint rule, LOD error targets and limits: docs/meshes.md.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/species_kind.h"
#include "shaders/shared.h"

namespace eco {

struct MeshVertex {
  float position[4];  // xyz, w = 1 tinted by the instance colour, 0 bark
  float normal[4];
};

struct MeshRange {
  uint32_t firstIndex = 0, indexCount = 0, vertexOffset = 0;
};

struct SpeciesMeshSource {
  MeshForm form = MeshForm::Broadleaf;
  std::string file;                       // .gltf/.glb path to load; empty: the procedural mesh of `form`
  float meshHeight = 1, crownRadius = 1;  // metres, the species' bounds (unit-space scale)
};

struct SpeciesMesh {
  MeshRange lods[gpu::LOD_COUNT];
  // The far card (shaders/far_card.vert): the crown's outline facing the eye, for far trees a
  // few pixels tall (render/far_field.h), where a mesh costs more than its pixels: LOD 0's
  // foliage from card[0] to card[1] up the plant (unit height), card[2] crown radii wide each
  // side; card[3] = 1 a cone (a triangle), 0 any other crown (a hexagon of its ellipse's area).
  float card[4] = {0, 1, 1, 0};
  // bounding sphere of LOD 0: centre in unit space (multiply by (crownRadius, meshHeight,
  // crownRadius) * scale and rotate like a vertex), radius in metres at instance scale 1
  float sphere[4];
  uint32_t triangles[gpu::LOD_COUNT];
  std::string source;  // "procedural broadleaf" or the file path
  std::string error;   // non-empty: the file failed (this message), the procedural mesh is used
};

struct MeshSet {  // one vertex/index buffer for all species
  std::vector<MeshVertex> vertices;
  std::vector<uint32_t> indices;
  std::vector<SpeciesMesh> species;  // same order as the sources
};

// Every species' mesh and LODs in one buffer. Never throws for a bad file: the species gets
// the procedural mesh of its form and `error` says why. Deterministic: same sources, same bytes.
MeshSet buildMeshes(std::span<const SpeciesMeshSource> species);

// A mesh in the unit space of one species, one triangle list.
struct LoadedMesh {
  std::vector<MeshVertex> vertices;
  std::vector<uint32_t> indices;
};
// For ecobake validate/bake: loads and checks one glTF 2.0 file (.gltf or .glb; the format is
// told by the first bytes), every triangle primitive of its default scene with node transforms
// applied, divided into the species' unit space. Throws eco::InputError, one line naming the
// file and the element ("oak.glb: mesh 0 primitive 2: index 9000 is beyond the 120 vertices").
LoadedMesh loadMeshFile(const std::string& path, float meshHeight, float crownRadius);

// ---- The same, in metres: what the bake stores and the exports write ----

// A file's triangles in metres (node transforms applied, unit normals), with the tint of
// each vertex (MeshVertex w). loadMeshFile is loadMetricMesh then toUnitSpace.
struct MetricMesh {
  std::vector<MeshVertex> vertices;
  std::vector<uint32_t> indices;
};
MetricMesh loadMetricMesh(const std::string& path);
// The same from bytes already read (`name` names them in messages); `folder` resolves a
// .gltf's external buffers ("" refuses any external file).
MetricMesh parseMetricMesh(const std::vector<uint8_t>& bytes, const std::string& name, const std::string& folder);
LoadedMesh toUnitSpace(const MetricMesh& mesh, float meshHeight, float crownRadius);

// A self-contained binary glTF (GLB) of the mesh: positions in metres, normals, uint32
// indices, the bark (w = 0) and the tinted triangles as two primitives whose materials are
// named "bark" and "foliage" (the tint rule reads them back as they were). parseMetricMesh
// of these bytes gives back the same vertices and triangles bit for bit. Deterministic bytes.
std::vector<uint8_t> writeGlb(const MetricMesh& mesh);

// The procedural mesh of a form at one LOD, in unit space (tests and ecosample use it).
// heightOverCrown: the species' mesh height / crown radius, which shapes a broadleaf's crown
// (its length follows its width, so a tall tree has a longer bole, not a column of leaves);
// 0 keeps the form's own proportions.
LoadedMesh proceduralMesh(MeshForm form, int lod, float heightOverCrown = 0);
// The share of a broadleaf's height its crown takes for a height / crown radius ratio: a crown
// about 1.2 times as long as it is wide (open-grown broadleaves, 1-1.5), between 0.25 and the
// form's own 0.77.
float broadleafCrownShare(float heightOverCrown);

// Limits of a mesh file, checked before anything is sized from the file.
namespace mesh_limits {
inline constexpr uint64_t kMaxFileBytes = uint64_t(256) << 20;
inline constexpr uint64_t kMaxTriangles = 1'000'000;
inline constexpr uint64_t kMaxVertices = 3'000'000;
inline constexpr int kMaxNodeDepth = 64;
}  // namespace mesh_limits

// LOD 1 of a file mesh: meshopt_simplify to at most this fraction of LOD 0's indices, within
// this error relative to the mesh's extent (its largest bounding-box side, in metres).
inline constexpr float kLod1IndexFraction = 0.25f;
inline constexpr float kLod1RelativeError = 0.02f;

}  // namespace eco
