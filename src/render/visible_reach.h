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
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "render/scene.h"
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

// The most slots any eye position can need: over every eye, the sum of weight[k] times the
// instances of species k in tiles whose square (tileSize * (x, z) to tileSize * (x + 1, z + 1))
// lies within reach[k] of the eye, every tile resident. Tiles without per-species counts (empty)
// count all their instances under the largest reach and weight; species past `reach` count
// like that too. Square-to-square distances on the
// tile grid stand in for every eye in a square; an eye off the grid needs no more than the
// nearest point of the grid's bounding rectangle (projecting onto a convex set shortens the
// distance to every point in it).
uint64_t reachBound(std::span<const SceneTile> tiles, float tileSize, std::span<const double> reach,
                    std::span<const double> weight);

}  // namespace eco::render
