#pragma once
// Dear ImGui draw lists drawn with Vulkan through volk (Debian's libimgui has no Vulkan
// backend, and imgui_impl_vulkan would load its own function pointers): the font atlas as a
// texture, one alpha-blended pipeline without depth, a scissor per draw command, and vertex and
// index buffers per frame slot that grow as needed. Works on any target that is an RGBA8 UNORM
// colour attachment; ImGui's colours are written as they come (sRGB-encoded values).
#include <array>
#include <cstdint>

#include "render/vk_context.h"

struct ImDrawData;

namespace eco::render {

// The pixel rectangle [x0, x1) x [y0, y1) the UI drew into (the bounding box of its vertices,
// within the display); empty (x0 == x1) when it drew nothing.
struct UiRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};
UiRect uiBounds(const ImDrawData* data);

class UiRenderer {
 public:
  // Needs a current ImGui context: builds its font atlas (RGBA32) and uploads it once. The
  // atlas must not change afterwards (no fonts added later).
  UiRenderer(Context& ctx, VkFormat colorFormat);
  ~UiRenderer();
  UiRenderer(const UiRenderer&) = delete;
  UiRenderer& operator=(const UiRenderer&) = delete;

  // Records `data` (ImGui::GetDrawData() after ImGui::Render) onto `target`, in its own dynamic
  // rendering pass (load op LOAD). The image arrives in `layout` and is left in it: barriers
  // take it to COLOR_ATTACHMENT_OPTIMAL and back (`layout` TRANSFER_SRC_OPTIMAL: the renderer's
  // overlay hook, after the scene's transfer barrier). `frameSlot` < kFramesInFlight picks the
  // vertex and index buffers: the caller guarantees the GPU has finished the last frame that
  // used the same slot (the renderer's slot of this frame, or any slot when each frame is
  // waited for).
  void record(VkCommandBuffer cmd, const GpuImage& target, const ImDrawData* data, uint32_t frameSlot,
              VkImageLayout layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);

 private:
  struct Slot {
    Buffer vertices, indices;
  };
  Context& ctx_;
  Pipeline pipeline_;
  GpuImage atlas_;
  VkSampler sampler_ = VK_NULL_HANDLE;
  std::array<Slot, kFramesInFlight> slots_;
};

}  // namespace eco::render
