#pragma once
// PNG previews of the eco-masks and of baked instances, for artists checking a config.
#include <string>
#include <vector>

#include "masks/eco_masks.h"
#include "tileio/tile_io.h"

namespace eco {

// No preview is wider or taller than this: a heightmap or extent that would make one larger
// is drawn at a coarser scale (a 4096 x 4096 RGB image is 48 MiB).
constexpr int kMaxPreviewSide = 4096;

// Writes elevation, slope, aspect, sun, moisture and suitability_<species>.png into the
// existing folder dir at the heightmap's resolution, or every n-th cell when that would be
// more than kMaxPreviewSide pixels a side. Returns the files written. InputError naming the
// file when one cannot be written.
std::vector<std::string> writeMaskPreviews(const World& world, const SuitabilityRasters& rasters, const std::string& dir);

// Top-down picture of instances over a hillshade, each species in its base colour, drawn in
// the order given (put trees last so they stay visible). `pixelsPerMetre` sets the scale,
// lowered so that neither side exceeds kMaxPreviewSide; returns the scale used.
float writeInstancePreview(const World& world, const std::vector<TileData>& tiles, float pixelsPerMetre,
                           const std::string& path);

}  // namespace eco
