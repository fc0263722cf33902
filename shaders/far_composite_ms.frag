#version 460
#define TERRAIN_MS
#include "far_composite.glsl"
