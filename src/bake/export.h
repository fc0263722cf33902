#pragma once
// Plain-text views of a bake, for people and scripts that do not read FlatBuffers.
#include <string>

#include "tileio/manifest.h"

namespace eco {

enum class ExportFormat { Csv, Ply };

// Every instance of every tile (manifest order, then tile order) with x, y, z, yaw, scale,
// species name and id. PLY is ASCII with one vertex per instance. Written atomically.
// Returns the number of instances written.
uint64_t exportInstances(const std::string& bakeDir, ExportFormat format, const std::string& outPath);

}  // namespace eco
