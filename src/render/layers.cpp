#include "render/layers.h"

#include <cstring>

namespace eco::render {

std::vector<GpuImage> uploadLayers(Context& ctx, const std::vector<SceneLayer>& layers) {
  std::vector<GpuImage> out;
  for (const SceneLayer& l : layers) {
    const VkFormat format = l.bytesPerCode == 2 ? VK_FORMAT_R16_UNORM : VK_FORMAT_R8_UNORM;
    GpuImage image = createImage(ctx, uint32_t(l.width), uint32_t(l.height), 1, format,
                                 VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    // the layer's bytes are little-endian codes, as the texel formats read them
    Buffer staging = createBuffer(ctx, l.data.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::Upload);
    std::memcpy(staging.data, l.data.data(), l.data.size());
    VkCommandBuffer one = beginOneShot(ctx);
    imageBarrier(one, image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_UNDEFINED,
                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {uint32_t(l.width), uint32_t(l.height), 1};
    vkCmdCopyBufferToImage(one, staging.buffer, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    imageBarrier(one, image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                 VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                 VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    endOneShot(ctx, one);
    destroyBuffer(ctx, staging);
    out.push_back(image);
  }
  return out;
}

}  // namespace eco::render
