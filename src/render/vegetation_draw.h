#pragma once
// Vegetation drawing: every species' meshes (all LODs) in one vertex and one index buffer, and
// the two pipelines that draw them: the camera view (vegetation.vert + .frag, multisampled) and
// the shadow cascades (vegetation.vert alone, depth bias). One multi-draw-indirect call per view
// consumes the records cull.comp wrote (a record per species and LOD); the vertex shader
// decodes each instance from its page (render/instance_pages.h). The create/record pattern of
// terrain_draw and far_field: the renderer creates one and records it inside its passes.
#include "meshes/meshes.h"
#include "render/cull_pass.h"
#include "render/vk_context.h"
#include "shaders/shared.h"

namespace eco::render {

struct VegetationDraw {
  Buffer vertices, indices;  // MeshSet's, as loaded
  Pipeline color, shadow;
  Pipeline cards;  // the far cards (far_card.vert + vegetation.frag): no vertex buffers, camera only
  bool stencil = false;  // the colour pipeline writes 0 to the stencil (its depth format has one)
};

VegetationDraw createVegetationDraw(Context& ctx, const MeshSet& meshes, VkFormat colorFormat, VkFormat depthFormat,
                                    VkFormat shadowFormat, VkSampleCountFlagBits samples);
void destroyVegetationDraw(Context& ctx, VegetationDraw& v);

// What one view's draw reads: the frame constants, this frame's page table (pageCount pages),
// the species table, the visible list's address, the indirect records and, for the camera
// view (view 0), the shadow map. Views 1.. are the cascades (drawn with the shadow pipeline).
struct VegetationInputs {
  FrameInstances instances;  // (cull_pass.h) what the cull pass wrote the records of
  VkSampler shadowSampler = VK_NULL_HANDLE;
  VkImageView shadowView = VK_NULL_HANDLE;
};
void recordVegetationDraw(VkCommandBuffer cmd, const VegetationDraw& v, const VegetationInputs& in, uint32_t view);

}  // namespace eco::render
