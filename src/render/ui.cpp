#include "render/ui.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <imgui.h>

namespace eco::render {

namespace {

struct UiPush {
  float scale[2];
  float translate[2];
};

// Capacity for `bytes`: the next power of two from 64 KiB, so a growing UI reallocates a few
// times at most.
VkDeviceSize grownSize(VkDeviceSize bytes) {
  VkDeviceSize size = 64 * 1024;
  while (size < bytes) size *= 2;
  return size;
}

void ensureCapacity(Context& ctx, Buffer& buffer, VkDeviceSize bytes, VkBufferUsageFlags usage) {
  if (buffer.size >= bytes) return;
  // the caller guarantees the GPU is done with this slot's previous frame
  destroyBuffer(ctx, buffer);
  buffer = createBuffer(ctx, grownSize(bytes), usage, MemoryUse::Upload);
}

}  // namespace

UiRect uiBounds(const ImDrawData* data) {
  UiRect r;
  if (!data || data->TotalVtxCount == 0 || data->DisplaySize.x <= 0 || data->DisplaySize.y <= 0) return r;
  const ImVec2 origin = data->DisplayPos, fb = data->FramebufferScale;
  const float maxX = data->DisplaySize.x * fb.x, maxY = data->DisplaySize.y * fb.y;
  float x0 = maxX, y0 = maxY, x1 = 0, y1 = 0;
  for (int l = 0; l < data->CmdListsCount; ++l) {
    const ImDrawList* list = data->CmdLists[l];
    for (const ImDrawCmd& c : list->CmdBuffer) {
      if (c.UserCallback || c.ElemCount == 0) continue;
      float bx0 = maxX, by0 = maxY, bx1 = 0, by1 = 0;
      for (unsigned i = 0; i < c.ElemCount; ++i) {
        const ImDrawVert& v = list->VtxBuffer[int(c.VtxOffset + list->IdxBuffer[int(c.IdxOffset + i)])];
        bx0 = std::min(bx0, (v.pos.x - origin.x) * fb.x);
        by0 = std::min(by0, (v.pos.y - origin.y) * fb.y);
        bx1 = std::max(bx1, (v.pos.x - origin.x) * fb.x);
        by1 = std::max(by1, (v.pos.y - origin.y) * fb.y);
      }
      // what the scissor lets through
      bx0 = std::max(bx0, (c.ClipRect.x - origin.x) * fb.x);
      by0 = std::max(by0, (c.ClipRect.y - origin.y) * fb.y);
      bx1 = std::min(bx1, (c.ClipRect.z - origin.x) * fb.x);
      by1 = std::min(by1, (c.ClipRect.w - origin.y) * fb.y);
      if (bx1 <= bx0 || by1 <= by0) continue;
      x0 = std::min(x0, bx0), y0 = std::min(y0, by0), x1 = std::max(x1, bx1), y1 = std::max(y1, by1);
    }
  }
  if (x1 <= x0 || y1 <= y0) return r;
  r.x0 = int(std::floor(std::max(0.0f, x0)));
  r.y0 = int(std::floor(std::max(0.0f, y0)));
  r.x1 = int(std::ceil(std::min(maxX, x1)));
  r.y1 = int(std::ceil(std::min(maxY, y1)));
  return r;
}

UiRenderer::UiRenderer(Context& ctx, VkFormat colorFormat) : ctx_(ctx) {
  if (!ImGui::GetCurrentContext()) throw std::logic_error("UiRenderer: no current ImGui context");
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  if (!pixels || w <= 0 || h <= 0) throw std::runtime_error("ImGui font atlas could not be built");
  const VkDeviceSize bytes = VkDeviceSize(w) * VkDeviceSize(h) * 4;
  atlas_ = createImage(ctx, uint32_t(w), uint32_t(h), 1, VK_FORMAT_R8G8B8A8_UNORM,
                       VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
  uploadImage(ctx, atlas_, pixels, size_t(bytes), uint32_t(w), uint32_t(h));
  // One texture: every draw command samples the atlas (the panels draw no images of their own).
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(intptr_t(1)));

  // Linear filtering: ImGui's anti-aliased lines sample the atlas between texels.
  VkSamplerCreateInfo si{.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = si.minFilter = VK_FILTER_LINEAR;
  si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  si.maxLod = 0;
  ECO_VK(vkCreateSampler(ctx.device, &si, nullptr, &sampler_));

  GraphicsDesc desc{"ui.vert", "ui.frag", {{0, sizeof(ImDrawVert), VK_VERTEX_INPUT_RATE_VERTEX}},
                    {{0, 0, VK_FORMAT_R32G32_SFLOAT, uint32_t(offsetof(ImDrawVert, pos))},
                     {1, 0, VK_FORMAT_R32G32_SFLOAT, uint32_t(offsetof(ImDrawVert, uv))},
                     {2, 0, VK_FORMAT_R8G8B8A8_UNORM, uint32_t(offsetof(ImDrawVert, col))}},
                    colorFormat, VK_FORMAT_UNDEFINED, VK_CULL_MODE_NONE};
  desc.alphaBlend = true;
  pipeline_ = createGraphicsPipeline(
      ctx, desc, {{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_SHADER_STAGE_FRAGMENT_BIT}}, sizeof(UiPush));
}

UiRenderer::~UiRenderer() {
  vkDeviceWaitIdle(ctx_.device);  // a frame still in flight may read the buffers (an exception's unwinding)
  for (Slot& s : slots_) {
    destroyBuffer(ctx_, s.vertices);
    destroyBuffer(ctx_, s.indices);
  }
  destroyPipeline(ctx_, pipeline_);
  if (sampler_) vkDestroySampler(ctx_.device, sampler_, nullptr);
  destroyImage(ctx_, atlas_);
}

void UiRenderer::record(VkCommandBuffer cmd, const GpuImage& target, const ImDrawData* data, uint32_t frameSlot,
                        VkImageLayout layout) {
  if (!data || data->TotalVtxCount <= 0 || data->TotalIdxCount <= 0 || data->DisplaySize.x <= 0 ||
      data->DisplaySize.y <= 0)
    return;
  if (frameSlot >= kFramesInFlight) throw std::logic_error("UiRenderer::record: frame slot out of range");
  Slot& slot = slots_[frameSlot];
  const VkDeviceSize vertexBytes = VkDeviceSize(data->TotalVtxCount) * sizeof(ImDrawVert);
  const VkDeviceSize indexBytes = VkDeviceSize(data->TotalIdxCount) * sizeof(ImDrawIdx);
  ensureCapacity(ctx_, slot.vertices, vertexBytes, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
  ensureCapacity(ctx_, slot.indices, indexBytes, VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
  auto* vertices = static_cast<ImDrawVert*>(slot.vertices.data);
  auto* indices = static_cast<ImDrawIdx*>(slot.indices.data);
  for (int l = 0; l < data->CmdListsCount; ++l) {
    const ImDrawList* list = data->CmdLists[l];
    std::memcpy(vertices, list->VtxBuffer.Data, size_t(list->VtxBuffer.Size) * sizeof(ImDrawVert));
    std::memcpy(indices, list->IdxBuffer.Data, size_t(list->IdxBuffer.Size) * sizeof(ImDrawIdx));
    vertices += list->VtxBuffer.Size;
    indices += list->IdxBuffer.Size;
  }

  // Whatever used the image before (the scene's passes, its transfer barrier) finishes first.
  imageBarrier(cmd, target.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
               VK_ACCESS_2_MEMORY_WRITE_BIT, layout, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
               VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
  VkRenderingAttachmentInfo color{.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  color.imageView = target.view;
  color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  color.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
  color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  VkRenderingInfo ri{.sType = VK_STRUCTURE_TYPE_RENDERING_INFO};
  ri.renderArea = {{0, 0}, {target.width, target.height}};
  ri.layerCount = 1;
  ri.colorAttachmentCount = 1;
  ri.pColorAttachments = &color;
  vkCmdBeginRendering(cmd, &ri);

  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_.pipeline);
  DescriptorWrites writes;
  writes.image(0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, sampler_, atlas_.view,
               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  writes.push(cmd, pipeline_);
  // The display rectangle covers the whole target: display units -> clip space, and the
  // scissors from display units to the target's pixels with the same ratio.
  VkViewport viewport{0, 0, float(target.width), float(target.height), 0, 1};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  UiPush push{};
  push.scale[0] = 2.0f / data->DisplaySize.x;
  push.scale[1] = 2.0f / data->DisplaySize.y;
  push.translate[0] = -1.0f - data->DisplayPos.x * push.scale[0];
  push.translate[1] = -1.0f - data->DisplayPos.y * push.scale[1];
  vkCmdPushConstants(cmd, pipeline_.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                     sizeof push, &push);
  VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cmd, 0, 1, &slot.vertices.buffer, &offset);
  vkCmdBindIndexBuffer(cmd, slot.indices.buffer, 0,
                       sizeof(ImDrawIdx) == 2 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32);
  const float sx = float(target.width) / data->DisplaySize.x, sy = float(target.height) / data->DisplaySize.y;
  uint32_t firstIndex = 0;
  int32_t firstVertex = 0;
  for (int l = 0; l < data->CmdListsCount; ++l) {
    const ImDrawList* list = data->CmdLists[l];
    for (const ImDrawCmd& c : list->CmdBuffer) {
      // No callbacks are used by the panels; ImDrawCallback_ResetRenderState needs nothing
      // here, as the state above is never changed between commands.
      if (c.UserCallback || c.ElemCount == 0) continue;
      float x0 = std::max(0.0f, (c.ClipRect.x - data->DisplayPos.x) * sx);
      float y0 = std::max(0.0f, (c.ClipRect.y - data->DisplayPos.y) * sy);
      float x1 = std::min(float(target.width), (c.ClipRect.z - data->DisplayPos.x) * sx);
      float y1 = std::min(float(target.height), (c.ClipRect.w - data->DisplayPos.y) * sy);
      if (!(x1 > x0 && y1 > y0)) continue;  // also rejects NaN
      VkRect2D scissor{{int32_t(x0), int32_t(y0)}, {uint32_t(x1 - float(int32_t(x0))), uint32_t(y1 - float(int32_t(y0)))}};
      if (scissor.extent.width == 0 || scissor.extent.height == 0) continue;
      vkCmdSetScissor(cmd, 0, 1, &scissor);
      vkCmdDrawIndexed(cmd, c.ElemCount, 1, firstIndex + c.IdxOffset, firstVertex + int32_t(c.VtxOffset), 0);
    }
    firstIndex += uint32_t(list->IdxBuffer.Size);
    firstVertex += list->VtxBuffer.Size;
  }
  vkCmdEndRendering(cmd);
  imageBarrier(cmd, target.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
               VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
               layout);
}

}  // namespace eco::render
