#pragma once
// Worlds and cameras shared by the renderer tests.
#include "render/camera.h"
#include "render/world.h"

namespace eco::render::fixtures {

// 1 km square, 4x4 tiles of 256 m, a 150 m ridge running north-south through x = 512 m.
inline SyntheticOptions smallWorld(uint64_t instances) {
  SyntheticOptions o;
  o.gridSize = 129;
  o.cellSize = 8;
  o.tileSize = 256;
  o.instances = instances;
  return o;
}

inline Camera camera(float x, float y, float z, float yaw, float pitch) {
  Camera c;
  c.position = {x, y, z};
  c.yawDeg = yaw;
  c.pitchDeg = pitch;
  return c;
}

}  // namespace eco::render::fixtures
