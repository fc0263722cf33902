#pragma once
// Exact checks of a sampler result, without an O(N^2) pass: a hash grid over all samples
// with cells of twice the interaction distance, comparing every pair within reach in double.
#include <cstddef>
#include <span>

#include "sampling/sampling.h"

namespace eco {

struct SpacingReport {
  size_t samples = 0;
  size_t pairsChecked = 0;  // pairs closer than twice the interaction distance
  size_t violations = 0;    // pairs closer than their required distance
  double minRatio = 0;      // min over checked pairs of distance / required (>= 1 when valid)
  Sample worstA, worstB;    // the pair reaching minRatio
};

// Same class: d >= max(r_p, r_q) with r from sampleRadius (variableRadius with a density
// field), else d >= radius. Different classes: d >= pairDistance.
SpacingReport checkSpacing(const SamplerParams& params, const DensityField* density, std::span<const Sample> samples);

}  // namespace eco
