// Interactive viewer: GLFW window, swapchain, fly and orbit cameras, statistics in the title.
// Controls: right mouse drag looks around (fly) or orbits (orbit mode); WASD moves, Q/E down/up,
// Shift faster; Tab toggles fly/orbit; scroll changes speed (fly) or distance (orbit);
// O toggles occlusion culling; F1 shows or hides the panels (ui_panels.h); 1-9 recall camera
// bookmarks, Ctrl+1-9 store them; Esc, SIGINT or SIGTERM quit (after the current frame). Mouse
// and keys that the panels take (hovering or typing into them) do not move the camera.
// The scene renders at the window's framebuffer size; resizing recreates the swapchain, the
// render targets and the projection.
#include "viewer_window.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>
#include <spdlog/spdlog.h>

#include "bookmarks.h"
#include "render/ui.h"
#include "ui_panels.h"

using namespace eco;
using namespace eco::render;

namespace {

struct Input {
  double lastX = 0, lastY = 0;
  bool dragging = false;
  float scroll = 0;
  // key presses since the last frame as (key, modifiers): a tap shorter than a frame is not
  // missed, as it would be by polling glfwGetKey
  std::vector<std::pair<int, int>> presses;
};

struct Swapchain {
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  std::vector<VkImage> images;
  VkExtent2D extent{};
};

void createSwapchain(Context& ctx, VkSurfaceKHR surface, GLFWwindow* window, Swapchain& sc) {
  VkSurfaceCapabilitiesKHR caps;
  ECO_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx.physical, surface, &caps));
  uint32_t count = 0;
  vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical, surface, &count, nullptr);
  std::vector<VkSurfaceFormatKHR> formats(count);
  vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical, surface, &count, formats.data());
  VkSurfaceFormatKHR format = formats[0];
  for (auto& f : formats)
    if (f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) format = f;
  int w, h;
  glfwGetFramebufferSize(window, &w, &h);
  sc.extent = caps.currentExtent.width != UINT32_MAX ? caps.currentExtent : VkExtent2D{uint32_t(w), uint32_t(h)};
  VkSwapchainCreateInfoKHR info{.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  info.surface = surface;
  info.minImageCount = std::max(caps.minImageCount, 2u);
  if (caps.maxImageCount) info.minImageCount = std::min(info.minImageCount, caps.maxImageCount);
  info.imageFormat = format.format;
  info.imageColorSpace = format.colorSpace;
  info.imageExtent = sc.extent;
  info.imageArrayLayers = 1;
  info.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  info.preTransform = caps.currentTransform;
  info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  info.presentMode = VK_PRESENT_MODE_FIFO_KHR;
  info.clipped = VK_TRUE;
  info.oldSwapchain = sc.swapchain;
  VkSwapchainKHR next;
  ECO_VK(vkCreateSwapchainKHR(ctx.device, &info, nullptr, &next));
  if (sc.swapchain) vkDestroySwapchainKHR(ctx.device, sc.swapchain, nullptr);
  sc.swapchain = next;
  vkGetSwapchainImagesKHR(ctx.device, sc.swapchain, &count, nullptr);
  sc.images.resize(count);
  vkGetSwapchainImagesKHR(ctx.device, sc.swapchain, &count, sc.images.data());
}

}  // namespace

