#pragma once
// Plain-text views of a bake, for people and scripts that do not read FlatBuffers.
#include <string>

#include "tileio/manifest.h"

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

}  // namespace eco
