#version 460
// After culling: LOD 1 instances were written downward from the end of their region.
#include "shared.h"

layout(local_size_x = 64) in;
layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 2) buffer Draws { DrawCommand draws[]; };

void main() {
  uint cmd = gl_GlobalInvocationID.x * LOD_COUNT + 1;  // one invocation per (view, species)
  if (gl_GlobalInvocationID.x >= frame.draws.x * frame.draws.y) return;
  draws[cmd].firstInstance = draws[cmd].regionEnd - draws[cmd].instanceCount;
}
