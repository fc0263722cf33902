#pragma once
// Interactive window (GLFW + swapchain). The scene renders into the renderer's offscreen
// image, which is blitted to the swapchain image each frame.
#include "render/headless.h"

int runWindow(const eco::render::World& world, const eco::render::HeadlessOptions& options);
