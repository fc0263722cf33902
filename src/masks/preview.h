#pragma once
// PNG previews of the eco-masks and of baked instances, for artists checking a config.
#include <string>
#include <vector>

#include "masks/eco_masks.h"
#include "tileio/tile_io.h"

namespace eco {

// Writes elevation, slope, aspect, sun, moisture and suitability_<species>.png into dir at
// the heightmap's resolution. Returns the files written.
std::vector<std::string> writeMaskPreviews(const World& world, const SuitabilityRasters& rasters, const std::string& dir);

// Top-down picture of instances over a hillshade, each species in its base colour, drawn in
// the order given (put trees last so they stay visible). `pixelsPerMetre` sets the scale.
void writeInstancePreview(const World& world, const std::vector<TileData>& tiles, float pixelsPerMetre,
                          const std::string& path);

}  // namespace eco
