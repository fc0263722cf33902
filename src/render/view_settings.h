#pragma once
// What the viewer shows, beside culling (camera.h CullSettings): lighting features, the mask
// overlay and per-species visibility. Set with Renderer::setView; read by the next frame.
#include <bitset>

namespace eco::render {

struct ViewSettings {
  bool shadows = true;        // cascaded sun shadow maps (terrain and vegetation)
  bool water = true;          // rivers drawn as water where the bake has a river layer
  bool fog = true;            // distance fog and aerial perspective
  bool sky = true;            // sky gradient and sun; false: a flat haze-coloured background
  int overlay = -1;           // Scene::layers index shown on the terrain with a legend; -1: none
  float overlayOpacity = 0.85f;
  float exposure = 1.0f;      // multiplies the scene before tone mapping (with autoExposure: a bias on it)
  bool autoExposure = false;  // meter each picture and expose for it (render/exposure.h); ecoview turns it on
  std::bitset<256> hiddenSpecies;  // by species id: hidden species are culled (drawn 0 times)
};

}  // namespace eco::render
