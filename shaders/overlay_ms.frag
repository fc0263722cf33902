#version 460
#define TERRAIN_MS
#include "overlay.glsl"
