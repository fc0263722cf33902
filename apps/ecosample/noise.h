#pragma once
// Fractal sums of core/noise.h gradientNoise64, written for the sample world generator.
#include <cstdint>

namespace eco::sample {

// Fractal Brownian motion: octaves of gradient noise, each twice the frequency and half the
// amplitude of the last, normalized to roughly [-1, 1]. `x, y` in units of the base wavelength.
float fbm(float x, float y, int octaves, uint64_t seed);

// Ridged multifractal in [0, 1]: sharp crests where the noise crosses zero, finer octaves
// weighted by the coarser signal so crests stay crisp and valleys stay smooth.
float ridged(float x, float y, int octaves, uint64_t seed);

}  // namespace eco::sample
