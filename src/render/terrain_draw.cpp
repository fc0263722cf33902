#include "render/terrain_draw.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace eco::render {

namespace {

constexpr VkShaderStageFlags kVF = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
constexpr uint32_t kPatch = gpu::TERRAIN_PATCH;

// Level 0 (the heightmap's own samples) reaches at least this far from the eye, horizontally,
// and starts morphing at kMorphStart of it (320 m): beyond the ground cover's default draw
// distance (CullSettings), so the small instances stand on the surface they were placed on.
constexpr float kLevel0Metres = 400;
// Detail: each level reaches at least kQuadsPerRange of its quads from the eye, so a quad spans
// at most 2 / kQuadsPerRange radians where its level starts (19 pixels at 720 lines and 60
// degrees, seen face on). On the sample (6 m cells) kLevel0Metres decides: level 0 to 400 m,
// 63 k triangles in the default view against the old uniform grid's 234 k, at about its cost on
// lavapipe. 96 (111 k) and 128 (181 k) keep more relief far away and cost 1.7x and 2x there.
constexpr float kQuadsPerRange = 64;
// A level morphs into the next over [kMorphStart, kMorphEnd] of its range. The morph ends a
// little inside the range so that nodes the selection leaves at the coarser level (wholly
// beyond the range) meet fully morphed neighbours.
constexpr float kMorphStart = 0.8f;
constexpr float kMorphEnd = 0.98f;

// Shading pipelines made per frame at most after the first (prepareTerrainShading).
constexpr size_t kTerrainPipelinesPerFrame = 2;

// One binding list for every terrain pipeline (depth-only ones leave the samplers unused).
std::vector<BindingDesc> terrainBindings(bool capture) {
  constexpr VkDescriptorType kSampled = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  std::vector<BindingDesc> b = {{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kVF},
                                {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kVF},  // heights (the composite: normals)
                                {2, kSampled, kVF},  // the far field: colour, and the canopy's lift
                                {3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_VERTEX_BIT},
                                {5, kSampled, VK_SHADER_STAGE_FRAGMENT_BIT},
                                {6, kSampled, kVF},  // the river: its colour, and the canopy's gap
                                {7, kSampled, VK_SHADER_STAGE_FRAGMENT_BIT},
                                {8, kSampled, kVF},   // the far look: the sun's area at the vertices
                                {9, kSampled, VK_SHADER_STAGE_FRAGMENT_BIT},   // composite: depth samples,
                                {10, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_VERTEX_BIT},  // rectangles,
                                {11, kSampled, VK_SHADER_STAGE_FRAGMENT_BIT}};  // stencil samples
  if (capture) b.push_back({4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_VERTEX_BIT});
  return b;
}

struct Box {
  float x0, z0, x1, z1, y0, y1;
};

// Indices of an n x n quad patch: grid vertex (i, j) is j * (n + 1) + i, the centre of quad
// (i, j) is (n + 1)^2 + j * n + i; four triangles per quad around its centre.
void appendPatch(std::vector<uint16_t>& out, uint32_t n) {
  uint32_t columns = n + 1, centres = columns * columns;
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) {
      uint16_t a = uint16_t(j * columns + i), b = uint16_t(a + 1), c = uint16_t(a + columns), d = uint16_t(c + 1);
      uint16_t m = uint16_t(centres + j * n + i);
      out.insert(out.end(), {a, b, m, b, d, m, d, c, m, c, a, m});
    }
}

// Node rectangle in cells, clipped to the heightmap.
struct CellRect {
  uint32_t x0, z0, x1, z1;
};
CellRect nodeCells(const Grid& hm, uint32_t level, uint32_t ix, uint32_t iz) {
  uint32_t size = kPatch << level;
  uint32_t x0 = ix * size, z0 = iz * size;
  return {x0, z0, std::min(x0 + size, uint32_t(hm.width - 1)), std::min(z0 + size, uint32_t(hm.height - 1))};
}

// Fills `field` of every level's nodes: at level 0 pick (min or max) of value(x, z) over the
// node's samples (its cells, edges included), above it pick over the node's children.
template <class Value, class Pick>
void boundNodes(TerrainDraw& t, std::vector<float> TerrainLevel::*field, float start, Value value, Pick pick) {
  const Grid& hm = *t.heightsCpu;
  for (size_t level = 0; level < t.levels.size(); ++level) {
    TerrainLevel& l = t.levels[level];
    std::vector<float>& out = l.*field;
    out.assign(size_t(l.nodesX) * l.nodesZ, start);
    for (uint32_t iz = 0; iz < l.nodesZ; ++iz)
      for (uint32_t ix = 0; ix < l.nodesX; ++ix) {
        float& v = out[size_t(iz) * l.nodesX + ix];
        if (level == 0) {
          const CellRect r = nodeCells(hm, 0, ix, iz);
          for (uint32_t z = r.z0; z <= r.z1; ++z)
            for (uint32_t x = r.x0; x <= r.x1; ++x) v = pick(v, value(x, z));
          continue;
        }
        const TerrainLevel& c = t.levels[level - 1];
        const std::vector<float>& below = c.*field;
        for (uint32_t cz = iz * 2; cz < std::min(iz * 2 + 2, c.nodesZ); ++cz)
          for (uint32_t cx = ix * 2; cx < std::min(ix * 2 + 2, c.nodesX); ++cx) v = pick(v, below[size_t(cz) * c.nodesX + cx]);
      }
  }
}

