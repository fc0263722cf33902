#include "render/vegetation_draw.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace eco::render {

namespace {
constexpr VkShaderStageFlags kVF = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
constexpr VkDescriptorType kUbo = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
constexpr VkDescriptorType kSsbo = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
constexpr VkDescriptorType kSampled = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
}  // namespace

VegetationDraw createVegetationDraw(Context& ctx, const MeshSet& meshes, VkFormat colorFormat, VkFormat depthFormat,
                                    VkFormat shadowFormat, VkSampleCountFlagBits samples) {
  VegetationDraw v;
  v.vertices = createBuffer(ctx, std::max<size_t>(meshes.vertices.size(), 1) * sizeof(MeshVertex),
                            VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, MemoryUse::Upload);
  std::memcpy(v.vertices.data, meshes.vertices.data(), meshes.vertices.size() * sizeof(MeshVertex));
  v.indices = createBuffer(ctx, std::max<size_t>(meshes.indices.size(), 1) * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                           MemoryUse::Upload);
  std::memcpy(v.indices.data, meshes.indices.data(), meshes.indices.size() * 4);

  GraphicsDesc color{"vegetation.vert", "vegetation.frag", {{0, sizeof(MeshVertex), VK_VERTEX_INPUT_RATE_VERTEX}},
                     {{0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0}, {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 16}},
                     colorFormat, depthFormat, VK_CULL_MODE_NONE};
  color.samples = samples;
  // drawn plants clear the terrain's far-field key where they stand in front of it
  // (render/terrain_draw.h kStencilTerrain): the composite leaves them alone
  color.stencil = GraphicsDesc::Stencil::Write;
  v.stencil = hasStencil(depthFormat);
  const std::vector<BindingDesc> bindings = {{0, kUbo, kVF},
                                             {1, kSsbo, VK_SHADER_STAGE_VERTEX_BIT},
                                             {3, kSampled, VK_SHADER_STAGE_FRAGMENT_BIT},
                                             {6, kSsbo, VK_SHADER_STAGE_VERTEX_BIT},
                                             {7, kSsbo, VK_SHADER_STAGE_VERTEX_BIT}};
  v.color = createGraphicsPipeline(ctx, color, bindings, 16);
  GraphicsDesc cards = color;
  cards.vertexShader = "far_card.vert";
  cards.fragmentShader = "far_card.frag";
  cards.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
  cards.fragmentConstants = {uint32_t(samples)};  // far_card.frag's coverage per sample
  cards.vertexBindings.clear();
  cards.vertexAttributes.clear();
  v.cards = createGraphicsPipeline(ctx, cards, bindings, 16);
  GraphicsDesc shadow = color;
  shadow.fragmentShader = nullptr;
  shadow.colorFormat = VK_FORMAT_UNDEFINED;
  shadow.depthFormat = shadowFormat;
  shadow.depthCompare = VK_COMPARE_OP_LESS;
  shadow.depthBias = true;
  shadow.samples = VK_SAMPLE_COUNT_1_BIT;
  v.shadow = createGraphicsPipeline(ctx, shadow, bindings, 16);
  return v;
}

void destroyVegetationDraw(Context& ctx, VegetationDraw& v) {
  destroyPipeline(ctx, v.color);
  destroyPipeline(ctx, v.shadow);
  destroyPipeline(ctx, v.cards);
  destroyBuffer(ctx, v.vertices);
  destroyBuffer(ctx, v.indices);
}

void recordVegetationDraw(VkCommandBuffer cmd, const VegetationDraw& v, const VegetationInputs& in, uint32_t view) {
  const Pipeline& p = view == 0 ? v.color : v.shadow;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.pipeline);
  DescriptorWrites d;
  d.buffer(0, kUbo, *in.instances.frame);
  d.buffer(1, kSsbo, *in.instances.pageTable, VkDeviceSize(in.instances.pageCount) * sizeof(gpu::GpuPage));
  if (view == 0) d.image(3, kSampled, in.shadowSampler, in.shadowView, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  d.buffer(6, kSsbo, *in.instances.tiles);
  d.buffer(7, kSsbo, *in.instances.species);
  d.push(cmd, p);
  if (view == 0 && v.stencil) vkCmdSetStencilReference(cmd, VK_STENCIL_FACE_FRONT_AND_BACK, 0);
  struct {
    VkDeviceAddress visible;
    uint32_t view, pad;
  } push{in.instances.visible, view, 0};
  vkCmdPushConstants(cmd, p.layout, kVF, 0, sizeof(push), &push);
  VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cmd, 0, 1, &v.vertices.buffer, &offset);
  vkCmdBindIndexBuffer(cmd, v.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
  const uint32_t perView = in.instances.speciesCount * gpu::LOD_COUNT;
  vkCmdDrawIndexedIndirect(cmd, in.instances.draws->buffer, VkDeviceSize(view) * perView * sizeof(gpu::DrawCommand), perView,
                           sizeof(gpu::DrawCommand));
  if (view != 0) return;
  // the far cards: one draw, its record after every view's LODs (shared.h FAR_CARD_PX)
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, v.cards.pipeline);
  d.push(cmd, v.cards);
  if (v.stencil) vkCmdSetStencilReference(cmd, VK_STENCIL_FACE_FRONT_AND_BACK, 0);
  vkCmdPushConstants(cmd, v.cards.layout, kVF, 0, sizeof(push), &push);
  vkCmdDrawIndirect(cmd, in.instances.draws->buffer, VkDeviceSize(gpu::VIEW_COUNT) * perView * sizeof(gpu::DrawCommand), 1,
                    sizeof(VkDrawIndirectCommand));
}

}  // namespace eco::render
