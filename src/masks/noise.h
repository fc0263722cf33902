#pragma once
#include <cstdint>

namespace eco {

// 2-D gradient noise on an integer lattice with hashed unit gradients and quintic fade,
// roughly in [-1, 1]. Deterministic from the seed; |x|, |z| < 2^31.
float gradientNoise(uint64_t seed, float x, float z);

// Fractal sum of `octaves` gradient-noise layers (lacunarity 2, gain 0.5) with the coarsest
// wavelength in world units, remapped to [0, 1].
float fbmNoise01(uint64_t seed, float x, float z, float wavelength, int octaves);

}  // namespace eco
