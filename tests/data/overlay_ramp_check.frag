#version 450
// Compiled by the ctest overlay_ramp_compiles_as_glsl: shaders/overlay_ramp.h is GLSL too.
#include "overlay_ramp.h"
layout(location = 0) in float value;
layout(location = 0) out vec4 color;
void main() { color = vec4(overlayRamp(value), 1.0); }
