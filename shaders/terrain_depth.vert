#version 460
// terrain.vert for the depth-only passes (the depth pre-pass, the shadow cascades): without the
// colour pass's far look (the same depths: gl_Position is precise).
#define TERRAIN_DEPTH_ONLY
#include "terrain_vertex.glsl"
