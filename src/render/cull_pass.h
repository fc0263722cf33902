#pragma once
// Culling on the GPU: the Hi-Z pyramid reduced from the terrain's depth pre-pass
// (depth_reduce.comp, depth_reduce_ms.comp for a multisampled depth), then cull.comp over every
// resident page (frustum, draw distance and fade, LOD, Hi-Z occlusion, shadow casters per
// cascade), appending visible references into each (view, species, LOD) region of the visible
// list, and cull_finish.comp fixing the LOD 1 records' first instances. The create/record
// pattern of terrain_draw and vegetation_draw; the renderer owns the pyramid image (a target,
// recreated on resize) and the buffers.
#include "render/vk_context.h"
#include "shaders/shared.h"

namespace eco::render {

struct CullPass {
  Pipeline cull, farPages, finish, reduce, reduceMultisampled;
};

CullPass createCullPass(Context& ctx);
void destroyCullPass(Context& ctx, CullPass& c);

// Reduces `depth` (sourceWidth x sourceHeight, `samples` per pixel, SHADER_READ_ONLY) into
// every mip of `pyramid` (GENERAL), with a compute barrier after each level.
void recordDepthPyramid(VkCommandBuffer cmd, const CullPass& c, VkSampler sampler, VkImageView depth,
                        const GpuImage& pyramid, uint32_t sourceWidth, uint32_t sourceHeight,
                        VkSampleCountFlagBits samples);

// This frame's instances as the cull pass and the vegetation draws both read them: the frame
// constants, the page table (pageCount pages), the species table, the indirect records (a
// record per view, species and LOD) and the visible list's address.
struct FrameInstances {
  const Buffer* frame = nullptr;
  const Buffer* pageTable = nullptr;
  uint32_t pageCount = 0;               // table entries the shaders may read
  // Renderer::listPages: the pages culled this frame (table indices), then the far trees'
  // pages far_pages.comp tests for sky first, compacting them into `farCompact` (GPU-only:
  // the indirect dispatch's head, then the pages)
  const Buffer* pageList = nullptr;
  uint32_t listed = 0, farListed = 0;
  const Buffer* farCompact = nullptr;
  const Buffer* tiles = nullptr;  // GpuTile by tile index: the boxes the records decode over
  const Buffer* species = nullptr;
  const Buffer* draws = nullptr;
  VkDeviceAddress visible = 0;
  uint32_t speciesCount = 1;
};

struct CullInputs {
  FrameInstances instances;
  const Buffer* stats = nullptr;
  VkSampler sampler = VK_NULL_HANDLE;
  VkImageView pyramid = VK_NULL_HANDLE;  // all mips, GENERAL
};
// far_pages.comp over the far candidates, cull.comp over the listed pages and (indirect) over
// the far pages with sky behind them, a barrier, then cull_finish.comp.
void recordCull(VkCommandBuffer cmd, const CullPass& c, const CullInputs& in);

}  // namespace eco::render
