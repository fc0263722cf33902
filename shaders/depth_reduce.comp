#version 460
#include "depth_reduce.glsl"
