#version 460
// terrain.vert for the depth-only passes (the depth pre-pass, the shadow cascades): no far look
// for the colour pass (the same depths: gl_Position is invariant).
#define TERRAIN_DEPTH_ONLY
#include "terrain_vertex.glsl"
