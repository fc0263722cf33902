#include "render/cull_pass.h"

#include <algorithm>

namespace eco::render {

namespace {
constexpr VkDescriptorType kUbo = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
constexpr VkDescriptorType kSsbo = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
constexpr VkDescriptorType kSampled = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
constexpr auto kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr auto kRW = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT;
}  // namespace

CullPass createCullPass(Context& ctx) {
  constexpr VkShaderStageFlags C = VK_SHADER_STAGE_COMPUTE_BIT;
  CullPass c;
  c.cull = createComputePipeline(ctx, "cull.comp",
                                 {{0, kUbo, C}, {1, kSsbo, C}, {2, kSsbo, C}, {3, kSsbo, C}, {4, kSsbo, C}, {5, kSampled, C}, {6, kSsbo, C}, {7, kSsbo, C}},
                                 16);
  c.farPages = createComputePipeline(
      ctx, "far_pages.comp", {{0, kUbo, C}, {1, kSsbo, C}, {3, kSsbo, C}, {5, kSampled, C}, {6, kSsbo, C}, {8, kSsbo, C}}, 8);
  c.finish = createComputePipeline(ctx, "cull_finish.comp", {{0, kUbo, C}, {2, kSsbo, C}}, 0);
  c.reduce = createComputePipeline(ctx, "depth_reduce.comp", {{0, kSampled, C}, {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, C}}, 20);
  c.reduceMultisampled =
      createComputePipeline(ctx, "depth_reduce_ms.comp", {{0, kSampled, C}, {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, C}}, 20);
  return c;
}

void destroyCullPass(Context& ctx, CullPass& c) {
  for (Pipeline* p : {&c.cull, &c.farPages, &c.finish, &c.reduce, &c.reduceMultisampled}) destroyPipeline(ctx, *p);
}

void recordDepthPyramid(VkCommandBuffer cmd, const CullPass& c, VkSampler sampler, VkImageView depth,
                        const GpuImage& pyramid, uint32_t sourceWidth, uint32_t sourceHeight,
                        VkSampleCountFlagBits samples) {
  uint32_t sw = sourceWidth, sh = sourceHeight;
  for (uint32_t level = 0; level < pyramid.mips; ++level) {
    const Pipeline& reduce = level == 0 && samples != VK_SAMPLE_COUNT_1_BIT ? c.reduceMultisampled : c.reduce;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, reduce.pipeline);
    uint32_t dw = std::max(1u, pyramid.width >> level), dh = std::max(1u, pyramid.height >> level);
    DescriptorWrites d;
    if (level == 0)
      d.image(0, kSampled, sampler, depth, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    else
      d.image(0, kSampled, sampler, pyramid.mipViews[level - 1], VK_IMAGE_LAYOUT_GENERAL);
    d.image(1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_NULL_HANDLE, pyramid.mipViews[level], VK_IMAGE_LAYOUT_GENERAL);
    d.push(cmd, reduce);
    uint32_t push[5] = {sw, sh, dw, dh, uint32_t(samples)};
    vkCmdPushConstants(cmd, reduce.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
    vkCmdDispatch(cmd, (dw + 7) / 8, (dh + 7) / 8, 1);
    memoryBarrier(cmd, kCompute, VK_ACCESS_2_SHADER_WRITE_BIT, kCompute, VK_ACCESS_2_SHADER_READ_BIT);
    sw = dw;
    sh = dh;
  }
}

void recordCull(VkCommandBuffer cmd, const CullPass& c, const CullInputs& in) {
  const FrameInstances& fi = in.instances;
  const VkDeviceSize listBytes = VkDeviceSize(fi.listed + fi.farListed) * sizeof(uint32_t);
  // the far trees' pages with the sky behind them, compacted into the indirect dispatch's pages
  if (fi.farListed > 0) {
    const uint32_t head[4] = {gpu::PAGE_SIZE / gpu::CULL_GROUP, 0, 1, 0};
    vkCmdUpdateBuffer(cmd, fi.farCompact->buffer, 0, sizeof(head), head);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, kCompute, kRW);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c.farPages.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, *fi.frame);
    d.buffer(1, kSsbo, *fi.pageTable, VkDeviceSize(fi.pageCount) * sizeof(gpu::GpuPage));
    d.buffer(3, kSsbo, *fi.pageList, listBytes);
    d.image(5, kSampled, in.sampler, in.pyramid, VK_IMAGE_LAYOUT_GENERAL);
    d.buffer(6, kSsbo, *fi.tiles);
    d.buffer(8, kSsbo, *fi.farCompact);
    d.push(cmd, c.farPages);
    const uint32_t range[2] = {fi.listed, fi.farListed};
    vkCmdPushConstants(cmd, c.farPages.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(range), range);
    vkCmdDispatch(cmd, (fi.farListed + 63) / 64, 1, 1);
    memoryBarrier(cmd, kCompute, VK_ACCESS_2_SHADER_WRITE_BIT, kCompute | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                  VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
  }
  // cull.comp over a list: the listed pages, then the compacted far pages
  auto cull = [&](const Buffer& list, VkDeviceSize bytes, uint32_t base, uint32_t count) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c.cull.pipeline);
    DescriptorWrites d;
    d.buffer(0, kUbo, *fi.frame);
    d.buffer(1, kSsbo, *fi.pageTable, VkDeviceSize(fi.pageCount) * sizeof(gpu::GpuPage));
    d.buffer(2, kSsbo, *fi.draws);
    d.buffer(3, kSsbo, list, bytes);
    d.buffer(4, kSsbo, *in.stats);
    d.image(5, kSampled, in.sampler, in.pyramid, VK_IMAGE_LAYOUT_GENERAL);
    d.buffer(6, kSsbo, *fi.tiles);
    d.buffer(7, kSsbo, *fi.species);
    d.push(cmd, c.cull);
    struct {
      VkDeviceAddress visible;
      uint32_t base, count;
    } push{fi.visible, base, count};
    vkCmdPushConstants(cmd, c.cull.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
  };
  if (fi.listed > 0) {
    cull(*fi.pageList, listBytes, 0, fi.listed);
    vkCmdDispatch(cmd, gpu::PAGE_SIZE / gpu::CULL_GROUP, std::min(fi.listed, gpu::PAGE_ROWS),
                  (fi.listed + gpu::PAGE_ROWS - 1) / gpu::PAGE_ROWS);
  }
  if (fi.farListed > 0) {  // as many workgroups as far_pages.comp found pages (fewer than PAGE_ROWS)
    cull(*fi.farCompact, fi.farCompact->size, 4, UINT32_MAX);
    vkCmdDispatchIndirect(cmd, fi.farCompact->buffer, 0);
  }
  memoryBarrier(cmd, kCompute, kRW, kCompute, kRW);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c.finish.pipeline);
  DescriptorWrites d;
  d.buffer(0, kUbo, *in.instances.frame);
  d.buffer(2, kSsbo, *in.instances.draws);
  d.push(cmd, c.finish);
  vkCmdDispatch(cmd, (in.instances.speciesCount * gpu::VIEW_COUNT + 63) / 64, 1, 1);
}

}  // namespace eco::render
