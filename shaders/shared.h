// Structures and constants shared by the C++ renderer (src/render) and the GLSL shaders.
// Every struct is made of 16-byte vectors so std140/std430 and C++ agree on the layout.
#ifdef __cplusplus
#pragma once
#include <cstdint>
namespace eco::gpu {
using uint = uint32_t;
struct vec4 { float x, y, z, w; };
struct uvec4 { uint x, y, z, w; };
#define ECO_CONST static constexpr uint
#else
#define ECO_CONST const uint
#endif

// Instances live in fixed-size pages of one tile each; a visible index is
// (page << PAGE_SHIFT) | slot. 1024 per page keeps the unused tail of each tile's last page
// small (about 3 % of a 15k-instance tile) while 65535 pages still address 67 M instances.
ECO_CONST PAGE_SHIFT = 10;
ECO_CONST PAGE_SIZE = 1u << PAGE_SHIFT;
ECO_CONST CULL_GROUP = 64;
// The culling dispatch has PAGE_SIZE / CULL_GROUP groups in x and one page per (y, z) group:
// y below PAGE_ROWS (within every device's 65535 limit), z for more pages.
ECO_CONST PAGE_ROWS = 32768;
// Visible references keep the page in 32 - PAGE_SHIFT bits.
ECO_CONST MAX_PAGES = 1u << (32 - PAGE_SHIFT);
ECO_CONST KIND_COUNT = 4;  // tree, shrub, grass, ground cover (tile.fbs SpeciesKind)
ECO_CONST LOD_COUNT = 2;
ECO_CONST DRAW_COUNT = KIND_COUNT * LOD_COUNT;  // draw command index = kind * LOD_COUNT + lod
// Linear RGB of the untinted (bark) vertices of the proxy meshes (meshes/meshes.h); the USD
// and glTF exporters give their bark the same colour. Use as vec3(BARK_COLOR) / {BARK_COLOR}.
#define BARK_COLOR 0.30f, 0.22f, 0.15f

// FrameData.cull.y flags
ECO_CONST CULL_FRUSTUM = 1;
ECO_CONST CULL_OCCLUSION = 2;
ECO_CONST CULL_DISTANCE = 4;  // LOD selection by distance
ECO_CONST CULL_FADE = 8;      // per-kind draw distance: fade out between FrameData.fadeStart and fadeEnd

// FrameData.frustum order. With reversed Z and an infinite far plane, FAR has a zero normal
// and is stored as (0, 0, 0, 1): it never rejects anything.
ECO_CONST FRUSTUM_LEFT = 0;
ECO_CONST FRUSTUM_RIGHT = 1;
ECO_CONST FRUSTUM_BOTTOM = 2;
ECO_CONST FRUSTUM_TOP = 3;
ECO_CONST FRUSTUM_NEAR = 4;
ECO_CONST FRUSTUM_FAR = 5;
ECO_CONST FRUSTUM_PLANES = 6;

// Stats counters written by the culling shader.
ECO_CONST STAT_TESTED = 0;
ECO_CONST STAT_FRUSTUM = 1;   // passed frustum (and draw distance)
ECO_CONST STAT_VISIBLE = 2;   // passed occlusion too: the instances drawn
ECO_CONST STAT_COUNT = 4;

// 16 bytes per resident instance: the tile's own record (schemas/tile.fbs PackedInstance,
// tileio PackedRecord) with the species id in place of the colour's alpha (the viewer draws
// opaque). Decoded in the shaders (common.glsl decodeInstance) with the page's GpuTile box and
// the GpuSpecies table:
//   x = x_q | z_q << 16      (unorm16 over the tile box)
//   y = y_q | yaw_q << 16    (yaw: q / 65536 turns)
//   z = scale_q | up << 16   (scale: unorm16 over the species' range; up: octahedral snorm8x2)
//   w = RGB8 | species << 24
struct PackedInstance {
  uint x, y, z, w;
};

// Quantization box of a resident tile (tileio TileData boundsMin/boundsMax); w unused.
struct GpuTile {
  vec4 boundsMin;
  vec4 boundsMax;
};

// The unit mesh (radius 1, y in [0, 1]) of the species' kind is scaled by
// scale * (crownRadius, meshHeight, crownRadius), rotated by tilt(up) * rotY(yaw).
struct GpuSpecies {
  vec4 shape;   // meshHeight, crownRadius, scaleMin, scaleMax
  uvec4 info;   // x = kind (0 tree, 1 shrub, 2 grass, 3 ground cover)
};

// Page table entry: header = device address of the page (lo, hi), instance count, tile
// index; the page's records are quantized over its tile's box.
struct GpuPage {
  uvec4 header;
  GpuTile box;
};

// Per-frame constants (uniform buffer).
struct FrameData {
  vec4 clip[4];      // rows of the view-projection: clip = (dot(clip[i], vec4(p, 1)))
  // The frustum planes of clip[] (world space, unit normals pointing inside): a sphere (c, r)
  // is outside when dot(plane.xyz, c) + plane.w < -r for any plane. FRUSTUM_* order.
  vec4 frustum[FRUSTUM_PLANES];
  vec4 eye;          // xyz camera position, w = near plane distance
  vec4 right;        // camera basis (world), w unused
  vec4 up;
  vec4 forward;
  vec4 proj;         // fx, fy (ndc = x * fx / depth), viewport width, height
  vec4 sun;          // xyz direction toward the sun, w ambient
  vec4 fog;          // rgb sky colour, w = fog density per metre
  vec4 terrain;      // cell size, heightmap width, height (samples), unused
  vec4 lod;          // lod distance factor, unused, pyramid width, height
  uvec4 cull;        // page count, flags, pyramid levels, unused
  uvec4 regions[KIND_COUNT];  // x = first visible slot of the kind, y = one past its last
  // Near field / far field hand-over, per kind (x tree, y shrub, z grass, w ground cover), in
  // metres from the eye: instances fade out between fadeStart and fadeEnd and are not drawn
  // beyond; the far-field layer of that kind fades in over the same interval.
  vec4 fadeStart;
  vec4 fadeEnd;
  vec4 farField;     // x, y: world x, z to far-field texture coordinates (1 / extent); z: 1 when on
};

// Far-field layers (render/far_field.h): one RGBA8 layer per kind, rgb = mean colour of the
// kind's instances over the texel, a = fraction of the texel covered by their crowns.
ECO_CONST FAR_LAYERS = KIND_COUNT;

// VkDrawIndexedIndirectCommand plus padding to 32 bytes.
struct DrawCommand {
  uint indexCount;
  uint instanceCount;
  uint firstIndex;
  uint vertexOffset;  // int in Vulkan; meshes use offsets >= 0
  uint firstInstance;
  uint pad0, pad1, pad2;
};

// Terrain LOD (render/terrain_draw.h): a quadtree over the heightmap's cells whose level-L
// nodes span TERRAIN_PATCH * 2^L cells; each selected node is one instance of a patch of
// TERRAIN_PATCH x TERRAIN_PATCH quads (or TERRAIN_PATCH / 2 for a quarter of a node drawn at
// its parent's level), every quad split into 4 triangles around a centre vertex.
ECO_CONST TERRAIN_PATCH = 16;
ECO_CONST TERRAIN_PATCH_VERTICES = (TERRAIN_PATCH + 1) * (TERRAIN_PATCH + 1) + TERRAIN_PATCH * TERRAIN_PATCH;

// One drawn node: x, y = its first cell (column, row), z = level, w = quads per side.
struct TerrainNode {
  uvec4 cell;
};

// Push constants of the terrain pipelines.
struct TerrainPush {
  // x: level-0 range in metres (level L's is x * 2^L, as horizontal distance from the eye);
  // level L morphs toward level L + 1 from y * its range to z * its range; w: the top level
  // (the root), which never morphs.
  vec4 lod;
  // capture pipeline only: x = capacity of the capture buffer in vertices
  uvec4 capture;
};

#ifdef __cplusplus
static_assert(sizeof(PackedInstance) == 16);
static_assert(sizeof(GpuTile) == 32 && sizeof(GpuSpecies) == 32 && sizeof(GpuPage) == 48);
static_assert(sizeof(DrawCommand) == 32);
static_assert(sizeof(TerrainNode) == 16 && sizeof(TerrainPush) == 32);
}  // namespace eco::gpu
#endif
