#include "viewer_window.h"

#include <cstdio>

int runWindow(const eco::render::World&, const eco::render::HeadlessOptions&) {
  std::fprintf(stderr, "ecoview: window mode not built yet; use --headless\n");
  return 1;
}
