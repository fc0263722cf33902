// Frustum culling never changes the picture: frames with it on and off are pixel-identical at
// 4:3, 16:9, 21:9 and a portrait size and at narrow, default and wide fields of view. A plane
// formula that cuts into the view removes instances along the screen edges and fails here.
#include <gtest/gtest.h>

#include <cstring>

#include "render/headless.h"
#include "render/renderer.h"
#include "render_support.h"

using namespace eco;
using namespace eco::render;
using eco::render::fixtures::camera;
using eco::render::fixtures::smallWorld;

namespace {

size_t differingPixels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t n = 0;
  for (size_t i = 0; i + 4 <= a.size(); i += 4) n += std::memcmp(&a[i], &b[i], 4) != 0;
  return n;
}

TEST(RenderFrustum, PictureIsTheSameWithAndWithoutFrustumCulling) {
  preferLavapipe();
  Context ctx;
  ContextOptions co;
  co.validation = true;
  std::string why;
  if (!createContext(ctx, co, &why)) GTEST_SKIP() << "no Vulkan device: " << why;
  {
    // dense enough that vegetation reaches every screen edge
    Scene world = makeSyntheticScene(smallWorld(60000));
    // low and looking across the slopes; aerial, tilted; looking down steeply
    const Camera cameras[] = {camera(150, 90, 850, 45, -12), camera(850, 420, 950, -30, -45),
                              camera(500, 700, 520, 10, -80)};
    for (auto [w, h] : {std::pair{240, 180}, {320, 180}, {420, 180}, {180, 320}}) {
      RendererOptions ro;
      ro.width = w;
      ro.height = h;
      ro.capture = true;
      ro.stream.loadRadius = ro.stream.unloadRadius = 5000;
      // one sample per pixel: see render_culling_test.cpp's options() (centroid under MSAA
      // on lavapipe depends on the order the instances arrive in)
      ro.samples = 1;
      Renderer renderer(ctx, world, ro);
      for (float fov : {35.f, 60.f, 95.f}) {
        for (Camera cam : cameras) {
          cam.fovYDeg = fov;
          renderer.settleStreaming(cam);
          CullSettings on, off;
          off.frustum = false;
          FrameStats a = renderer.render(cam, on);
          std::vector<uint8_t> culled = renderer.pixels();
          FrameStats b = renderer.render(cam, off);
          std::string where = std::to_string(w) + "x" + std::to_string(h) + " fov " + std::to_string(int(fov)) +
                              " camera " + std::to_string(int(cam.position.x)) + "," +
                              std::to_string(int(cam.position.z));
          EXPECT_EQ(differingPixels(culled, renderer.pixels()), 0u) << where;
          EXPECT_LT(a.afterFrustum, b.afterFrustum) << where << ": frustum culling removed nothing";
          EXPECT_GT(a.afterOcclusion, 0u) << where;
        }
      }
    }
  }
  destroyContext(ctx);
  EXPECT_EQ(ctx.validationErrors.load(), 0);
}

}  // namespace
