#pragma once
// Interactive window (GLFW + swapchain). The scene renders into the renderer's offscreen
// image, which is blitted to the swapchain image each frame.
#include "render/headless.h"

#include <string>

// maxFrames > 0 closes the window after that many frames (smoke tests). bookmarksPath: the
// camera bookmarks file (bookmarks.h); empty: bookmarks in memory only.
int runWindow(const eco::render::Scene& world, const eco::render::ViewerOptions& options, int maxFrames,
              const std::string& bookmarksPath);
