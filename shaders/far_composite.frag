#version 460
#include "far_composite.glsl"
