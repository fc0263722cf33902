#pragma once
// Table of candidate offsets for trig-free, sqrt-free annulus candidates.
#include <cstdint>

namespace eco::sampling {

inline constexpr int kAnnulusBits = 10;
inline constexpr int kAnnulusSize = 1 << kAnnulusBits;
inline constexpr int kAnnulusPerDraw = 64 / kAnnulusBits;  // table indices per 64-bit draw

// kAnnulusSize offsets uniform by area in the unit annulus [1, 2] (8 KB, stays in L1): a
// Hammersley set in (angle, area) coordinates, so every entry has its own angle and its own
// radius. Computed with plain double arithmetic (Taylor series and IEEE sqrt, no libm), so the
// table and hence every sample position are identical on every platform.
// Entries interleaved (x, z): one cache line per candidate.
struct AnnulusOffset {
  float x, z;
};
struct alignas(64) AnnulusTable {
  AnnulusOffset at[kAnnulusSize];
};
const AnnulusTable& annulusTable();

}  // namespace eco::sampling
