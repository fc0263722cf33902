#include "render/terrain_draw.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"

namespace eco::render {

namespace {
constexpr VkShaderStageFlags kVF = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
}

TerrainDraw createTerrainDraw(Context& ctx, const Grid& hm, float cellSize, VkFormat colorFormat,
                              VkFormat depthFormat) {
  TerrainDraw t;
  t.heightsCpu = &hm;
  t.cellSize = cellSize;
  if (hm.width < 2 || hm.height < 2) throw std::runtime_error("terrain needs at least 2x2 samples");
  if (hm.values.size() * 4 > ctx.properties.limits.maxStorageBufferRange)
    throw InputError("terrain " + std::to_string(hm.width) + "x" + std::to_string(hm.height) + " (" +
                     std::to_string(hm.values.size() * 4) + " bytes) exceeds this device's storage buffer limit (" +
                     std::to_string(ctx.properties.limits.maxStorageBufferRange) + " bytes)");
  t.heights = createBuffer(ctx, hm.values.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::Upload);
  std::memcpy(t.heights.data, hm.values.data(), hm.values.size() * 4);
  // a grid of at most ~512 quads per side
  t.step = uint32_t(std::max(1, (std::max(hm.width, hm.height) + 511) / 512));
  t.quadsX = (uint32_t(hm.width) - 1 + t.step - 1) / t.step;
  t.quadsZ = (uint32_t(hm.height) - 1 + t.step - 1) / t.step;
  std::vector<uint32_t> grid;
  grid.reserve(size_t(t.quadsX) * t.quadsZ * 6);
  uint32_t columns = t.quadsX + 1;
  for (uint32_t z = 0; z < t.quadsZ; ++z) {
    for (uint32_t x = 0; x < t.quadsX; ++x) {
      uint32_t a = z * columns + x, b = a + 1, c = a + columns, d = c + 1;
      grid.insert(grid.end(), {a, c, b, b, c, d});
    }
  }
  t.indices = createBuffer(ctx, grid.size() * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, MemoryUse::Upload);
  std::memcpy(t.indices.data, grid.data(), grid.size() * 4);
  t.pipeline = createGraphicsPipeline(
      ctx, {"terrain.vert", "terrain.frag", {}, {}, colorFormat, depthFormat, VK_CULL_MODE_NONE},
      {{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kVF},
       {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_VERTEX_BIT},
       {2, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_SHADER_STAGE_FRAGMENT_BIT}},
      4);
  return t;
}

void destroyTerrainDraw(Context& ctx, TerrainDraw& t) {
  destroyPipeline(ctx, t.pipeline);
  destroyBuffer(ctx, t.indices);
  destroyBuffer(ctx, t.heights);
  t = TerrainDraw{};
}

void prepareTerrainFrame(TerrainDraw& t, gpu::FrameData& frame, uint32_t) {
  frame.terrain = {t.cellSize, float(t.heightsCpu->width), float(t.heightsCpu->height), float(t.step)};
}

void recordTerrainDraw(VkCommandBuffer cmd, const TerrainDraw& t, const Buffer& frameUbo, VkImageView farField,
                       VkSampler farSampler, uint32_t) {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t.pipeline.pipeline);
  DescriptorWrites d;
  d.buffer(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, frameUbo);
  d.buffer(1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t.heights);
  d.image(2, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, farSampler, farField, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  d.push(cmd, t.pipeline);
  vkCmdPushConstants(cmd, t.pipeline.layout, kVF, 0, 4, &t.quadsX);
  vkCmdBindIndexBuffer(cmd, t.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
  vkCmdDrawIndexed(cmd, t.quadsX * t.quadsZ * 6, 1, 0, 0, 0);
}

}  // namespace eco::render
