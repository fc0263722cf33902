#include "render/vk_context.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "render/shaders.h"

namespace eco::render {

void vkFail(const char* what, VkResult result) {
  throw std::runtime_error(std::string("Vulkan call failed (") + std::to_string(int(result)) + "): " + what);
}

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                             VkDebugUtilsMessageTypeFlagsEXT,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* ctx = static_cast<Context*>(user);
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    ctx->validationErrors++;
    spdlog::error("vulkan: {}", data->pMessage);
  } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    ctx->validationWarnings++;
    spdlog::warn("vulkan: {}", data->pMessage);
  }
  return VK_FALSE;
}

bool hasExtension(VkPhysicalDevice dev, const char* name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(dev, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> exts(count);
  vkEnumerateDeviceExtensionProperties(dev, nullptr, &count, exts.data());
  for (auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

uint32_t findMemoryType(const Context& ctx, uint32_t bits, VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < ctx.memory.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (ctx.memory.memoryTypes[i].propertyFlags & want) == want) return i;
  return UINT32_MAX;
}

VkDeviceMemory allocate(Context& ctx, VkMemoryRequirements req, MemoryUse use, bool deviceAddress) {
  uint32_t type = UINT32_MAX;
  constexpr VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (use == MemoryUse::Gpu) {
    type = findMemoryType(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  } else if (use == MemoryUse::Upload) {
    // device-local and mappable (integrated GPUs, ReBAR, lavapipe) first, else system memory
    type = findMemoryType(ctx, req.memoryTypeBits, host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX) type = findMemoryType(ctx, req.memoryTypeBits, host);
  } else {
    type = findMemoryType(ctx, req.memoryTypeBits, host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (type == UINT32_MAX) type = findMemoryType(ctx, req.memoryTypeBits, host);
  }
  if (type == UINT32_MAX) type = findMemoryType(ctx, req.memoryTypeBits, 0);
  VkMemoryAllocateFlagsInfo flags{.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo info{.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.pNext = deviceAddress ? &flags : nullptr;
  info.allocationSize = req.size;
  info.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ECO_VK(vkAllocateMemory(ctx.device, &info, nullptr, &memory));
  return memory;
}

VkShaderModule loadModule(Context& ctx, const char* name) {
  std::vector<uint32_t> code = loadSpirv(name);
  VkShaderModuleCreateInfo info{.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = code.size() * 4;
  info.pCode = code.data();
  VkShaderModule module = VK_NULL_HANDLE;
  ECO_VK(vkCreateShaderModule(ctx.device, &info, nullptr, &module));
  return module;
}

void createLayouts(Context& ctx, Pipeline& p, const std::vector<BindingDesc>& bindings, uint32_t pushSize,
                   VkShaderStageFlags pushStages) {
  std::vector<VkDescriptorSetLayoutBinding> b;
  for (auto& d : bindings) b.push_back({d.binding, d.type, 1, d.stages, nullptr});
  VkDescriptorSetLayoutCreateInfo setInfo{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  setInfo.bindingCount = uint32_t(b.size());
  setInfo.pBindings = b.data();
  ECO_VK(vkCreateDescriptorSetLayout(ctx.device, &setInfo, nullptr, &p.setLayout));
  VkPushConstantRange range{pushStages, 0, pushSize};
  VkPipelineLayoutCreateInfo info{.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = 1;
  info.pSetLayouts = &p.setLayout;
  info.pushConstantRangeCount = pushSize ? 1 : 0;
  info.pPushConstantRanges = &range;
  ECO_VK(vkCreatePipelineLayout(ctx.device, &info, nullptr, &p.layout));
}

}  // namespace

bool validationLayerAvailable() {
  if (volkInitialize() != VK_SUCCESS) return false;
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (auto& l : layers)
    if (std::strcmp(l.layerName, kValidationLayer) == 0) return true;
  return false;
}

bool createContext(Context& ctx, const ContextOptions& options, std::string* whyNot) {
  auto fail = [&](const std::string& why) {
    if (whyNot) *whyNot = why;
    destroyContext(ctx);
    return false;
  };
  if (volkInitialize() != VK_SUCCESS) return fail("no Vulkan loader");
  if (volkGetInstanceVersion() < VK_API_VERSION_1_3) return fail("Vulkan 1.3 instance not available");

  bool validation = options.validation && validationLayerAvailable();
  std::vector<const char*> extensions = options.instanceExtensions;
  if (validation) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  VkApplicationInfo app{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "ecoview";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo info{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  info.enabledLayerCount = validation ? 1 : 0;
  info.ppEnabledLayerNames = &kValidationLayer;
  // Validation includes synchronisation validation: missing barriers between passes and
  // frames (read-after-write, write-after-read hazards) are reported as errors like any other.
  const VkValidationFeatureEnableEXT syncValidation = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT validationFeatures{.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  validationFeatures.enabledValidationFeatureCount = 1;
  validationFeatures.pEnabledValidationFeatures = &syncValidation;
  if (validation) info.pNext = &validationFeatures;
  if (vkCreateInstance(&info, nullptr, &ctx.instance) != VK_SUCCESS) return fail("vkCreateInstance failed");
  volkLoadInstanceOnly(ctx.instance);
  ctx.validationEnabled = validation;

  if (validation) {
    VkDebugUtilsMessengerCreateInfoEXT m{.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    m.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    m.pfnUserCallback = debugCallback;
    m.pUserData = &ctx;
    ECO_VK(vkCreateDebugUtilsMessengerEXT(ctx.instance, &m, nullptr, &ctx.messenger));
  }

  uint32_t count = 0;
  vkEnumeratePhysicalDevices(ctx.instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(ctx.instance, &count, devices.data());
  int bestScore = -1;
  for (VkPhysicalDevice dev : devices) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(dev, &props);
    if (props.apiVersion < VK_API_VERSION_1_3) continue;
    if (!hasExtension(dev, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) continue;
    if (options.swapchain && !hasExtension(dev, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) continue;
    VkPhysicalDeviceVulkan12Features f12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan13Features f13{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f12.pNext = &f13;
    VkPhysicalDeviceFeatures2 f{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f.pNext = &f12;
    vkGetPhysicalDeviceFeatures2(dev, &f);
    if (!f.features.multiDrawIndirect || !f.features.drawIndirectFirstInstance || !f12.bufferDeviceAddress ||
        !f13.dynamicRendering || !f13.synchronization2 || !f13.maintenance4)
      continue;
    int score = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU     ? 3
                : props.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2
                                                                              : 1;
    if (score > bestScore) {
      bestScore = score;
      ctx.physical = dev;
    }
  }
  if (!ctx.physical) return fail("no Vulkan 1.3 device with the required features");
  vkGetPhysicalDeviceProperties(ctx.physical, &ctx.properties);
  vkGetPhysicalDeviceMemoryProperties(ctx.physical, &ctx.memory);

  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical, &count, families.data());
  ctx.queueFamily = UINT32_MAX;
  for (uint32_t i = 0; i < count; ++i) {
    if ((families[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
        (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) {
      ctx.queueFamily = i;
      break;
    }
  }
  if (ctx.queueFamily == UINT32_MAX) return fail("no graphics+compute queue");
  ctx.timestamps = families[ctx.queueFamily].timestampValidBits > 0 && ctx.properties.limits.timestampPeriod > 0;

  VkPhysicalDeviceVulkan12Features f12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceVulkan13Features f13{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  f13.dynamicRendering = VK_TRUE;
  f13.synchronization2 = VK_TRUE;
  // The shaders are SPIR-V 1.6 (glslc --target-env=vulkan1.3): compute local sizes from
  // specialization constants are LocalSizeId, which needs maintenance4 (required by 1.3).
  f13.maintenance4 = VK_TRUE;
  f12.pNext = &f13;
  VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &f12;
  features.features.multiDrawIndirect = VK_TRUE;
  features.features.drawIndirectFirstInstance = VK_TRUE;
  VkPhysicalDeviceFeatures supported;
  vkGetPhysicalDeviceFeatures(ctx.physical, &supported);
  ctx.vertexStores = supported.vertexPipelineStoresAndAtomics;
  features.features.vertexPipelineStoresAndAtomics = supported.vertexPipelineStoresAndAtomics;
  // far cards are points a few pixels wide (shaders/far_card.vert); without it they are 1 px
  features.features.largePoints = supported.largePoints;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = ctx.queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  std::vector<const char*> devExts{VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  if (options.swapchain) devExts.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  VkDeviceCreateInfo devInfo{.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  devInfo.pNext = &features;
  devInfo.queueCreateInfoCount = 1;
  devInfo.pQueueCreateInfos = &queueInfo;
  devInfo.enabledExtensionCount = uint32_t(devExts.size());
  devInfo.ppEnabledExtensionNames = devExts.data();
  if (vkCreateDevice(ctx.physical, &devInfo, nullptr, &ctx.device) != VK_SUCCESS) return fail("vkCreateDevice failed");
  volkLoadDevice(ctx.device);
  vkGetDeviceQueue(ctx.device, ctx.queueFamily, 0, &ctx.queue);

  VkCommandPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = ctx.queueFamily;
  ECO_VK(vkCreateCommandPool(ctx.device, &poolInfo, nullptr, &ctx.commandPool));
  spdlog::debug("Vulkan device: {}", ctx.properties.deviceName);
  return true;
}

void destroyContext(Context& ctx) {
  if (ctx.device) {
    vkDeviceWaitIdle(ctx.device);
    if (ctx.commandPool) vkDestroyCommandPool(ctx.device, ctx.commandPool, nullptr);
    vkDestroyDevice(ctx.device, nullptr);
  }
  if (ctx.messenger) vkDestroyDebugUtilsMessengerEXT(ctx.instance, ctx.messenger, nullptr);
  if (ctx.instance) vkDestroyInstance(ctx.instance, nullptr);
  ctx.commandPool = VK_NULL_HANDLE;
  ctx.device = VK_NULL_HANDLE;
  ctx.messenger = VK_NULL_HANDLE;
  ctx.instance = VK_NULL_HANDLE;
  ctx.physical = VK_NULL_HANDLE;
}

VkDeviceSize largestDeviceHeap(const VkPhysicalDeviceMemoryProperties& m) {
  VkDeviceSize local = 0, any = 0;
  for (uint32_t h = 0; h < m.memoryHeapCount; ++h) {
    any = std::max(any, m.memoryHeaps[h].size);
    if (m.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) local = std::max(local, m.memoryHeaps[h].size);
  }
  return local > 0 ? local : any;
}

bool hostWritesVideoMemory(const VkPhysicalDeviceMemoryProperties& m) {
  constexpr VkMemoryPropertyFlags want =
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkDeviceSize largest = largestDeviceHeap(m);
  for (uint32_t i = 0; i < m.memoryTypeCount; ++i)
    if ((m.memoryTypes[i].propertyFlags & want) == want &&
        m.memoryHeaps[m.memoryTypes[i].heapIndex].size >= largest / 10 * 9)
      return true;
  return false;
}

Buffer createBuffer(Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use) {
  Buffer b;
  b.size = size;
  VkBufferCreateInfo info{.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  ECO_VK(vkCreateBuffer(ctx.device, &info, nullptr, &b.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, b.buffer, &req);
  bool address = usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  b.memory = allocate(ctx, req, use, address);
  ECO_VK(vkBindBufferMemory(ctx.device, b.buffer, b.memory, 0));
  if (use != MemoryUse::Gpu) ECO_VK(vkMapMemory(ctx.device, b.memory, 0, size, 0, &b.data));
  if (address) {
    VkBufferDeviceAddressInfo ai{.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    ai.buffer = b.buffer;
    b.address = vkGetBufferDeviceAddress(ctx.device, &ai);
  }
  return b;
}

void destroyBuffer(Context& ctx, Buffer& b) {
  if (b.buffer) vkDestroyBuffer(ctx.device, b.buffer, nullptr);
  if (b.memory) vkFreeMemory(ctx.device, b.memory, nullptr);
  b = Buffer{};
}

GpuImage createImage(Context& ctx, uint32_t width, uint32_t height, uint32_t mips, VkFormat format,
                  VkImageUsageFlags usage, uint32_t layers, VkSampleCountFlagBits samples) {
  GpuImage img;
  img.format = format;
  img.width = width;
  img.height = height;
  img.mips = mips;
  img.layers = layers;
  VkImageCreateInfo info{.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {width, height, 1};
  info.mipLevels = mips;
  info.arrayLayers = layers;
  info.samples = samples;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  ECO_VK(vkCreateImage(ctx.device, &info, nullptr, &img.image));
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device, img.image, &req);
  img.memory = allocate(ctx, req, MemoryUse::Gpu, false);
  ECO_VK(vkBindImageMemory(ctx.device, img.image, img.memory, 0));
  const VkImageAspectFlags aspects = formatAspects(format);
  auto makeView = [&](uint32_t base, uint32_t count, uint32_t layer = UINT32_MAX, VkImageAspectFlags aspect = 0) {
    if (aspect == 0) aspect = aspects;
    VkImageViewCreateInfo v{.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    v.image = img.image;
    v.viewType = layers > 1 && layer == UINT32_MAX ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D;
    v.format = format;
    v.subresourceRange = layer == UINT32_MAX ? VkImageSubresourceRange{aspect, base, count, 0, layers}
                                             : VkImageSubresourceRange{aspect, base, count, layer, 1};
    VkImageView view;
    ECO_VK(vkCreateImageView(ctx.device, &v, nullptr, &view));
    return view;
  };
  img.view = makeView(0, mips);
  if (hasStencil(format)) {
    img.depthView = makeView(0, mips, UINT32_MAX, VK_IMAGE_ASPECT_DEPTH_BIT);
    img.stencilView = makeView(0, mips, UINT32_MAX, VK_IMAGE_ASPECT_STENCIL_BIT);
  }
  if (mips > 1)
    for (uint32_t m = 0; m < mips; ++m) img.mipViews.push_back(makeView(m, 1));
  if (layers > 1)
    for (uint32_t l = 0; l < layers; ++l) img.layerViews.push_back(makeView(0, 1, l));
  return img;
}

void destroyImage(Context& ctx, GpuImage& img) {
  for (VkImageView v : img.mipViews) vkDestroyImageView(ctx.device, v, nullptr);
  for (VkImageView v : img.layerViews) vkDestroyImageView(ctx.device, v, nullptr);
  for (VkImageView v : {img.depthView, img.stencilView})
    if (v) vkDestroyImageView(ctx.device, v, nullptr);
  if (img.view) vkDestroyImageView(ctx.device, img.view, nullptr);
  if (img.image) vkDestroyImage(ctx.device, img.image, nullptr);
  if (img.memory) vkFreeMemory(ctx.device, img.memory, nullptr);
  img = GpuImage{};
}

bool hasStencil(VkFormat format) {
  return format == VK_FORMAT_D32_SFLOAT_S8_UINT || format == VK_FORMAT_D24_UNORM_S8_UINT ||
         format == VK_FORMAT_D16_UNORM_S8_UINT;
}

VkImageAspectFlags formatAspects(VkFormat format) {
  if (hasStencil(format)) return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
  if (format == VK_FORMAT_D32_SFLOAT || format == VK_FORMAT_D16_UNORM) return VK_IMAGE_ASPECT_DEPTH_BIT;
  return VK_IMAGE_ASPECT_COLOR_BIT;
}

void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkPipelineStageFlags2 srcStage,
                  VkAccessFlags2 srcAccess, VkImageLayout oldLayout, VkPipelineStageFlags2 dstStage,
                  VkAccessFlags2 dstAccess, VkImageLayout newLayout, uint32_t baseMip, uint32_t mipCount) {
  VkImageMemoryBarrier2 b{.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
  b.srcStageMask = srcStage;
  b.srcAccessMask = srcAccess;
  b.dstStageMask = dstStage;
  b.dstAccessMask = dstAccess;
  b.oldLayout = oldLayout;
  b.newLayout = newLayout;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {aspect, baseMip, mipCount, 0, VK_REMAINING_ARRAY_LAYERS};
  VkDependencyInfo dep{.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dep.imageMemoryBarrierCount = 1;
  dep.pImageMemoryBarriers = &b;
  vkCmdPipelineBarrier2(cmd, &dep);
}

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess,
                   VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess) {
  VkMemoryBarrier2 b{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  b.srcStageMask = srcStage;
  b.srcAccessMask = srcAccess;
  b.dstStageMask = dstStage;
  b.dstAccessMask = dstAccess;
  VkDependencyInfo dep{.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dep.memoryBarrierCount = 1;
  dep.pMemoryBarriers = &b;
  vkCmdPipelineBarrier2(cmd, &dep);
}

Pipeline createComputePipeline(Context& ctx, const char* shader, const std::vector<BindingDesc>& bindings,
                               uint32_t pushSize) {
  Pipeline p;
  p.bindPoint = VK_PIPELINE_BIND_POINT_COMPUTE;
  createLayouts(ctx, p, bindings, pushSize, VK_SHADER_STAGE_COMPUTE_BIT);
  VkShaderModule module = loadModule(ctx, shader);
  VkComputePipelineCreateInfo info{.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT,
                module, "main", nullptr};
  info.layout = p.layout;
  ECO_VK(vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &info, nullptr, &p.pipeline));
  vkDestroyShaderModule(ctx.device, module, nullptr);
  return p;
}

Pipeline createGraphicsPipeline(Context& ctx, const GraphicsDesc& desc, const std::vector<BindingDesc>& bindings,
                                uint32_t pushSize) {
  Pipeline p;
  p.bindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  createLayouts(ctx, p, bindings, pushSize, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT);
  VkShaderModule vs = loadModule(ctx, desc.vertexShader);
  VkShaderModule fs = desc.fragmentShader ? loadModule(ctx, desc.fragmentShader) : VK_NULL_HANDLE;
  std::vector<VkSpecializationMapEntry> entries;
  for (uint32_t i = 0; i < desc.fragmentConstants.size(); ++i) entries.push_back({i, i * 4, 4});
  const VkSpecializationInfo constants{uint32_t(entries.size()), entries.data(), desc.fragmentConstants.size() * 4,
                                       desc.fragmentConstants.data()};
  VkPipelineShaderStageCreateInfo stages[2] = {
      {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_VERTEX_BIT, vs, "main", nullptr},
      {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_FRAGMENT_BIT, fs, "main",
       entries.empty() ? nullptr : &constants}};
  VkPipelineVertexInputStateCreateInfo vertexInput{.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vertexInput.vertexBindingDescriptionCount = uint32_t(desc.vertexBindings.size());
  vertexInput.pVertexBindingDescriptions = desc.vertexBindings.data();
  vertexInput.vertexAttributeDescriptionCount = uint32_t(desc.vertexAttributes.size());
  vertexInput.pVertexAttributeDescriptions = desc.vertexAttributes.data();
  VkPipelineInputAssemblyStateCreateInfo assembly{.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = desc.topology;
  VkPipelineViewportStateCreateInfo viewport{.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = desc.cullMode;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = desc.samples;
  raster.depthBiasEnable = desc.depthBias;
  VkPipelineDepthStencilStateCreateInfo depth{.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  depth.depthTestEnable = desc.depthFormat != VK_FORMAT_UNDEFINED;
  depth.depthWriteEnable = desc.depthFormat != VK_FORMAT_UNDEFINED && desc.depthWrite;
  depth.depthCompareOp = desc.depthCompare;
  const bool stencil = desc.stencil != GraphicsDesc::Stencil::None && hasStencil(desc.depthFormat);
  if (stencil) {
    depth.stencilTestEnable = VK_TRUE;
    VkStencilOpState& s = depth.front;
    const bool write = desc.stencil == GraphicsDesc::Stencil::Write;
    s.failOp = s.depthFailOp = VK_STENCIL_OP_KEEP;
    s.passOp = write ? VK_STENCIL_OP_REPLACE : VK_STENCIL_OP_KEEP;
    s.compareOp = write ? VK_COMPARE_OP_ALWAYS : VK_COMPARE_OP_EQUAL;
    s.compareMask = desc.stencilMask;
    s.writeMask = write ? desc.stencilMask : 0;
    depth.back = s;
  }
  VkPipelineColorBlendAttachmentState blendAttachment{};
  blendAttachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                                   VK_COLOR_COMPONENT_A_BIT;
  // colour = src * srcColor + dst * dstColor, alpha likewise
  auto blendWith = [&](VkBlendFactor srcColor, VkBlendFactor dstColor, VkBlendFactor srcAlpha, VkBlendFactor dstAlpha) {
    blendAttachment.blendEnable = VK_TRUE;
    blendAttachment.srcColorBlendFactor = srcColor;
    blendAttachment.dstColorBlendFactor = dstColor;
    blendAttachment.srcAlphaBlendFactor = srcAlpha;
    blendAttachment.dstAlphaBlendFactor = dstAlpha;
    blendAttachment.colorBlendOp = blendAttachment.alphaBlendOp = VK_BLEND_OP_ADD;
  };
  if (desc.premultiplied)  // the target's alpha kept
    blendWith(VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_FACTOR_ZERO, VK_BLEND_FACTOR_ONE);
  else if (desc.alphaBlend)
    blendWith(VK_BLEND_FACTOR_SRC_ALPHA, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_FACTOR_ONE,
              VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA);
  VkPipelineColorBlendStateCreateInfo blend{.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  const bool hasColor = desc.colorFormat != VK_FORMAT_UNDEFINED;
  blend.attachmentCount = hasColor ? 1 : 0;
  blend.pAttachments = &blendAttachment;
  std::vector<VkDynamicState> dynamicStates = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  if (desc.depthBias) dynamicStates.push_back(VK_DYNAMIC_STATE_DEPTH_BIAS);
  if (stencil) dynamicStates.push_back(VK_DYNAMIC_STATE_STENCIL_REFERENCE);
  VkPipelineDynamicStateCreateInfo dynamic{.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamic.dynamicStateCount = uint32_t(dynamicStates.size());
  dynamic.pDynamicStates = dynamicStates.data();
  VkPipelineRenderingCreateInfo rendering{.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  rendering.colorAttachmentCount = hasColor ? 1 : 0;
  rendering.pColorAttachmentFormats = &desc.colorFormat;
  rendering.depthAttachmentFormat = desc.depthFormat;
  if (hasStencil(desc.depthFormat)) rendering.stencilAttachmentFormat = desc.depthFormat;

  VkGraphicsPipelineCreateInfo info{.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.pNext = &rendering;
  info.stageCount = fs ? 2 : 1;
  info.pStages = stages;
  info.pVertexInputState = &vertexInput;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pDepthStencilState = &depth;
  info.pColorBlendState = &blend;
  info.pDynamicState = &dynamic;
  info.layout = p.layout;
  ECO_VK(vkCreateGraphicsPipelines(ctx.device, VK_NULL_HANDLE, 1, &info, nullptr, &p.pipeline));
  vkDestroyShaderModule(ctx.device, vs, nullptr);
  if (fs) vkDestroyShaderModule(ctx.device, fs, nullptr);
  return p;
}

void destroyPipeline(Context& ctx, Pipeline& p) {
  if (p.pipeline) vkDestroyPipeline(ctx.device, p.pipeline, nullptr);
  if (p.layout) vkDestroyPipelineLayout(ctx.device, p.layout, nullptr);
  if (p.setLayout) vkDestroyDescriptorSetLayout(ctx.device, p.setLayout, nullptr);
  p = Pipeline{};
}

void DescriptorWrites::buffer(uint32_t binding, VkDescriptorType type, const Buffer& b, VkDeviceSize size) {
  buffers.push_back({b.buffer, 0, size});
  VkWriteDescriptorSet w{.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstBinding = binding;
  w.descriptorCount = 1;
  w.descriptorType = type;
  w.pBufferInfo = &buffers.back();
  writes.push_back(w);
}

void DescriptorWrites::image(uint32_t binding, VkDescriptorType type, VkSampler sampler, VkImageView view,
                             VkImageLayout layout) {
  images.push_back({sampler, view, layout});
  VkWriteDescriptorSet w{.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstBinding = binding;
  w.descriptorCount = 1;
  w.descriptorType = type;
  w.pImageInfo = &images.back();
  writes.push_back(w);
}

void DescriptorWrites::push(VkCommandBuffer cmd, const Pipeline& pipeline) {
  vkCmdPushDescriptorSetKHR(cmd, pipeline.bindPoint, pipeline.layout, 0, uint32_t(writes.size()), writes.data());
}

VkCommandBuffer beginOneShot(Context& ctx) {
  VkCommandBufferAllocateInfo info{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = ctx.commandPool;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer cmd;
  ECO_VK(vkAllocateCommandBuffers(ctx.device, &info, &cmd));
  VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  ECO_VK(vkBeginCommandBuffer(cmd, &begin));
  return cmd;
}

void endOneShot(Context& ctx, VkCommandBuffer cmd) {
  ECO_VK(vkEndCommandBuffer(cmd));
  VkSubmitInfo submit{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  ECO_VK(vkQueueSubmit(ctx.queue, 1, &submit, VK_NULL_HANDLE));
  ECO_VK(vkQueueWaitIdle(ctx.queue));
  vkFreeCommandBuffers(ctx.device, ctx.commandPool, 1, &cmd);
}

void uploadImage(Context& ctx, const GpuImage& image, const void* bytes, size_t size, uint32_t width, uint32_t height,
                 uint32_t layers) {
  Buffer staging = createBuffer(ctx, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::Upload);
  std::memcpy(staging.data, bytes, size);
  VkCommandBuffer cmd = beginOneShot(ctx);
  imageBarrier(cmd, image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, layers};
  region.imageExtent = {width, height, 1};
  vkCmdCopyBufferToImage(cmd, staging.buffer, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
  imageBarrier(cmd, image.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
               VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  endOneShot(ctx, cmd);
  destroyBuffer(ctx, staging);
}

}  // namespace eco::render
