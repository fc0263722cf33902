#pragma once
// Terrain drawing: the heightmap in a storage buffer, a vertex-attribute-free grid whose
// heights the vertex shader fetches, and the far-field layers sampled by the fragment shader.
// The renderer calls prepareTerrainFrame once per frame (CPU side, frame slot `slot` of
// kFramesInFlight) and recordTerrainDraw inside the terrain rendering pass.
#include "core/types.h"
#include "render/vk_context.h"
#include "../../shaders/shared.h"

namespace eco::render {

struct TerrainDraw {
  const Grid* heightsCpu = nullptr;
  float cellSize = 1;
  Buffer heights;   // float per sample, row-major
  Buffer indices;   // grid of quadsX x quadsZ quads
  uint32_t quadsX = 0, quadsZ = 0, step = 1;
  Pipeline pipeline;
};

// Throws InputError when the heightmap exceeds the device's storage buffer range.
TerrainDraw createTerrainDraw(Context& ctx, const Grid& heights, float cellSize, VkFormat colorFormat,
                              VkFormat depthFormat);
void destroyTerrainDraw(Context& ctx, TerrainDraw& terrain);

// Fills frame.terrain and any per-frame terrain data of frame slot `slot`.
void prepareTerrainFrame(TerrainDraw& terrain, gpu::FrameData& frame, uint32_t slot);

// Inside a rendering pass with viewport and scissor set. frameUbo: this slot's FrameData;
// farField: a 2D array view of FAR_LAYERS layers (render/far_field.h), with its sampler.
void recordTerrainDraw(VkCommandBuffer cmd, const TerrainDraw& terrain, const Buffer& frameUbo,
                       VkImageView farField, VkSampler farSampler, uint32_t slot);

}  // namespace eco::render
