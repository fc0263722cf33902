#pragma once
// The export stage: views of a bake for people and other tools (CSV and PLY instance lists)
// and PNG previews of the eco-masks and of baked instances. Reads finished bakes and the
// masks; writes nothing a bake reads back.
#include <string>
#include <vector>

#include "masks/masks.h"
#include "tileio/tileio.h"

namespace eco {

enum class ExportFormat { Csv, Ply };

// Every instance of every tile (manifest order, then tile order) with x, y, z, yaw, scale,
// species name and id. PLY is ASCII with one vertex per instance. Written atomically, after
// every tile has been verified against the manifest (readTileVerified): a bad bake writes
// nothing. Returns the number of instances written.
//
// Species names are whatever the config said, so they are escaped for each format:
//   CSV: RFC 4180 (a name with a comma, quote, CR or LF is quoted, quotes doubled).
//   PLY: the header has no escape mechanism and a comment ends at a newline (a name with a
//   newline and "end_header" would end the header early), so names in the species comment
//   are percent-encoded: bytes outside A-Z a-z 0-9 - . _ ~ become %XX (RFC 3986).
//   Vertices carry only the species id.
uint64_t exportInstances(const std::string& bakeDir, ExportFormat format, const std::string& outPath);

std::string csvField(const std::string& value);      // RFC 4180 field
std::string plyHeaderName(const std::string& name);  // percent-encoded as above



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
