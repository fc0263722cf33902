#version 460
// Vegetation: gl_InstanceIndex (firstInstance + n) indexes the compacted visible list, which
// holds page/slot references into the resident instance pages; each instance is decoded from
// its 16-byte record here (common.glsl decodeWith). The same shader draws the camera view and,
// without a fragment shader, the shadow cascades (push constant view).
#include "shared.h"
#include "common.glsl"

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer VisibleList { uint items[]; };

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 1) readonly buffer Pages { GpuPage pages[]; };
layout(binding = 6) readonly buffer Tiles { GpuTile tiles[]; };
layout(binding = 7) readonly buffer Species { GpuSpecies species[]; };
layout(push_constant) uniform Push { uvec2 visibleAddress; uint view; };

layout(location = 0) in vec4 inPos;     // unit mesh position, w = 1 tinted by instance colour, 0 bark
layout(location = 1) in vec4 inNormal;

// centroid: under MSAA a pixel shades once for the samples a triangle covers; at the pixel
// centre, outside a sub-pixel leaf, the normal would be extrapolated (distant stands read
// darker: RenderFarField.MultisamplingKeepsTheToneOfSubPixelPlants)
layout(location = 0) centroid out vec3 outWorld;
layout(location = 1) centroid out vec3 outNormal;
layout(location = 2) centroid out vec3 outColor;
layout(location = 3) centroid out float outFoliage;

void main() {
  uint ref = VisibleList(visibleAddress).items[gl_InstanceIndex];
  GpuPage page = pages[ref >> PAGE_SHIFT];
  PackedInstance packed = InstancePage(page.header.xy).items[ref & (PAGE_SIZE - 1)];
  Instance inst = decodeWith(packed, tiles[page.header.w & ~PAGE_FAR_TREES], species[packed.w >> 24]);
  outWorld = instancePoint(inst, inPos.xyz);
  outNormal = instanceNormal(inst, inNormal.xyz);
  outColor = inPos.w > 0.5 ? inst.color : vec3(BARK_COLOR);
  outFoliage = inPos.w;
  gl_Position = viewClip(frame, view, outWorld);
}
