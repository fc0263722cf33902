#version 460
// terrain.vert that also stores each vertex's world position (debug capture, render tests).
#define TERRAIN_CAPTURE
#include "terrain_vertex.glsl"
