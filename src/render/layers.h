#pragma once
// The bake's raster layers (Scene::layers: the river's distance field, eco-masks, species
// suitability) as sampled textures for the terrain shader: R8_UNORM or R16_UNORM, one texel
// per heightmap sample, so texel centres sit on the samples (terrain.frag layerUv). The
// shader reads the code / code max; FrameData.water and the legend map it to the layer's
// values (valueMin + t * (valueMax - valueMin)).
#include <vector>

#include "render/scene.h"
#include "render/vk_context.h"

namespace eco::render {

// Uploads every layer once (a one-shot copy each); the images end in SHADER_READ_ONLY_OPTIMAL.
std::vector<GpuImage> uploadLayers(Context& ctx, const std::vector<SceneLayer>& layers);

}  // namespace eco::render
