#pragma once
// CPU reference of the culling shader's frustum, draw-distance and LOD tests (no occlusion),
// for tests and tools. Returns the draw index (kind * LOD_COUNT + lod) or -1 when culled.
// `margin` (optional) receives the smallest distance, in metres, between the sphere and any
// decision boundary (frustum planes, LOD and draw distances): float rounding on the GPU can
// only flip decisions with a tiny margin.
#include "../../shaders/shared.h"

namespace eco::render {
int referenceCull(const gpu::GpuInstance& inst, const gpu::FrameData& frame, float* margin = nullptr);
}
