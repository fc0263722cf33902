#include "render/far_field.h"

#include <algorithm>

namespace eco::render {

// Placeholder: a 1x1 world of zero coverage until the survey is written.
FarField createFarField(Context& ctx, const World& world) {
  FarField f;
  f.extentX = std::max(1.0f, float(world.heights.width - 1) * world.cellSize);
  f.extentZ = std::max(1.0f, float(world.heights.height - 1) * world.cellSize);
  f.image = createImage(ctx, 1, 1, 1, VK_FORMAT_R8G8B8A8_UNORM,
                        VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, gpu::FAR_LAYERS);
  VkSamplerCreateInfo si{.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = si.minFilter = VK_FILTER_LINEAR;
  si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  ECO_VK(vkCreateSampler(ctx.device, &si, nullptr, &f.sampler));
  VkCommandBuffer one = beginOneShot(ctx);
  imageBarrier(one, f.image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  VkClearColorValue zero{};
  VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, VK_REMAINING_ARRAY_LAYERS};
  vkCmdClearColorImage(one, f.image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &all);
  imageBarrier(one, f.image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_CLEAR_BIT,
               VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  endOneShot(ctx, one);
  return f;
}

void destroyFarField(Context& ctx, FarField& f) {
  if (f.sampler) vkDestroySampler(ctx.device, f.sampler, nullptr);
  destroyImage(ctx, f.image);
  f = FarField{};
}

void updateFarField(Context&, FarField&, VkCommandBuffer) {}

void prepareFarFieldFrame(const FarField& f, gpu::FrameData& frame) {
  frame.farField = {1.0f / f.extentX, 1.0f / f.extentZ, 0.0f, 0.0f};
}

}  // namespace eco::render
