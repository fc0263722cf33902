#pragma once
// Vulkan instance/device creation through volk, and small buffer/image/pipeline helpers.
// Requires Vulkan 1.3 (dynamic rendering, synchronization2), bufferDeviceAddress,
// multiDrawIndirect, drawIndirectFirstInstance and VK_KHR_push_descriptor.
#include <atomic>
#include <deque>
#include <string>
#include <vector>

#include <volk.h>

namespace eco::render {

#define ECO_VK(call)                                                              \
  do {                                                                            \
    VkResult eco_vk_result_ = (call);                                             \
    if (eco_vk_result_ != VK_SUCCESS) ::eco::render::vkFail(#call, eco_vk_result_); \
  } while (0)
[[noreturn]] void vkFail(const char* what, VkResult result);

struct ContextOptions {
  bool validation = false;                    // enable VK_LAYER_KHRONOS_validation if present
  std::vector<const char*> instanceExtensions;  // e.g. from glfwGetRequiredInstanceExtensions
  bool swapchain = false;                     // enable VK_KHR_swapchain on the device
};

struct Context {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};
  bool validationEnabled = false;
  bool timestamps = false;
  bool vertexStores = false;  // vertexPipelineStoresAndAtomics (enabled when supported; debug capture)
  std::atomic<int> validationErrors{0};
  std::atomic<int> validationWarnings{0};
};

// Returns false (with a reason) when no suitable device exists; throws on other failures.
bool createContext(Context& ctx, const ContextOptions& options, std::string* whyNot);
void destroyContext(Context& ctx);
bool validationLayerAvailable();

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* data = nullptr;  // mapped when host visible
  VkDeviceSize size = 0;
  VkDeviceAddress address = 0;  // when created with SHADER_DEVICE_ADDRESS usage
};
enum class MemoryUse { Gpu, Upload, Readback };

// Whether the CPU can write device-local memory directly at full size: some memory type is
// DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT on a heap at least 90 % as large as the largest
// device-local heap (integrated GPUs, resizable BAR, CPU implementations). False for discrete
// GPUs whose host-visible video memory is a 256 MB window: they need staging copies.
bool hostWritesVideoMemory(const VkPhysicalDeviceMemoryProperties& memory);
// Size of the largest DEVICE_LOCAL heap (or of the largest heap when none is device-local).
VkDeviceSize largestDeviceHeap(const VkPhysicalDeviceMemoryProperties& memory);
Buffer createBuffer(Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use);
void destroyBuffer(Context& ctx, Buffer& buffer);

struct GpuImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;          // all mips
  std::vector<VkImageView> mipViews;          // one per mip
  std::vector<VkImageView> layerViews;        // layers > 1: a 2D view of each layer (mip 0), for attachments
  // A depth-stencil format's depth and stencil alone, for sampling (`view` holds both: the attachment)
  VkImageView depthView = VK_NULL_HANDLE, stencilView = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  uint32_t width = 0, height = 0, mips = 1, layers = 1;
};
// layers > 1: a 2D array image whose views are 2D_ARRAY views.
GpuImage createImage(Context& ctx, uint32_t width, uint32_t height, uint32_t mips, VkFormat format,
                  VkImageUsageFlags usage, uint32_t layers = 1,
                  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT);
void destroyImage(Context& ctx, GpuImage& image);
// Whether a depth format has a stencil aspect as well.
bool hasStencil(VkFormat format);
// The aspects of an image of this format: depth (and stencil), or colour.
VkImageAspectFlags formatAspects(VkFormat format);

void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                  VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess, VkImageLayout oldLayout,
                  VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess, VkImageLayout newLayout,
                  uint32_t baseMip = 0, uint32_t mipCount = VK_REMAINING_MIP_LEVELS);
void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess,
                   VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess);

// Pipelines use one push-descriptor set; bindings listed as (type, stages) in binding order.
struct BindingDesc {
  uint32_t binding;
  VkDescriptorType type;
  VkShaderStageFlags stages;
};
struct Pipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineBindPoint bindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
};
Pipeline createComputePipeline(Context& ctx, const char* shader, const std::vector<BindingDesc>& bindings,
                               uint32_t pushSize);
struct GraphicsDesc {
  const char* vertexShader;
  const char* fragmentShader;
  std::vector<VkVertexInputBindingDescription> vertexBindings;
  std::vector<VkVertexInputAttributeDescription> vertexAttributes;
  VkFormat colorFormat;
  VkFormat depthFormat;
  VkCullModeFlags cullMode = VK_CULL_MODE_NONE;
  VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  // Depth-only passes (shadow maps, the depth pre-pass): colorFormat UNDEFINED, no colour
  // attachment; fragmentShader may then be null.
  VkCompareOp depthCompare = VK_COMPARE_OP_GREATER;  // reversed Z; shadow maps use LESS
  bool depthWrite = true;
  bool depthBias = false;  // dynamic depth bias (vkCmdSetDepthBias), for shadow maps
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
  bool alphaBlend = false;  // colour = src * src.a + dst * (1 - src.a) (the UI); else replace
  bool premultiplied = false;  // colour = src + dst * (1 - src.a) (an affine map of what is there)
  // Stencil, where depthFormat has it (hasStencil): Write replaces the value where the depth test
  // passes with the dynamic reference (vkCmdSetStencilReference); Equal draws only samples whose
  // value & stencilMask equals the reference & stencilMask, and writes none.
  enum class Stencil { None, Write, Equal } stencil = Stencil::None;
  uint32_t stencilMask = 0xFF;
  // The fragment shader's specialization constants: value i for constant_id i (bools as 0 / 1)
  std::vector<uint32_t> fragmentConstants;
};
// depthFormat VK_FORMAT_UNDEFINED: no depth attachment, so no depth test or write.
Pipeline createGraphicsPipeline(Context& ctx, const GraphicsDesc& desc,
                                const std::vector<BindingDesc>& bindings, uint32_t pushSize);
void destroyPipeline(Context& ctx, Pipeline& pipeline);

// Descriptor writes for vkCmdPushDescriptorSetKHR.
struct DescriptorWrites {
  std::vector<VkWriteDescriptorSet> writes;
  // Deques: the writes point into them, and push_back must not move earlier elements.
  std::deque<VkDescriptorBufferInfo> buffers;
  std::deque<VkDescriptorImageInfo> images;
  void buffer(uint32_t binding, VkDescriptorType type, const Buffer& b, VkDeviceSize size = VK_WHOLE_SIZE);
  void image(uint32_t binding, VkDescriptorType type, VkSampler sampler, VkImageView view, VkImageLayout layout);
  void push(VkCommandBuffer cmd, const Pipeline& pipeline);
};

// Frames the CPU may record ahead of the GPU: per-frame resources come in this many copies.
constexpr uint32_t kFramesInFlight = 2;

// One-off command buffer, submitted and waited for.
VkCommandBuffer beginOneShot(Context& ctx);
void endOneShot(Context& ctx, VkCommandBuffer cmd);
// Writes `bytes` (level 0 of every layer, tightly packed, layer after layer) into a sampled
// image through a staging buffer and a one-shot command buffer; the image ends in
// SHADER_READ_ONLY_OPTIMAL for fragment shaders. Waits for the queue.
void uploadImage(Context& ctx, const GpuImage& image, const void* bytes, size_t size, uint32_t width, uint32_t height,
                 uint32_t layers = 1);

}  // namespace eco::render