// A node's box in metres, its heights raised at the top by `above`.
Box nodeBox(const TerrainDraw& t, uint32_t level, uint32_t ix, uint32_t iz, float above = 0) {
  CellRect r = nodeCells(*t.heightsCpu, level, ix, iz);
  const TerrainLevel& l = t.levels[level];
  size_t i = size_t(iz) * l.nodesX + ix;
  float c = t.cellSize;
  return {float(r.x0) * c, float(r.z0) * c, float(r.x1) * c, float(r.z1) * c, l.minY[i], l.maxY[i] + above};
}

// Whether a box meets the region inside every plane (unit normals pointing inside): for each,
// its corner farthest along the normal is inside.
bool boxMeets(const Box& b, const gpu::vec4* planes, uint32_t planeCount) {
  for (uint32_t p = 0; p < planeCount; ++p) {
    const gpu::vec4& q = planes[p];
    float x = q.x >= 0 ? b.x1 : b.x0, y = q.y >= 0 ? b.y1 : b.y0, z = q.z >= 0 ? b.z1 : b.z0;
    if (q.x * x + q.y * y + q.z * z + q.w < 0) return false;
  }
  return true;
}

struct Selection {
  const TerrainDraw& t;
  float eyeX, eyeZ;
  const gpu::vec4* planes;
  std::vector<gpu::TerrainNode> full, quarter;

  Box box(uint32_t level, uint32_t ix, uint32_t iz) const { return nodeBox(t, level, ix, iz); }
  bool withinRange(const Box& b, uint32_t level) const {
    float range = t.level0Range * float(1u << level);
    float dx = std::max({b.x0 - eyeX, 0.0f, eyeX - b.x1}), dz = std::max({b.z0 - eyeZ, 0.0f, eyeZ - b.z1});
    return dx * dx + dz * dz <= range * range;
  }
  bool visible(const Box& b) const { return boxMeets(b, planes, gpu::FRUSTUM_PLANES); }
  // CDLOD selection. False: the node lies beyond its level's range, so its parent draws the
  // area. Otherwise the node's area is handled (drawn here or by children, or culled).
  bool select(uint32_t level, uint32_t ix, uint32_t iz) {
    Box b = box(level, ix, iz);
    bool root = level + 1 == t.levels.size();
    if (!root && !withinRange(b, level)) return false;
    if (!visible(b)) return true;
    CellRect r = nodeCells(*t.heightsCpu, level, ix, iz);
    if (level == 0 || !withinRange(b, level - 1)) {
      full.push_back({{r.x0, r.z0, level, kPatch}});
      return true;
    }
    const TerrainLevel& child = t.levels[level - 1];
    for (uint32_t cz = iz * 2; cz < std::min(iz * 2 + 2, child.nodesZ); ++cz)
      for (uint32_t cx = ix * 2; cx < std::min(ix * 2 + 2, child.nodesX); ++cx)
        if (!select(level - 1, cx, cz) && visible(box(level - 1, cx, cz))) {
          CellRect q = nodeCells(*t.heightsCpu, level - 1, cx, cz);
          quarter.push_back({{q.x0, q.z0, level, kPatch / 2}});
        }
    return true;
  }
  void sortNearFirst(std::vector<gpu::TerrainNode>& nodes) const {
    auto distance2 = [&](const gpu::TerrainNode& n) {
      float half = float(n.cell.w << n.cell.z) * 0.5f;
      float dx = (float(n.cell.x) + half) * t.cellSize - eyeX, dz = (float(n.cell.y) + half) * t.cellSize - eyeZ;
      return dx * dx + dz * dz;
    };
    std::sort(nodes.begin(), nodes.end(), [&](const auto& a, const auto& b) { return distance2(a) < distance2(b); });
  }
};

}  // namespace

