#version 460
// Terrain: quadtree nodes of an attribute-free patch, heights from the heightmap buffer.
#include "terrain_vertex.glsl"
