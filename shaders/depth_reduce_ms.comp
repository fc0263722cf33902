#version 460
#define DEPTH_MS
#include "depth_reduce.glsl"
