#include "render/exposure.h"

#include <algorithm>
#include <cmath>

namespace eco::render {

float meteredExposure(std::span<const uint32_t> bins) {
  uint64_t total = 0;
  for (uint32_t b : bins) total += b;
  if (total == 0 || bins.empty()) return 1.0f;
  // the mean of log2 luminance over the pixels from the 10th to the 90th percentile, each bin
  // at its centre, partial bins weighed by the share of them inside the range
  const double lo = 0.10 * double(total), hi = 0.90 * double(total);
  const double width = double(METER_LOG_MAX - METER_LOG_MIN) / double(bins.size());
  double below = 0, sum = 0, weight = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    const double n = bins[i];
    const double inside = std::max(0.0, std::min(below + n, hi) - std::max(below, lo));
    sum += inside * (double(METER_LOG_MIN) + (double(i) + 0.5) * width);
    weight += inside;
    below += n;
  }
  if (!(weight > 0)) return 1.0f;
  const double exposure = std::exp2(std::log2(double(kExposureKey)) - sum / weight);
  return float(std::clamp(exposure, double(kExposureMin), double(kExposureMax)));
}

ExposureMeter createExposureMeter(Context& ctx) {
  ExposureMeter m;
  constexpr VkShaderStageFlags C = VK_SHADER_STAGE_COMPUTE_BIT;
  m.pipeline = createComputePipeline(
      ctx, "meter.comp",
      {{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, C}, {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, C}}, 12);
  m.histogram = createBuffer(ctx, 4 * gpu::METER_BINS,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                             MemoryUse::Gpu);
  return m;
}

void destroyExposureMeter(Context& ctx, ExposureMeter& m) {
  destroyPipeline(ctx, m.pipeline);
  destroyBuffer(ctx, m.histogram);
  m = ExposureMeter{};
}

void recordExposureMeter(VkCommandBuffer cmd, const ExposureMeter& m, VkSampler sampler, VkImageView picture,
                         uint32_t w, uint32_t h, float exposure, const Buffer& dst, VkDeviceSize offset) {
  constexpr VkPipelineStageFlags2 kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  // the previous frame's copy read the histogram: clear after it, count after the clear
  // (fills count as transfers: ALL_TRANSFER covers them whichever transfer stage a layer assigns)
  memoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
  vkCmdFillBuffer(cmd, m.histogram.buffer, 0, 4 * gpu::METER_BINS, 0);
  memoryBarrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, kCompute,
                VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m.pipeline.pipeline);
  DescriptorWrites d;
  d.image(0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, sampler, picture, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  d.buffer(1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, m.histogram);
  d.push(cmd, m.pipeline);
  struct {
    uint32_t w, h;
    float exposure;
  } push{w, h, exposure};
  vkCmdPushConstants(cmd, m.pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
  vkCmdDispatch(cmd, (w + 15) / 16, (h + 15) / 16, 1);
  memoryBarrier(cmd, kCompute, VK_ACCESS_2_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                VK_ACCESS_2_TRANSFER_READ_BIT);
  VkBufferCopy copy{0, offset, 4 * gpu::METER_BINS};
  vkCmdCopyBuffer(cmd, m.histogram.buffer, dst.buffer, 1, &copy);
}

}  // namespace eco::render
