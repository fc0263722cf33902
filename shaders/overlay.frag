#version 460
#include "overlay.glsl"
