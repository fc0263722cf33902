#include "render/layers.h"

namespace eco::render {

std::vector<GpuImage> uploadLayers(Context& ctx, const std::vector<SceneLayer>& layers) {
  std::vector<GpuImage> out;
  for (const SceneLayer& l : layers) {
    const VkFormat format = l.bytesPerCode == 2 ? VK_FORMAT_R16_UNORM : VK_FORMAT_R8_UNORM;
    GpuImage image = createImage(ctx, uint32_t(l.width), uint32_t(l.height), 1, format,
                                 VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    // the layer's bytes are little-endian codes, as the texel formats read them
    uploadImage(ctx, image, l.data.data(), l.data.size(), uint32_t(l.width), uint32_t(l.height));
    out.push_back(image);
  }
  return out;
}

}  // namespace eco::render
