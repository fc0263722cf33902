#pragma once
// Far field: what the vegetation looks like beyond the instance radius. One RGBA8 layer per
// species kind over the whole world (FAR_LAYERS in shaders/shared.h): rgb the mean colour of
// the kind's instances in the texel, a the fraction of the texel their crowns cover. The
// terrain fragment shader blends each layer in where that kind's instances fade out
// (FrameData.fadeStart/fadeEnd), so the near field hands over to the far field without an edge.
#include "render/vk_context.h"
#include "render/world.h"
#include "../../shaders/shared.h"

namespace eco::render {

struct FarField {
  Image image;  // 2D array, FAR_LAYERS layers, SHADER_READ_ONLY_OPTIMAL between frames
  VkSampler sampler = VK_NULL_HANDLE;
  float extentX = 1, extentZ = 1;  // world metres the layers span
};

FarField createFarField(Context& ctx, const World& world);
void destroyFarField(Context& ctx, FarField& far);
// Called once per frame before recording: takes finished survey results, if any, and records
// their upload into `cmd` (ordered before this frame's terrain pass).
void updateFarField(Context& ctx, FarField& far, VkCommandBuffer cmd);
// Fills frame.farField (and leaves fadeStart/fadeEnd to the renderer).
void prepareFarFieldFrame(const FarField& far, gpu::FrameData& frame);

}  // namespace eco::render
