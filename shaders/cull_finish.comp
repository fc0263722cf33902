#version 460
// After culling: LOD 1 instances were written downward from the end of their kind's region.
#include "shared.h"

layout(local_size_x = KIND_COUNT) in;
layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 2) buffer Draws { DrawCommand draws[]; };

void main() {
  uint kind = gl_LocalInvocationIndex;
  uint cmd = kind * LOD_COUNT + 1;
  draws[cmd].firstInstance = frame.regions[kind].y - draws[cmd].instanceCount;
}
