#pragma once
// 2-D gradient (Perlin-style) noise: hashed unit gradients on an integer lattice, quintic
// fade. One implementation with two gradient sets, each pinned by the outputs built on it.
#include <cstdint>

namespace eco {

// 16 gradients, every 22.5 degrees from +x: the moisture noise of the masks. Roughly in
// [-1, 1], zero at lattice points; deterministic from the seed; |x|, |z| < 2^31.
float gradientNoise(uint64_t seed, float x, float z);
// 64 gradients, offset half a step from +x: the sample world's terrain (apps/ecosample).
float gradientNoise64(uint64_t seed, float x, float z);

// Fractal sum of `octaves` gradientNoise layers (lacunarity 2, gain 0.5) with the coarsest
// wavelength in world units, remapped to [0, 1].
float fbmNoise01(uint64_t seed, float x, float z, float wavelength, int octaves);

}  // namespace eco
