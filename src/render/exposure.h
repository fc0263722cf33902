#pragma once
// Auto-exposure (issue #29): the viewer meters each finished picture (shaders/meter.comp: a
// histogram of the scene luminance behind its pixels) and sets the next frames' exposure so the
// metered key reaches kExposureKey, the way a camera's matrix metering does: the mean log
// luminance between the 10th and 90th percentiles (the darkest corners and the sun's glow do not
// steer it). ViewSettings::exposure stays as a bias on top (ecoview --exposure, the panel).
#include <cstdint>
#include <span>

#include "render/vk_context.h"
#include "shaders/shared.h"

namespace eco::render {

// The scene luminance the metered mean is brought to: ACES-fit display value about 0.33
// (84 of 255), mid-grey for a picture that holds deep shade and sunlit ground together.
constexpr float kExposureKey = 0.22f;
// The auto exposure stays within these factors of 1 (a night-dark or blinding view is not
// pushed to grey).
constexpr float kExposureMin = 0.25f, kExposureMax = 6.0f;

// From a meter histogram (METER_BINS counts of log2 scene luminance), the exposure that brings
// its key to kExposureKey, clamped; 1 for an empty histogram.
float meteredExposure(std::span<const uint32_t> bins);

struct ExposureMeter {
  Pipeline pipeline;
  Buffer histogram;  // METER_BINS uint32, device-local
};
ExposureMeter createExposureMeter(Context& ctx);
void destroyExposureMeter(Context& ctx, ExposureMeter& meter);
// Records the metering of `picture` (w x h, SHADER_READ_ONLY_OPTIMAL, read by compute) drawn
// with `exposure`, and copies the histogram into dst at offset (host-visible read-back).
void recordExposureMeter(VkCommandBuffer cmd, const ExposureMeter& meter, VkSampler sampler, VkImageView picture,
                         uint32_t w, uint32_t h, float exposure, const Buffer& dst, VkDeviceSize offset);

}  // namespace eco::render
