#pragma once
// CPU reference of the culling shader's frustum, draw-distance and LOD tests (no occlusion),
// for tests and tools. Returns the draw index (kind * LOD_COUNT + lod) or -1 when culled.
#include "../../shaders/shared.h"

namespace eco::render {
int referenceCull(const gpu::GpuInstance& inst, const gpu::FrameData& frame);
}
