#pragma once
// Table of unit vectors for trig-free annulus candidates.
namespace eco::sampling {

inline constexpr int kDirectionBits = 10;
inline constexpr int kDirections = 1 << kDirectionBits;

struct Direction {
  float x, z;
};

// kDirections + 1 entries at angles 2 pi i / kDirections (the last repeats the first, so
// neighbours can be interpolated). Computed with plain double arithmetic, not libm, so the
// table and hence every sample position are identical on every platform.
const Direction* directionTable();

}  // namespace eco::sampling