TerrainDraw createTerrainDraw(Context& ctx, const Grid& hm, float cellSize, VkFormat colorFormat,
                              VkFormat depthFormat, VkSampleCountFlagBits samples) {
  TerrainDraw t;
  t.samples = samples;
  t.heightsCpu = &hm;
  t.cellSize = cellSize;
  t.colorFormat = colorFormat;
  t.depthFormat = depthFormat;
  if (hm.width < 2 || hm.height < 2) throw std::runtime_error("terrain needs at least 2x2 samples");
  if (hm.values.size() * 4 > ctx.properties.limits.maxStorageBufferRange)
    throw InputError("terrain " + std::to_string(hm.width) + "x" + std::to_string(hm.height) + " (" +
                     std::to_string(hm.values.size() * 4) + " bytes) exceeds this device's storage buffer limit (" +
                     std::to_string(ctx.properties.limits.maxStorageBufferRange) + " bytes)");
  t.heights = createBuffer(ctx, hm.values.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::Upload);
  std::memcpy(t.heights.data, hm.values.data(), hm.values.size() * 4);

  // Crack-free condition: a level-L node is drawn only when it comes within the level's
  // range R, so all of it lies within R + its diagonal; the level L + 1 mesh there must not
  // have started morphing, i.e. R + diagonal <= kMorphStart * 2R. The diagonal is
  // sqrt(2) * kPatch * cellSize * 2^L, so this holds at every level when it holds at level 0.
  float diagonal0 = std::sqrt(2.0f) * float(kPatch) * cellSize;
  t.level0Range = std::max({kLevel0Metres, kQuadsPerRange * cellSize, 1.05f * diagonal0 / (2 * kMorphStart - 1)});

  // quadtree levels up to a root covering the whole heightmap, with node height bounds
  uint32_t cellsX = uint32_t(hm.width - 1), cellsZ = uint32_t(hm.height - 1);
  for (uint32_t level = 0;; ++level) {
    TerrainLevel l;
    uint32_t size = kPatch << level;
    l.nodesX = (cellsX + size - 1) / size;
    l.nodesZ = (cellsZ + size - 1) / size;
    t.levels.push_back(std::move(l));
    if (t.levels.back().nodesX == 1 && t.levels.back().nodesZ == 1) break;
  }
  auto height = [&](uint32_t x, uint32_t z) { return hm.at(int(x), int(z)); };
  boundNodes(t, &TerrainLevel::minY, INFINITY, height, [](float a, float b) { return std::min(a, b); });
  boundNodes(t, &TerrainLevel::maxY, -INFINITY, height, [](float a, float b) { return std::max(a, b); });

  // Drawn nodes cover disjoint parts of the heightmap, each at least a level-0 node's
  // (quarters are drawn at level 1 and up), so there are never more than level 0 has.
  t.nodeCapacity = t.levels[0].nodesX * t.levels[0].nodesZ;
  for (Buffer& b : t.nodes)
    b = createBuffer(ctx, VkDeviceSize(t.nodeCapacity) * gpu::VIEW_COUNT * sizeof(gpu::TerrainNode),
                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::Upload);

  // the composite's rectangles (prepareTerrainShading grows them as a frame needs)
  for (Buffer& b : t.compositeRects)
    b = createBuffer(ctx, 4096 * sizeof(gpu::uvec4), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::Upload);

  std::vector<uint16_t> patches;
  appendPatch(patches, kPatch);
  t.fullIndexCount = uint32_t(patches.size());
  appendPatch(patches, kPatch / 2);
  t.quarterIndexCount = uint32_t(patches.size()) - t.fullIndexCount;
  t.indices = createBuffer(ctx, patches.size() * 2, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, MemoryUse::Upload);
  std::memcpy(t.indices.data, patches.data(), patches.size() * 2);

  const std::vector<BindingDesc> bindings = terrainBindings(false);
  GraphicsDesc color{"terrain.vert", "terrain.frag", {}, {}, colorFormat, depthFormat, VK_CULL_MODE_NONE};
  // after the depth pre-pass: the same vertex positions (gl_Position is precise) give the
  // same depths, which pass >=
  color.depthCompare = VK_COMPARE_OP_GREATER_OR_EQUAL;
  color.samples = samples;
  color.stencil = GraphicsDesc::Stencil::Write;  // the node's composite key (terrainStencil)
  t.colorDesc = color;  // the other shading pipelines: prepareTerrainShading
  t.pipelines.back() = createGraphicsPipeline(ctx, color, bindings, sizeof(gpu::TerrainPush));  // the whole shader
  if (hasStencil(depthFormat)) {
    // over the colour pass's result: no depth test, the stencil picks the key's pixels
    const bool ms = samples != VK_SAMPLE_COUNT_1_BIT;
    GraphicsDesc composite{"composite.vert", ms ? "far_composite_ms.frag" : "far_composite.frag", {}, {}, colorFormat,
                           depthFormat, VK_CULL_MODE_NONE};
    composite.depthCompare = VK_COMPARE_OP_ALWAYS;
    composite.depthWrite = false;
    composite.samples = samples;
    composite.premultiplied = true;
    composite.stencil = GraphicsDesc::Stencil::Equal;
    t.compositeDesc = composite;
    t.composites.back() = createGraphicsPipeline(ctx, composite, bindings, sizeof(gpu::TerrainPush));
    GraphicsDesc overlay = composite;
    overlay.fragmentShader = ms ? "overlay_ms.frag" : "overlay.frag";
    overlay.premultiplied = false;
    overlay.alphaBlend = true;
    overlay.stencilMask = kStencilTerrain;  // every terrain pixel
    t.overlayPipeline = createGraphicsPipeline(ctx, overlay, bindings, sizeof(gpu::TerrainPush));
  }
  GraphicsDesc depth{"terrain_depth.vert", nullptr, {}, {}, VK_FORMAT_UNDEFINED, depthFormat, VK_CULL_MODE_NONE};
  depth.samples = samples;
  t.depthPipeline = createGraphicsPipeline(ctx, depth, bindings, sizeof(gpu::TerrainPush));
  GraphicsDesc shadow = depth;
  shadow.samples = VK_SAMPLE_COUNT_1_BIT;
  shadow.depthFormat = VK_FORMAT_D32_SFLOAT;
  shadow.depthCompare = VK_COMPARE_OP_LESS;
  shadow.depthBias = true;
  t.shadowPipeline = createGraphicsPipeline(ctx, shadow, bindings, sizeof(gpu::TerrainPush));

  // fallback textures: a shadow map that is lit everywhere (depth 1) and an empty layer
  t.noShadow = createImage(ctx, 1, 1, 1, VK_FORMAT_D32_SFLOAT,
                           VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, gpu::CASCADE_COUNT);
  t.noLayer = createImage(ctx, 1, 1, 1, VK_FORMAT_R8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
  {
    VkCommandBuffer one = beginOneShot(ctx);
    imageBarrier(one, t.noShadow.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_NONE, 0,
                 VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    imageBarrier(one, t.noLayer.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, 0,
                 VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkClearDepthStencilValue one1{1.0f, 0};
    VkImageSubresourceRange depthRange{VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, gpu::CASCADE_COUNT};
    vkCmdClearDepthStencilImage(one, t.noShadow.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &one1, 1, &depthRange);
    VkClearColorValue zero{};
    VkImageSubresourceRange colorRange{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(one, t.noLayer.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &colorRange);
    imageBarrier(one, t.noShadow.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                 VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                 VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    imageBarrier(one, t.noLayer.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                 VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                 VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    endOneShot(ctx, one);
  }
  VkSamplerCreateInfo si{.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = si.minFilter = VK_FILTER_LINEAR;
  si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  ECO_VK(vkCreateSampler(ctx.device, &si, nullptr, &t.layerSampler));
  VkSamplerCreateInfo point = si;
  point.magFilter = point.minFilter = VK_FILTER_NEAREST;
  ECO_VK(vkCreateSampler(ctx.device, &point, nullptr, &t.pointSampler));
  si.compareEnable = VK_TRUE;  // hardware 2x2 percentage-closer filtering
  si.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  ECO_VK(vkCreateSampler(ctx.device, &si, nullptr, &t.shadowSampler));
  return t;
}

void destroyTerrainDraw(Context& ctx, TerrainDraw& t) {
  for (Pipeline& p : t.pipelines) destroyPipeline(ctx, p);
  for (Pipeline& p : t.composites) destroyPipeline(ctx, p);
  destroyPipeline(ctx, t.overlayPipeline);
  destroyPipeline(ctx, t.depthPipeline);
  destroyPipeline(ctx, t.shadowPipeline);
  destroyImage(ctx, t.noShadow);
  destroyImage(ctx, t.noLayer);
  if (t.shadowSampler) vkDestroySampler(ctx.device, t.shadowSampler, nullptr);
  if (t.layerSampler) vkDestroySampler(ctx.device, t.layerSampler, nullptr);
  if (t.pointSampler) vkDestroySampler(ctx.device, t.pointSampler, nullptr);
  if (t.capturePipeline.pipeline) destroyPipeline(ctx, t.capturePipeline);
  for (Buffer& b : t.capture) destroyBuffer(ctx, b);
  for (Buffer& b : t.nodes) destroyBuffer(ctx, b);
  for (Buffer& b : t.compositeRects) destroyBuffer(ctx, b);
  destroyBuffer(ctx, t.indices);
  destroyBuffer(ctx, t.heights);
  t = TerrainDraw{};
}

namespace {

// Selects one view's nodes (levels by horizontal distance from the eye, culled by `planes`)
// into its part of the slot's node buffer.
void selectView(TerrainDraw& t, const gpu::FrameData& frame, const gpu::vec4* planes, uint32_t slot, uint32_t view) {
  Selection s{t, frame.eye.x, frame.eye.z, planes, {}, {}};
  uint32_t top = uint32_t(t.levels.size() - 1);
  s.select(top, 0, 0);
  s.sortNearFirst(s.full);
  s.sortNearFirst(s.quarter);
  if (s.full.size() + s.quarter.size() > t.nodeCapacity)
    throw std::logic_error("terrain selection exceeds its bound (" + std::to_string(t.nodeCapacity) + " nodes)");
  auto* out = static_cast<gpu::TerrainNode*>(t.nodes[slot].data) + size_t(view) * t.nodeCapacity;
  std::memcpy(out, s.full.data(), s.full.size() * sizeof(gpu::TerrainNode));
  std::memcpy(out + s.full.size(), s.quarter.data(), s.quarter.size() * sizeof(gpu::TerrainNode));
  t.fullNodes[slot][view] = uint32_t(s.full.size());
  t.quarterNodes[slot][view] = uint32_t(s.quarter.size());
}

}  // namespace

void prepareTerrainFrame(TerrainDraw& t, gpu::FrameData& frame, uint32_t slot) {
  frame.terrain = {t.cellSize, float(t.heightsCpu->width), float(t.heightsCpu->height), float(t.samples)};
  selectView(t, frame, frame.frustum, slot, 0);
  for (uint32_t v = 1; v < gpu::VIEW_COUNT; ++v) t.fullNodes[slot][v] = t.quarterNodes[slot][v] = 0;
  t.triangles[slot] = uint64_t(t.fullNodes[slot][0]) * t.fullIndexCount / 3 +
                      uint64_t(t.quarterNodes[slot][0]) * t.quarterIndexCount / 3;
  t.fullByShading[slot] = t.quarterByShading[slot] = {};
  t.fullByShading[slot].back() = t.fullNodes[slot][0];
  t.quarterByShading[slot].back() = t.quarterNodes[slot][0];
}

void setTerrainRiver(TerrainDraw& t, const std::vector<float>& distance) {
  const Grid& hm = *t.heightsCpu;
  if (distance.size() != hm.values.size()) throw std::logic_error("setTerrainRiver: not the heights' size");
  boundNodes(t, &TerrainLevel::minRiver, INFINITY,
             [&](uint32_t x, uint32_t z) { return distance[size_t(z) * size_t(hm.width) + x]; },
             [](float a, float b) { return std::min(a, b); });
}

namespace {

// A selected node's place in the quadtree: its level and index there (quarter nodes are drawn
// one level above their own).
struct NodePlace {
  uint32_t level, ix, iz;
};
NodePlace nodePlace(const gpu::TerrainNode& n) {
  const uint32_t extent = n.cell.w << n.cell.z;
  return {uint32_t(std::countr_zero(extent / kPatch)), n.cell.x / extent, n.cell.y / extent};
}

// The screen's tiles each composite key's nodes may cover (their boxes projected, clipped to the
// near plane), written as one rectangle a tile: the composite shades only there (lavapipe runs a
// fragment shader for pixels its stencil test rejects).
struct CompositeTiles {
  static constexpr uint32_t kTile = 16;  // pixels
  const gpu::FrameData& f;
  uint32_t width, height, cols, rows;
  std::array<std::vector<uint8_t>, kCompositeKeys> marked;  // rows x cols, for the keys used
  std::array<bool, kCompositeKeys> used{};
  explicit CompositeTiles(const gpu::FrameData& frame)
      : f(frame), width(uint32_t(std::max(frame.proj.z, 1.0f))), height(uint32_t(std::max(frame.proj.w, 1.0f))),
        cols((width + kTile - 1) / kTile), rows((height + kTile - 1) / kTile) {}
  void mark(uint32_t key, const Box& b) {
    // the box's corners in view space (x, y over depth w), then the points where its edges
    // cross the near plane
    const float nearZ = f.eye.w;
    float px[8], py[8], pw[8];
    for (uint32_t i = 0; i < 8; ++i) {
      const float x = (i & 1) ? b.x1 : b.x0, y = (i & 2) ? b.y1 : b.y0, z = (i & 4) ? b.z1 : b.z0;
      auto row = [&](const gpu::vec4& r) { return r.x * x + r.y * y + r.z * z + r.w; };
      px[i] = row(f.clip[0]);
      py[i] = row(f.clip[1]);
      pw[i] = row(f.clip[3]);
    }
    float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    auto add = [&](float x, float y, float w) {
      const float sx = (x / w * 0.5f + 0.5f) * float(width), sy = (y / w * 0.5f + 0.5f) * float(height);
      x0 = std::min(x0, sx), x1 = std::max(x1, sx), y0 = std::min(y0, sy), y1 = std::max(y1, sy);
    };
    for (uint32_t i = 0; i < 8; ++i) {
      if (pw[i] >= nearZ) add(px[i], py[i], pw[i]);
      for (uint32_t axis = 1; axis < 8; axis <<= 1) {  // the edge to the corner across each axis
        const uint32_t j = i | axis;
        if (j == i || (pw[i] >= nearZ) == (pw[j] >= nearZ)) continue;
        const float s = (nearZ - pw[i]) / (pw[j] - pw[i]);
        add(px[i] + s * (px[j] - px[i]), py[i] + s * (py[j] - py[i]), nearZ);
      }
    }
    if (!(x0 <= x1 && y0 <= y1)) return;  // wholly behind the eye
    // a pixel of slack for the rasteriser's rounding
    const auto clampTile = [](float v, uint32_t n) {
      return uint32_t(std::clamp(v / float(kTile), 0.0f, float(n - 1)));
    };
    if (x1 < -1.0f || y1 < -1.0f || x0 > float(width) + 1.0f || y0 > float(height) + 1.0f) return;
    const uint32_t c0 = clampTile(x0 - 1, cols), c1 = clampTile(x1 + 1, cols);
    const uint32_t r0 = clampTile(y0 - 1, rows), r1 = clampTile(y1 + 1, rows);
    if (marked[key].empty()) marked[key].assign(size_t(rows) * cols, 0);
    uint8_t* m = marked[key].data();
    for (uint32_t r = r0; r <= r1; ++r) std::fill(m + size_t(r) * cols + c0, m + size_t(r) * cols + c1 + 1, uint8_t(1));
    used[key] = true;
  }
  // Rectangles needed: the whole screen and every marked tile.
  uint32_t count() const {
    uint32_t n = 1;
    for (const std::vector<uint8_t>& k : marked)
      for (uint8_t m : k) n += m;
    return n;
  }
  // Into `rects` (at least count() of them): [0] the whole screen, then per used key its tiles;
  // ranges[key] = (first, count). One rectangle a tile, not runs of them: composite.vert reads
  // the look table at the corners, so a pixel's corners must not depend on its neighbours.
  void write(Buffer& rects, std::array<std::pair<uint32_t, uint32_t>, kCompositeKeys>& ranges) const {
    auto* out = static_cast<gpu::uvec4*>(rects.data);
    uint32_t n = 0;
    out[n++] = {0, 0, width, height};
    ranges = {};
    for (uint32_t key = 0; key < kCompositeKeys; ++key) {
      if (!used[key]) continue;
      const uint32_t first = n;
      const uint8_t* m = marked[key].data();
      for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < cols; ++c)
          if (m[size_t(r) * cols + c])
            out[n++] = {c * kTile, r * kTile, std::min((c + 1) * kTile, width), std::min((r + 1) * kTile, height)};
      ranges[key] = {first, n - first};
    }
  }
};

}  // namespace

uint32_t terrainShading(float nearest, float farthest, float nearestDepth, float nearestRiver, const gpu::FrameData& f) {
  uint32_t need = 0;
  // terrain.frag: wet = 1 - smoothstep(0.8 w, w, d) > 0 where the river distance d < w
  if (f.water.x > 0.5f && !(nearestRiver >= f.water.z)) need |= kShadeWater;
  // shadow.glsl: lit (1) past the last split's view depth; terrain.frag: castsShadow 0 there
  if (f.shadowSplits.w > 0.5f && !(nearestDepth > f.shadowSplits.z)) need |= kShadeShadows;
  if (f.farField.z < 0.5f) return need;  // terrain.frag: farPlants draws nothing
  // terrain.frag: kind k's far field fades in where d > fadeStart[k] (t > 0), and its crowns are
  // drawn where a pixel's footprint, 2 d / (proj.y proj.w) metres, is under the crown radius
  // (detail > 0); trees and shrubs only
  const float crownPixels = 0.5f * f.proj.y * f.proj.w;  // d below crownSize x this: detail > 0
  for (uint32_t k = 0; k < gpu::KIND_COUNT; ++k) {
    const float start = (&f.fadeStart.x)[k], r = (&f.crownSize.x)[k];
    if (!(farthest > start)) continue;
    need |= 1u << k;
    // some d in the range both past the fade's start and near enough
    if (k < 2 && r > 0 && std::max(nearest, start) < r * crownPixels) need |= 1u << (kShadeCrownShift + k);
  }
  return need;
}

void prepareTerrainShading(Context& ctx, TerrainDraw& t, const gpu::FrameData& frame, uint32_t slot, bool classes) {
  const Vec3 eye{frame.eye.x, frame.eye.y, frame.eye.z};
  // terrain_vertex.glsl lifts the ground by at most the higher canopy
  const float lift = std::max({frame.canopy.x, frame.canopy.y, 0.0f});
  auto shading = [&](const gpu::TerrainNode& n) {
    if (!classes || t.capturePipeline.pipeline) return kTerrainShadings - 1;  // (capture: one pipeline)
    const auto [level, ix, iz] = nodePlace(n);
    const Box b = nodeBox(t, level, ix, iz, lift);
    const float dx = std::max({b.x0 - eye.x, 0.0f, eye.x - b.x1}), dy = std::max({b.y0 - eye.y, 0.0f, eye.y - b.y1}),
                dz = std::max({b.z0 - eye.z, 0.0f, eye.z - b.z1});
    const float fx = std::max(eye.x - b.x0, b.x1 - eye.x), fy = std::max(eye.y - b.y0, b.y1 - eye.y),
                fz = std::max(eye.z - b.z0, b.z1 - eye.z);
    // a metre and a thousandth either way: the shader's float distances to morphed vertices
    const float nearest = std::sqrt(dx * dx + dy * dy + dz * dz), farthest = std::sqrt(fx * fx + fy * fy + fz * fz);
    // the box's least depth along the view: its corner farthest against the forward axis
    const Vec3 forward{frame.forward.x, frame.forward.y, frame.forward.z};
    const float depth = (forward.x > 0 ? b.x0 : b.x1) * forward.x + (forward.y > 0 ? b.y0 : b.y1) * forward.y +
                        (forward.z > 0 ? b.z0 : b.z1) * forward.z - (eye.x * forward.x + eye.y * forward.y + eye.z * forward.z);
    // the river's distance interpolates the samples' (their least bounds it), a metre of slack
    const TerrainLevel& l = t.levels[level];
    const float river = l.minRiver.empty() ? -INFINITY
                                           : l.minRiver[size_t(iz) * l.nodesX + ix] * 0.999f - 1.0f;
    return terrainShading(nearest * 0.999f - 1.0f, farthest * 1.001f + 1.0f, depth - 0.001f * std::abs(depth) - 1.0f,
                          river, frame);
  };
  auto* nodes = static_cast<gpu::TerrainNode*>(t.nodes[slot].data);  // the camera's: view 0
  std::vector<std::pair<uint32_t, gpu::TerrainNode>> keyed;
  CompositeTiles tiles(frame);
  auto order = [&](gpu::TerrainNode* first, uint32_t count, std::array<uint32_t, kTerrainShadings>& counts) {
    counts = {};
    keyed.clear();
    for (uint32_t i = 0; i < count; ++i) {
      keyed.push_back({shading(first[i]), first[i]});
      ++counts[keyed.back().first];
      if (compositeDrawn(keyed.back().first)) {
        // the node's boxes two levels down (up to 16, each with its own height range: a far
        // node's box stands far taller on the screen than its ground)
        const NodePlace p = nodePlace(first[i]);
        const uint32_t down = std::min(p.level, 2u), fine = p.level - down, split = 1u << down;
        const TerrainLevel& l = t.levels[fine];
        for (uint32_t z = 0; z < split; ++z)
          for (uint32_t x = 0; x < split; ++x) {
            const uint32_t ix = p.ix * split + x, iz = p.iz * split + z;
            if (ix < l.nodesX && iz < l.nodesZ) tiles.mark(compositeKey(keyed.back().first), nodeBox(t, fine, ix, iz, lift));
          }
      }
    }
    // stable: within a key the nodes stay nearest first
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (uint32_t i = 0; i < count; ++i) first[i] = keyed[i].second;
  };
  order(nodes, t.fullNodes[slot][0], t.fullByShading[slot]);
  order(nodes + t.fullNodes[slot][0], t.quarterNodes[slot][0], t.quarterByShading[slot]);
  if (const VkDeviceSize need = VkDeviceSize(tiles.count()) * sizeof(gpu::uvec4); need > t.compositeRects[slot].size) {
    // the slot's previous frame is done with it (prepareTerrainFrame's contract)
    destroyBuffer(ctx, t.compositeRects[slot]);
    t.compositeRects[slot] = createBuffer(ctx, need * 2, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::Upload);
  }
  tiles.write(t.compositeRects[slot], t.compositeRanges[slot]);
  // Pipelines this frame lacks: the first frame makes all its view needs (start-up); later ones
  // the two with the most nodes, the rest on the frames after (recordTerrainDraw draws a key
  // without one with the whole shader: the same picture), so no frame in flight waits for more
  // than two compilations, however far the eye jumps.
  // (a composite key counts as missing with the nodes of every key that draws through it)
  std::vector<std::pair<uint32_t, uint32_t>> missing;  // (nodes, key); composites as key + kTerrainShadings
  std::array<uint32_t, kCompositeKeys> compositeNodes{};
  for (uint32_t key = 0; key < kTerrainShadings; ++key) {
    const uint32_t n = t.fullByShading[slot][key] + t.quarterByShading[slot][key];
    if (n > 0 && !t.pipelines[key].pipeline) missing.push_back({n, key});
    if (compositeDrawn(key)) compositeNodes[compositeKey(key)] += n;
  }
  if (t.compositeDesc.fragmentShader)
    for (uint32_t c = 0; c < kCompositeKeys; ++c)
      if (compositeNodes[c] > 0 && !t.composites[c].pipeline) missing.push_back({compositeNodes[c], kTerrainShadings + c});
  std::sort(missing.begin(), missing.end(), std::greater<>());
  const size_t limit = t.shadingStarted ? kTerrainPipelinesPerFrame : missing.size();
  t.shadingStarted = true;
  for (size_t i = 0; i < missing.size() && i < limit; ++i) {
    const uint32_t key = missing[i].second;
    const bool composite = key >= kTerrainShadings;
    GraphicsDesc desc = composite ? t.compositeDesc : t.colorDesc;
    // terrain.frag's FAR_KINDS, CROWN_KINDS, SUN_SHADOWS, WATER (far_composite.frag: the first three)
    desc.fragmentConstants = {key & kShadeFarKinds, (key & kShadeCrownKinds) >> kShadeCrownShift,
                              (key & kShadeShadows) != 0};
    if (!composite) desc.fragmentConstants.push_back((key & kShadeWater) != 0);
    Pipeline& p = composite ? t.composites[key - kTerrainShadings] : t.pipelines[key];
    p = createGraphicsPipeline(ctx, desc, terrainBindings(false), sizeof(gpu::TerrainPush));
  }
}

void prepareTerrainShadows(TerrainDraw& t, const gpu::FrameData& frame, uint32_t slot) {
  for (uint32_t c = 0; c < gpu::CASCADE_COUNT; ++c)
    selectView(t, frame, &frame.shadowPlanes[c * gpu::FRUSTUM_PLANES], slot, 1 + c);
}

namespace {

// Draws view `view`'s full nodes [firstFull, + fullCount) and quarter nodes [firstQuarter, +
// quarterCount) of the slot with pipeline p.
void recordTerrainNodes(VkCommandBuffer cmd, const TerrainDraw& t, const Buffer& frameUbo, const TerrainTextures& tex,
                        uint32_t slot, TerrainPass pass, uint32_t view, const Pipeline& p, uint32_t key,
                        uint32_t firstFull, uint32_t fullCount, uint32_t firstQuarter, uint32_t quarterCount) {
  const bool capture = &p == &t.capturePipeline;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.pipeline);
  DescriptorWrites d;
  d.buffer(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, frameUbo);
  d.buffer(1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t.heights);
  d.buffer(3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t.nodes[slot]);
  constexpr VkDescriptorType kSampled = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  constexpr VkImageLayout kRead = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  // every pass: the vertices read the canopy and the river (no canopy over water)
  d.image(2, kSampled, tex.farSampler, tex.farField, kRead);
  d.image(6, kSampled, t.layerSampler, tex.river ? tex.river : t.noLayer.view, kRead);
  if (pass == TerrainPass::Color) {
    d.image(8, kSampled, tex.farSampler, tex.farLook, kRead);
    d.image(5, kSampled, t.shadowSampler, tex.shadowMap ? tex.shadowMap : t.noShadow.view, kRead);
    d.image(7, kSampled, t.layerSampler, tex.overlay ? tex.overlay : t.noLayer.view, kRead);
  }
  if (capture) d.buffer(4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t.capture[slot]);
  d.push(cmd, p);
  if (pass == TerrainPass::Color && hasStencil(t.depthFormat))
    vkCmdSetStencilReference(cmd, VK_STENCIL_FACE_FRONT_AND_BACK, terrainStencil(key));
  gpu::TerrainPush push{};
  push.lod = {t.level0Range, kMorphStart, kMorphEnd, float(t.levels.size() - 1)};
  push.capture.x = capture ? t.captureNodes * gpu::TERRAIN_PATCH_VERTICES : 0;
  push.capture.y = view;
  vkCmdPushConstants(cmd, p.layout, kVF, 0, sizeof(push), &push);
  vkCmdBindIndexBuffer(cmd, t.indices.buffer, 0, VK_INDEX_TYPE_UINT16);
  const uint32_t first = view * t.nodeCapacity;
  if (fullCount > 0) vkCmdDrawIndexed(cmd, t.fullIndexCount, fullCount, 0, 0, first + firstFull);
  if (quarterCount > 0) vkCmdDrawIndexed(cmd, t.quarterIndexCount, quarterCount, t.fullIndexCount, 0, first + firstQuarter);
}

}  // namespace

void recordTerrainDraw(VkCommandBuffer cmd, const TerrainDraw& t, const Buffer& frameUbo,
                       const TerrainTextures& tex, uint32_t slot, TerrainPass pass, uint32_t view) {
  bool capture = pass == TerrainPass::Color && t.capturePipeline.pipeline != VK_NULL_HANDLE;
  const uint32_t full = t.fullNodes[slot][view], quarter = t.quarterNodes[slot][view];
  if (pass == TerrainPass::Color && !capture) {  // each shading key with its own pipeline
    for (uint32_t s = 0, firstFull = 0, firstQuarter = full; s < kTerrainShadings; ++s) {
      const uint32_t f = t.fullByShading[slot][s], q = t.quarterByShading[slot][s];
      if (f + q > 0)
        recordTerrainNodes(cmd, t, frameUbo, tex, slot, pass, view,
                           t.pipelines[s].pipeline ? t.pipelines[s] : t.pipelines.back(), s, firstFull, f, firstQuarter, q);
      firstFull += f;
      firstQuarter += q;
    }
    return;
  }
  const Pipeline& p = capture                          ? t.capturePipeline
                      : pass == TerrainPass::Depth  ? t.depthPipeline
                                                    : t.shadowPipeline;
  // (the capture pipeline is the whole shader: its pixels take the whole composite)
  recordTerrainNodes(cmd, t, frameUbo, tex, slot, pass, view, p, kTerrainShadings - 1, 0, full, full, quarter);
}

void recordTerrainComposite(VkCommandBuffer cmd, const TerrainDraw& t, const Buffer& frameUbo,
                            const TerrainTextures& tex, uint32_t slot, bool farField, bool overlay) {
  if (!t.compositeDesc.fragmentShader) return;
  auto bind = [&](const Pipeline& p) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.pipeline);
    DescriptorWrites d;
    d.buffer(0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, frameUbo);
    d.buffer(1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t.heights);
    constexpr VkDescriptorType kSampled = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    constexpr VkImageLayout kRead = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    d.image(2, kSampled, tex.farSampler, tex.farField, kRead);
    d.image(6, kSampled, t.layerSampler, tex.river ? tex.river : t.noLayer.view, kRead);
    d.image(7, kSampled, t.layerSampler, tex.overlay ? tex.overlay : t.noLayer.view, kRead);
    d.image(8, kSampled, tex.farSampler, tex.farLook, kRead);
    d.image(9, kSampled, t.pointSampler, tex.depthSamples, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL);
    d.image(11, kSampled, t.pointSampler, tex.stencilSamples, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL);
    d.buffer(10, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t.compositeRects[slot]);
    d.push(cmd, p);
    gpu::TerrainPush push{};
    push.lod = {t.level0Range, kMorphStart, kMorphEnd, float(t.levels.size() - 1)};
    vkCmdPushConstants(cmd, p.layout, kVF, 0, sizeof(push), &push);
  };
  for (uint32_t c = 0; c < kCompositeKeys && farField; ++c) {  // the keys whose nodes reach the screen
    const auto [first, count] = t.compositeRanges[slot][c];
    if (count == 0) continue;
    bind(t.composites[c].pipeline ? t.composites[c] : t.composites.back());
    vkCmdSetStencilReference(cmd, VK_STENCIL_FACE_FRONT_AND_BACK, kStencilTerrain | c);
    vkCmdDraw(cmd, 6, count, 0, first);
  }
  if (overlay) {  // rectangle 0: the whole screen
    bind(t.overlayPipeline);
    vkCmdSetStencilReference(cmd, VK_STENCIL_FACE_FRONT_AND_BACK, kStencilTerrain);
    vkCmdDraw(cmd, 6, 1, 0, 0);
  }
}


float lowestGround(const TerrainDraw& t, const gpu::vec4* planes, uint32_t planeCount, float above) {
  float best = INFINITY;
  auto visit = [&](auto&& self, uint32_t level, uint32_t ix, uint32_t iz) -> void {
    const TerrainLevel& l = t.levels[level];
    const float low = l.minY[size_t(iz) * l.nodesX + ix];
    if (!(low < best) || !boxMeets(nodeBox(t, level, ix, iz, above), planes, planeCount)) return;
    if (level == 0) {
      best = low;
      return;
    }
    const TerrainLevel& child = t.levels[level - 1];
    for (uint32_t cz = iz * 2; cz < std::min(iz * 2 + 2, child.nodesZ); ++cz)
      for (uint32_t cx = ix * 2; cx < std::min(ix * 2 + 2, child.nodesX); ++cx) self(self, level - 1, cx, cz);
  };
  const uint32_t top = uint32_t(t.levels.size() - 1);
  for (uint32_t iz = 0; iz < t.levels[top].nodesZ; ++iz)
    for (uint32_t ix = 0; ix < t.levels[top].nodesX; ++ix) visit(visit, top, ix, iz);
  return best;
}

void enableTerrainCapture(Context& ctx, TerrainDraw& t, uint32_t maxNodes) {
  if (!ctx.vertexStores) throw std::runtime_error("terrain capture needs vertexPipelineStoresAndAtomics");
  if (t.capturePipeline.pipeline) return;
  t.captureNodes = maxNodes;
  for (Buffer& b : t.capture)
    b = createBuffer(ctx, VkDeviceSize(maxNodes) * gpu::TERRAIN_PATCH_VERTICES * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                     MemoryUse::Readback);
  GraphicsDesc desc{"terrain_capture.vert", "terrain.frag", {}, {}, t.colorFormat, t.depthFormat, VK_CULL_MODE_NONE};
  desc.depthCompare = VK_COMPARE_OP_GREATER_OR_EQUAL;
  desc.samples = t.samples;
  desc.stencil = GraphicsDesc::Stencil::Write;  // the whole shader's key, for the composite
  t.capturePipeline = createGraphicsPipeline(ctx, desc, terrainBindings(true), sizeof(gpu::TerrainPush));
}

std::vector<TerrainTriangle> capturedTerrainTriangles(const TerrainDraw& t, uint32_t slot) {
  uint32_t full = t.fullNodes[slot][0], count = full + t.quarterNodes[slot][0];
  if (!t.capturePipeline.pipeline) throw std::runtime_error("terrain capture is off");
  if (count > t.captureNodes)
    throw std::runtime_error("terrain capture holds " + std::to_string(t.captureNodes) + " nodes, the frame drew " +
                             std::to_string(count));
  const auto* nodes = static_cast<const gpu::TerrainNode*>(t.nodes[slot].data);
  const auto* indices = static_cast<const uint16_t*>(t.indices.data);
  const auto* positions = static_cast<const gpu::vec4*>(t.capture[slot].data);
  std::vector<TerrainTriangle> out;
  for (uint32_t i = 0; i < count; ++i) {
    // the index range the draw used for this instance
    bool isFull = i < full;
    if (nodes[i].cell.w != (isFull ? gpu::TERRAIN_PATCH : gpu::TERRAIN_PATCH / 2))
      throw std::logic_error("terrain node list out of order");
    uint32_t first = isFull ? 0 : t.fullIndexCount, n = isFull ? t.fullIndexCount : t.quarterIndexCount;
    const gpu::vec4* base = positions + size_t(i) * gpu::TERRAIN_PATCH_VERTICES;
    for (uint32_t k = first; k < first + n; k += 3) {
      TerrainTriangle tri;
      for (uint32_t c = 0; c < 3; ++c) {
        const gpu::vec4& p = base[indices[k + c]];
        tri.v[c] = {p.x, p.y, p.z};
      }
      out.push_back(tri);
    }
  }
  return out;
}

}  // namespace eco::render
