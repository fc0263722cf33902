#pragma once
// Terrain drawing: a CDLOD-style quadtree over the heightmap (design: docs/viewer-terrain.md).
// Level 0 draws one vertex per heightmap sample; each level up halves the resolution and
// doubles the distance it covers. The CPU selects nodes per frame (prepareTerrainFrame); one
// instanced draw of a patch per node size (recordTerrainDraw) fetches heights from a storage
// buffer in the vertex shader and morphs each level into the next near its range's end, so
// neighbouring levels meet without cracks. The far-field layers are sampled by the fragment
// shader. The renderer calls prepareTerrainFrame once per frame (CPU side, frame slot `slot`
// of kFramesInFlight) and recordTerrainDraw inside the terrain rendering pass.
#include <array>
#include <vector>

#include "core/types.h"
#include "render/vk_context.h"
#include "shaders/shared.h"

namespace eco::render {

// Per quadtree level: its nodes' height bounds, for frustum culling.
struct TerrainLevel {
  uint32_t nodesX = 0, nodesZ = 0;
  std::vector<float> minY, maxY;  // row-major, nodesX x nodesZ
  // the least distance to the river (metres) at the node's samples; empty: not known (setTerrainRiver)
  std::vector<float> minRiver;
};

// Which parts of terrain.frag a node's pixels can need, by where the node lies from the eye: the
// colour pass draws each combination with the shader specialised to it (its constants
// FAR_KINDS, CROWN_KINDS, SUN_SHADOWS, WATER). Lavapipe runs every branch of a shader for every pixel,
// so code a node cannot need costs as much as code it runs. A key is an OR of:
enum TerrainShadingBits : uint32_t {
  kShadeFarKinds = 0xF,     // bit k: kind k's far field fades in over some of the node
  kShadeCrownKinds = 0x30,  // bit 4 + k: kind k's crowns (trees, shrubs) are over a pixel wide there
  kShadeShadows = 0x40,     // within the shadow cascades' view depth
  kShadeWater = 0x80,       // the river's water: some of the node lies within its water distance
};
constexpr uint32_t kShadeCrownShift = 4;
constexpr uint32_t kTerrainShadings = 256;  // keys; the whole shader is kTerrainShadings - 1

// The far field's plants are drawn over the finished terrain once per pixel (far_composite.frag),
// not by terrain.frag once per triangle a multisampled pixel meets. The colour pass leaves in the
// stencil of each terrain sample kStencilTerrain | its node's composite key (the shading key
// without the water, which the composite reads anyway); drawn plants in front of it leave 0.
// One full-screen draw per composite key in the frame then shades just that key's samples.
constexpr uint32_t kStencilTerrain = 0x80;
constexpr uint32_t kCompositeKeys = 0x80;
constexpr uint32_t compositeKey(uint32_t key) { return key & (kCompositeKeys - 1); }
constexpr uint32_t terrainStencil(uint32_t key) { return kStencilTerrain | compositeKey(key); }
// whether a key's pixels have far-field plants to draw
constexpr bool compositeDrawn(uint32_t key) { return (key & kShadeFarKinds) != 0; }

struct TerrainDraw {
  const Grid* heightsCpu = nullptr;
  float cellSize = 1;
  float level0Range = 0;  // metres (horizontal) within which level 0 is drawn; doubles per level
  std::vector<TerrainLevel> levels;  // [0] finest; back() is the root
  Buffer heights;   // float per sample, row-major
  Buffer indices;   // uint16: the full patch, then the half-size patch
  uint32_t fullIndexCount = 0, quarterIndexCount = 0;
  uint32_t nodeCapacity = 0;  // per slot and view: no selection can exceed it
  // Per frame slot, written by prepareTerrainFrame (camera) and prepareTerrainShadows (the
  // cascades): view v's nodes start at v * nodeCapacity, full nodes first, then quarter nodes.
  std::array<Buffer, kFramesInFlight> nodes;
  std::array<std::array<uint32_t, gpu::VIEW_COUNT>, kFramesInFlight> fullNodes{}, quarterNodes{};
  std::array<uint64_t, kFramesInFlight> triangles{};  // camera view
  // The camera's full and quarter nodes of each slot by shading (TerrainShadingBits), in that
  // order within each (prepareTerrainShading; prepareTerrainFrame counts them all as needing
  // every part)
  std::array<std::array<uint32_t, kTerrainShadings>, kFramesInFlight> fullByShading{}, quarterByShading{};
  VkFormat colorFormat = VK_FORMAT_UNDEFINED, depthFormat = VK_FORMAT_UNDEFINED;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;  // of the camera's targets
  // colour: shading, after the depth pre-pass (depth test >=), by TerrainShadingBits key, each
  // made the first time a frame needs it (a frame uses a handful of the keys)
  std::array<Pipeline, kTerrainShadings> pipelines;
  GraphicsDesc colorDesc;  // what they are made from
  bool shadingStarted = false;  // the first frame's have been made
  // The far field over the terrain by composite key, made like `pipelines` (back(): the whole
  // shader), and the mask overlay over all terrain; none where depthFormat has no stencil.
  std::array<Pipeline, kCompositeKeys> composites;
  GraphicsDesc compositeDesc{};
  Pipeline overlayPipeline;
  // Per frame slot (prepareTerrainShading): the screen rectangles (pixels x0, y0, x1, y1) each
  // composite key's nodes may cover, as (first, count) into the slot's buffer; [0] is the
  // whole screen.
  std::array<Buffer, kFramesInFlight> compositeRects;
  std::array<std::array<std::pair<uint32_t, uint32_t>, kCompositeKeys>, kFramesInFlight> compositeRanges{};
  Pipeline depthPipeline;  // the camera's depth pre-pass (the Hi-Z pyramid's source)
  Pipeline shadowPipeline; // shadow cascades (D32, depth test <, depth bias)
  // Bound where the caller has no texture of its own: a lit 1x1 shadow map array and a 1x1
  // layer texture (no river, no overlay).
  GpuImage noShadow, noLayer;
  VkSampler shadowSampler = VK_NULL_HANDLE, layerSampler = VK_NULL_HANDLE;
  VkSampler pointSampler = VK_NULL_HANDLE;  // nearest: texel fetches of depth and stencil
  // Debug capture (enableTerrainCapture): the same draw through terrain_capture.vert.
  Pipeline capturePipeline;
  std::array<Buffer, kFramesInFlight> capture;
  uint32_t captureNodes = 0;
};

// Throws InputError when the heightmap exceeds the device's storage buffer range.
TerrainDraw createTerrainDraw(Context& ctx, const Grid& heights, float cellSize, VkFormat colorFormat,
                              VkFormat depthFormat, VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT);
void destroyTerrainDraw(Context& ctx, TerrainDraw& terrain);

// The lowest terrain height of the ground inside a convex region (planes: unit normals
// pointing inside, dot(n, p) + d >= 0), from the quadtree's node bounds: the least minY of the
// finest nodes whose box, raised by `above` (plants, the canopy lift), meets every plane;
// +infinity where none does. Walks down from the root, skipping boxes outside or no lower than
// the best so far.
float lowestGround(const TerrainDraw& t, const gpu::vec4* planes, uint32_t planeCount, float above);

// Selects this frame's nodes around frame.eye, culled by frame.frustum, into frame slot `slot`
// and fills frame.terrain. The GPU must be done with the slot's previous frame.
void prepareTerrainFrame(TerrainDraw& terrain, gpu::FrameData& frame, uint32_t slot);
// The parts of the shading (a TerrainShadingBits key) ground needs whose points all lie between
// nearest and farthest metres from the eye, at least nearestDepth along the view direction and
// at least nearestRiver from the river (-infinity: not known), under frame's far field
// (farField.z), fade distances, crown sizes, projection, shadow splits and water.
uint32_t terrainShading(float nearest, float farthest, float nearestDepth, float nearestRiver,
                        const gpu::FrameData& frame);
// The river's distance at every heightmap sample (metres, row-major, the heights' size), for
// the nodes' least distance (TerrainLevel::minRiver); without it every node may hold water.
void setTerrainRiver(TerrainDraw& terrain, const std::vector<float>& distance);
// Orders the camera's nodes of slot `slot` by the shading each needs (their boxes' distances from
// the eye, raised by the canopy lift). Call after prepareTerrainFrame once frame's far field and
// fade distances are set; without it every node is drawn with the whole shader and the far
// field's composite is not drawn (`classes` false: every node takes the whole shader, and the
// composite is drawn with its whole shader over all the nodes' rectangles).
// Makes pipelines for the keys it uses that have none yet: all of them on the first call, two per
// call after that (the keys with most nodes first); until then those nodes are drawn with the
// whole shader.
void prepareTerrainShading(Context& ctx, TerrainDraw& terrain, const gpu::FrameData& frame, uint32_t slot,
                           bool classes = true);
// The same selection (levels by distance from the eye) culled by each cascade's planes
// (frame.shadowPlanes), for the shadow pass. Call after setShadowCascades.
void prepareTerrainShadows(TerrainDraw& terrain, const gpu::FrameData& frame, uint32_t slot);

enum class TerrainPass { Color, Depth, Shadow };

// What the colour pass samples; null views fall back to TerrainDraw's defaults.
struct TerrainTextures {
  VkImageView farField = VK_NULL_HANDLE;  // 2D array of FAR_IMAGE_LAYERS layers (render/far_field.h)
  VkSampler farSampler = VK_NULL_HANDLE;
  VkImageView farLook = VK_NULL_HANDLE;   // RGBA16F 2D array (render/far_look.h), farSampler
  VkImageView shadowMap = VK_NULL_HANDLE;  // D32 2D array of CASCADE_COUNT layers, compare sampler
  VkImageView river = VK_NULL_HANDLE;      // render/layers.h: the river distance layer
  VkImageView overlay = VK_NULL_HANDLE;    // the selected mask layer
  // the composite's: the colour pass's depth and stencil aspects, DEPTH_STENCIL_READ_ONLY_OPTIMAL
  VkImageView depthSamples = VK_NULL_HANDLE, stencilSamples = VK_NULL_HANDLE;
};

// Inside a rendering pass with viewport and scissor set. frameUbo: this slot's FrameData.
// view: 0 the camera (Color, Depth), 1 + c cascade c (Shadow).
void recordTerrainDraw(VkCommandBuffer cmd, const TerrainDraw& terrain, const Buffer& frameUbo,
                       const TerrainTextures& textures, uint32_t slot, TerrainPass pass = TerrainPass::Color,
                       uint32_t view = 0);

// After the colour pass, in a pass over the same colour and depth-stencil targets (the stencil
// as the colour pass left it; the depth-stencil read-only, also sampled through
// textures.depthSamples and stencilSamples): the far field's plants over every composite key's
// pixels when `farField`, then the mask overlay over all terrain when `overlay`. Nothing
// without a stencil.
void recordTerrainComposite(VkCommandBuffer cmd, const TerrainDraw& terrain, const Buffer& frameUbo,
                            const TerrainTextures& textures, uint32_t slot, bool farField, bool overlay);

// Debug (tests): from now on draw with a vertex shader that also stores every vertex's world
// position, for frames of at most maxNodes nodes. Needs Context::vertexStores.
void enableTerrainCapture(Context& ctx, TerrainDraw& terrain, uint32_t maxNodes);
// The triangles slot's last frame drew, as the vertex shader placed them. Call once the GPU
// has finished that frame. Throws std::runtime_error when the frame had more than maxNodes nodes.
struct TerrainTriangle {
  Vec3 v[3];
};
std::vector<TerrainTriangle> capturedTerrainTriangles(const TerrainDraw& terrain, uint32_t slot);

}  // namespace eco::render
