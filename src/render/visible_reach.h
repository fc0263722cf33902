#pragma once
// How large each (view, species) region of the visible list must be. The cull pass appends an
// instance only when its bounding sphere's centre lies within its kind's draw distance
// (FrameData.fadeEnd) of the eye, so a species' region need hold only the resident instances
// of tiles that come that close, not every resident one: grass drawn to 600 m needs no slots
// for the grass of tiles 2 km away that stream ahead of the camera. The list itself is sized
// by the most any eye position can need (reachBound), so it is allocated once per draw
// distance setting, and each frame's regions count the resident tiles within reach of the eye
// (boxDistance; Renderer::submitFrame).
// Pure functions: the renderer calls them, the tests check them against brute force.
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "render/scene.h"
#include "render/shadows.h"
#include "shaders/shared.h"

namespace eco::render {

inline constexpr double kUnreached = -1;  // a hidden species: the pass never appends it
inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Per species: the horizontal distance from the eye to an instance's origin within which the
// cull pass can append it. fadeEnd of its kind plus how far its sphere's centre can sit from
// its origin (any tilt, the largest scale) plus float slack; kUnbounded without CULL_FADE or
// past 1e29 m (a kind whose every species is hidden); kUnreached for hidden species.
std::vector<double> speciesReach(const gpu::FrameData& frame, std::span<const gpu::GpuSpecies> species);

// Horizontal distance from (x, z) to a tile's quantisation box: where its records decode.
double boxDistance(const gpu::GpuTile& box, double x, double z);

// How far a species' bounding-sphere centre can sit from its origin (any tilt, the largest
// scale), and the sphere's largest radius, in metres.
struct SphereExtent {
  double offset = 0, radius = 0;
};
SphereExtent sphereExtent(const gpu::GpuSpecies& species);

// Where the sphere centre of a shadow caster that cascade c lists can stand, horizontally and
// relative to the eye, for any view direction: within `margin` of the convex polygon `hull`
// (x, z in metres). It follows from the cull shader's tests against the cascade's box
// (render/shadows.h): a sphere of radius at most maxRadius inside the box's sides and far plane
// (the box's centre, snapped to texels, at most a texel off the slice sphere's, which is at
// most its centre depth from the eye), its centre at most maxY high, and the eye at least minY
// high (the camera stays above the ground). The box is open toward the sun; the height bound
// closes it: a caster toward the sun is listed only if it stands high enough to shade the
// slice. tx, ty, nearZ: the projection's (render/shadows.h cascadeSphere); toSun a unit vector.
struct CasterRegion {
  std::vector<std::array<double, 2>> hull;
  double margin = 0;
};
CasterRegion casterRegion(const ShadowSettings& settings, float nearZ, float tx, float ty, Vec3 toSun, double minY,
                          double maxY, double maxRadius, uint32_t c);

// The most slots any eye position can need: over every eye, the sum of weight[k] times the
// instances of species k in tiles whose square (tileSize * (x, z) to tileSize * (x + 1, z + 1))
// lies within reach[k] of the eye, every tile resident; plus, for each of `regions` (the
// cascades), regionWeight[k] times the instances of species k in those tiles whose square also
// meets the region around the eye, whichever way the view turns. Tiles without per-species
// counts (empty) count all their instances under the largest reach and weights; species past
// `reach` count like that too. Square-to-square distances on the tile grid stand in for every
// eye in a square. Eyes off the grid: squares around it as far as a region (within the reach of
// the species it counts) meets a tile are counted too; past them an eye needs no more than the
// nearest point of the grid's bounding rectangle (projecting onto a convex set shortens the
// distance to every point in it). Eyes more than twice the grid's size and 64 tiles off it are
// not covered where the reach is longer (the renderer grows the list if a frame needs more).
uint64_t reachBound(std::span<const SceneTile> tiles, float tileSize, std::span<const double> reach,
                    std::span<const double> weight, std::span<const CasterRegion> regions = {},
                    std::span<const double> regionWeight = {});

}  // namespace eco::render
