#version 460
// The far trees' pages Renderer::listPages left (some of their trees may be past the fade and
// in the frustum), one invocation each: those with the sky behind their box are appended to
// `compact`, whose head is the indirect dispatch cull.comp then runs over them (x = workgroups
// per page, y = pages, z = 1; the renderer writes {PAGE_SIZE / CULL_GROUP, 0, 1} first).
// On a CPU driver a workgroup costs microseconds before it does anything: most far pages of a
// wide view have the ground behind them, and launching cull.comp's workgroups only to skip
// them cost more than the trees they draw.
#include "shared.h"

layout(local_size_x = 64) in;

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 1) readonly buffer Pages { GpuPage pages[]; };
layout(binding = 3) readonly buffer PageList { uint pageList[]; };
layout(binding = 5) uniform sampler2D pyramid;
layout(binding = 6) readonly buffer Tiles { GpuTile tiles[]; };
layout(binding = 8) buffer Compact { uvec4 dispatch; uint compactPages[]; };
layout(push_constant) uniform Push { uint listBase, listCount; };

#include "hiz.glsl"

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= listCount) return;
  uint pageIndex = pageList[listBase + i];
  if (!skyBehindPage(tiles[pages[pageIndex].header.w & ~PAGE_FAR_TREES])) return;
  compactPages[atomicAdd(dispatch.y, 1)] = pageIndex;
}