int runWindow(const Scene& world, const ViewerOptions& options, int maxFrames, const std::string& bookmarksPath) {
  if (!glfwInit()) throw std::runtime_error("GLFW could not initialise (no display?); use --headless");
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  GLFWwindow* window = glfwCreateWindow(options.width, options.height, "ecoview", nullptr, nullptr);
  if (!window) throw std::runtime_error("cannot create a window; use --headless");
  Input input;
  glfwSetWindowUserPointer(window, &input);
  glfwSetScrollCallback(window, [](GLFWwindow* w, double, double dy) {
    static_cast<Input*>(glfwGetWindowUserPointer(w))->scroll += float(dy);
  });
  glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int, int action, int mods) {
    if (action == GLFW_PRESS) static_cast<Input*>(glfwGetWindowUserPointer(w))->presses.emplace_back(key, mods);
  });

  Context ctx;
  ContextOptions co;
  co.validation = options.validation;
  co.swapchain = true;
  uint32_t extCount = 0;
  const char** exts = glfwGetRequiredInstanceExtensions(&extCount);
  co.instanceExtensions.assign(exts, exts + extCount);
  std::string why;
  if (!createContext(ctx, co, &why)) throw std::runtime_error("no Vulkan device: " + why);
  VkSurfaceKHR surface;
  ECO_VK(glfwCreateWindowSurface(ctx.instance, window, nullptr, &surface));
  VkBool32 present = VK_FALSE;
  vkGetPhysicalDeviceSurfaceSupportKHR(ctx.physical, ctx.queueFamily, surface, &present);
  if (!present) throw std::runtime_error("the graphics queue cannot present to this window");
  Swapchain sc;
  createSwapchain(ctx, surface, window, sc);
  // Semaphores: one "image acquired" per frame slot (reused only after the renderer has waited
  // for that slot), one "rendered" per swapchain image (the presentation engine holds it until
  // the image comes back).
  VkSemaphoreCreateInfo si{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  std::vector<VkSemaphore> acquired(kFramesInFlight), rendered;
  for (VkSemaphore& a : acquired) ECO_VK(vkCreateSemaphore(ctx.device, &si, nullptr, &a));
  auto makeRendered = [&] {
    for (VkSemaphore r : rendered) vkDestroySemaphore(ctx.device, r, nullptr);
    rendered.assign(sc.images.size(), VK_NULL_HANDLE);
    for (VkSemaphore& r : rendered) ECO_VK(vkCreateSemaphore(ctx.device, &si, nullptr, &r));
  };
  makeRendered();

  // Dear ImGui: its GLFW backend chains the callbacks installed above (scroll)
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini: the viewer writes no files it was not asked for
  ImGui::GetIO().LogFilename = nullptr;
  ImGui_ImplGlfw_InitForVulkan(window, true);

  {
    RendererOptions ro = options.renderer;
    ro.width = int(sc.extent.width);
    ro.height = int(sc.extent.height);
    Renderer renderer(ctx, world, ro);
    renderer.setView(options.view);
    UiRenderer ui(ctx, VK_FORMAT_R8G8B8A8_UNORM);
    Camera cam = options.camera;
    ecoview::BookmarkFile bookmarks = ecoview::openBookmarks(bookmarksPath, cam);
    if (!bookmarks.warning.empty()) spdlog::warn("{}", bookmarks.warning);
    ecoview::PanelState panel;
    panel.scene = &world;
    panel.cull = options.cull;
    panel.view = options.view;
    panel.layers = ecoview::layerInfos(world);
    panel.bookmarks = &bookmarks;
    CullSettings& cull = panel.cull;  // one copy: the panels and the O key both edit it
    bool showUi = true;
    bool orbit = false;
    float speed = 40, orbitDistance = 300;
    Vec3 orbitTarget{};
    bool tabWas = false, oWas = false;
    auto last = std::chrono::steady_clock::now();
    double titleTimer = 0;
    FrameStats s;
    uint64_t submitted = 0;
    auto recreate = [&] {
      renderer.drain();
      vkDeviceWaitIdle(ctx.device);
      createSwapchain(ctx, surface, window, sc);
      makeRendered();
      // the scene is rendered at the window's size: targets and projection follow it
      renderer.resize(int(sc.extent.width), int(sc.extent.height));
      spdlog::info("window {}x{}: swapchain recreated, rendering at {}x{}", sc.extent.width, sc.extent.height,
                   renderer.width(), renderer.height());
    };
    for (int frame = 0; !glfwWindowShouldClose(window) && (maxFrames <= 0 || frame < maxFrames); ++frame) {
      glfwPollEvents();
      if (stopRequested() || glfwGetKey(window, GLFW_KEY_ESCAPE) == GLFW_PRESS) break;
      int fbw = 0, fbh = 0;
      glfwGetFramebufferSize(window, &fbw, &fbh);
      if (fbw == 0 || fbh == 0) {  // minimised: nothing to draw into
        glfwWaitEventsTimeout(0.1);
        continue;
      }
      if (uint32_t(fbw) != sc.extent.width || uint32_t(fbh) != sc.extent.height) recreate();
      auto now = std::chrono::steady_clock::now();
      float dt = std::min(0.25f, std::chrono::duration<float>(now - last).count());
      last = now;

      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      // what the panels take (mouse over them, a widget being edited) does not reach the camera
      const bool uiMouse = showUi && ImGui::GetIO().WantCaptureMouse;
      const bool uiKeys = showUi && ImGui::GetIO().WantCaptureKeyboard;
      auto pressed = [&](int k) { return !uiKeys && glfwGetKey(window, k) == GLFW_PRESS; };
      auto setCamera = [&](const Camera& c) {
        cam = c;
        if (orbit) orbitTarget = cam.position + cameraBasis(cam).forward * orbitDistance;
      };
      for (auto [key, mods] : input.presses) {
        if (key == GLFW_KEY_F1) {
          showUi = !showUi;  // whether or not the panels have the keyboard
        } else if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9 && !uiKeys) {
          const int k = key - GLFW_KEY_0;
          if (mods & GLFW_MOD_CONTROL) {
            if (ecoview::storeBookmark(bookmarks, k, cam))
              spdlog::info("bookmark {} stored{}", k, bookmarks.path.empty() ? "" : " in " + bookmarks.path);
            else
              spdlog::warn("{}", bookmarks.warning);
          } else if (const auto& mark = bookmarks.marks.slots[size_t(k - 1)]) {
            setCamera(*mark);
          }
        }
      }
      input.presses.clear();

      bool tab = pressed(GLFW_KEY_TAB);
      if (tab && !tabWas) {
        orbit = !orbit;
        if (orbit) orbitTarget = cam.position + cameraBasis(cam).forward * orbitDistance;
      }
      tabWas = tab;
      bool o = pressed(GLFW_KEY_O);
      if (o && !oWas) cull.occlusion = !cull.occlusion;
      oWas = o;

      double mx, my;
      glfwGetCursorPos(window, &mx, &my);
      bool drag = !uiMouse && glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
      if (uiMouse) input.scroll = 0;
      if (drag && input.dragging) {
        cam.yawDeg += float(mx - input.lastX) * 0.2f;
        cam.pitchDeg = std::clamp(cam.pitchDeg - float(my - input.lastY) * 0.2f, -89.0f, 89.0f);
      }
      input.dragging = drag;
      input.lastX = mx;
      input.lastY = my;

      CameraBasis b = cameraBasis(cam);
      if (orbit) {
        orbitDistance = std::max(5.0f, orbitDistance * std::pow(0.9f, input.scroll));
        cam.position = orbitTarget - b.forward * orbitDistance;
      } else {
        speed = std::clamp(speed * std::pow(1.2f, input.scroll), 1.0f, 5000.0f);
        float v = speed * dt * (pressed(GLFW_KEY_LEFT_SHIFT) ? 5.0f : 1.0f);
        auto key = [&](int k) { return pressed(k) ? 1.0f : 0.0f; };
        cam.position = cam.position + b.forward * (v * (key(GLFW_KEY_W) - key(GLFW_KEY_S))) +
                       b.right * (v * (key(GLFW_KEY_D) - key(GLFW_KEY_A))) +
                       Vec3{0, v * (key(GLFW_KEY_E) - key(GLFW_KEY_Q)), 0};
      }
      keepAboveGround(world, cam);  // flying or orbiting into a hill stops at its surface
      input.scroll = 0;

      if (showUi) {
        panel.stats = s;
        panel.speciesResident = renderer.speciesResident();
        panel.camera = cam;
        int winW = 0, winH = 0;
        glfwGetWindowSize(window, &winW, &winH);
        panel.probed = pickTerrain(world, cam, winW, winH, float(mx), float(my), panel.probe);
        panel.status = bookmarks.warning;
        ecoview::drawPanels(panel);
        if (panel.cameraRecalled) setCamera(panel.camera);
      }
      ImGui::Render();
      renderer.setView(panel.view);

      // wait for this frame slot (and so for its acquire semaphore) before acquiring with it
      for (const FrameStats& done : renderer.beginFrame()) s = done;
      VkSemaphore acquire = acquired[submitted % kFramesInFlight];
      uint32_t image = 0;
      VkResult r = vkAcquireNextImageKHR(ctx.device, sc.swapchain, UINT64_MAX, acquire, VK_NULL_HANDLE, &image);
      if (r == VK_ERROR_OUT_OF_DATE_KHR) {
        recreate();
        continue;
      }
      if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) vkFail("vkAcquireNextImageKHR", r);
      FrameHooks hooks;
      hooks.wait = acquire;
      hooks.signal = rendered[image];
      VkImage target = sc.images[image];
      VkExtent2D extent = sc.extent;
      hooks.record = [&](VkCommandBuffer cmd, const GpuImage& color) {
        imageBarrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0,
                     VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        VkImageBlit blit{};
        blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        blit.srcOffsets[1] = {int32_t(color.width), int32_t(color.height), 1};
        blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        blit.dstOffsets[1] = {int32_t(extent.width), int32_t(extent.height), 1};
        vkCmdBlitImage(cmd, color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_NEAREST);
        imageBarrier(cmd, target, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                     VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
      };
      if (showUi) {
        // the renderer's slot of this frame: the window is its only submitter
        const uint32_t uiSlot = uint32_t(submitted % kFramesInFlight);
        hooks.overlay = [&ui, uiSlot](VkCommandBuffer cmd, const GpuImage& color) {
          ui.record(cmd, color, ImGui::GetDrawData(), uiSlot);
        };
      }
      renderer.submitFrame(cam, cull, &hooks);
      ++submitted;
      VkPresentInfoKHR pi{.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
      pi.waitSemaphoreCount = 1;
      pi.pWaitSemaphores = &rendered[image];
      pi.swapchainCount = 1;
      pi.pSwapchains = &sc.swapchain;
      pi.pImageIndices = &image;
      r = vkQueuePresentKHR(ctx.queue, &pi);
      if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) {
        recreate();
      } else if (r != VK_SUCCESS) {
        vkFail("vkQueuePresentKHR", r);
      }

      titleTimer += double(dt);
      if (titleTimer > 0.25) {
        titleTimer = 0;
        char title[256];
        std::snprintf(title, sizeof title,
                      "ecoview %s | %.1f ms cpu, %.1f ms gpu (cull %.2f) | resident %llu, frustum %llu, "
                      "occlusion%s %llu | tiles %zu | %s",
                      world.name.c_str(), s.cpuMs, s.gpuMs, s.cullMs, static_cast<unsigned long long>(s.resident),
                      static_cast<unsigned long long>(s.afterFrustum), cull.occlusion ? "" : " (off)",
                      static_cast<unsigned long long>(s.afterOcclusion), s.tilesResident, orbit ? "orbit" : "fly");
        glfwSetWindowTitle(window, title);
      }
    }
    renderer.drain();
    vkDeviceWaitIdle(ctx.device);
  }
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  for (VkSemaphore a : acquired) vkDestroySemaphore(ctx.device, a, nullptr);
  for (VkSemaphore r : rendered) vkDestroySemaphore(ctx.device, r, nullptr);
  vkDestroySwapchainKHR(ctx.device, sc.swapchain, nullptr);
  vkDestroySurfaceKHR(ctx.instance, surface, nullptr);
  int errors = ctx.validationErrors;
  destroyContext(ctx);
  glfwDestroyWindow(window);
  glfwTerminate();
  return errors > 0 ? 1 : 0;
}
