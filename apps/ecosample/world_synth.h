#pragma once
// The bundled sample world: an east-west alpine ridge north of a meandering river valley,
// foothills to the south. Deterministic from the seed; world frame as in core/types.h.
#include <cstdint>
#include <vector>

#include "core/types.h"

namespace eco::sample {

constexpr float kCellSize = 6.f;        // metres per heightmap cell
constexpr float kMinElevation = 200.f;  // 16-bit value 0
constexpr float kMaxElevation = 2800.f; // 16-bit value 65535
constexpr float kRiverScale = 2000.f;   // river distance: value / 65535 * scale metres
constexpr float kRiverHalfWidth = 12.f; // metres

// River centreline, vertices sorted by x, reaching past both east and west edges.
struct River {
  std::vector<Vec2> points;
};

River makeRiver(float extent, uint64_t seed);

// Centreline z at x (the river crosses every north-south line once).
float riverZ(const River& river, float x);

// Exact distance to the centreline polyline.
float riverDistanceAt(const River& river, float x, float z);

// size x size heights in metres, cell kCellSize, clamped to [kMinElevation, kMaxElevation].
Grid synthesizeHeights(int size, const River& river, uint64_t seed);

// Distance to the river bank (centreline distance minus half-width, >= 0) at every cell of a
// size x size grid spanning `extent` metres.
Grid riverDistance(int size, float extent, const River& river);

}  // namespace eco::sample
