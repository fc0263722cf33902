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
// (page << PAGE_SHIFT) | slot. 128 per page: a bake's tiles hold a few hundred instances (the
// sample's median is 411), and the unused tail of each tile's last page (64 records on
// average) cost 15 B per instance with 1024-record pages, 1.5 B with these; a page-table
// entry is 16 bytes, 0.125 B per instance.
ECO_CONST PAGE_SHIFT = 7;
ECO_CONST PAGE_SIZE = 1u << PAGE_SHIFT;
ECO_CONST CULL_GROUP = 64;
// The culling dispatch has PAGE_SIZE / CULL_GROUP groups in x and one page per (y, z) group:
// y below PAGE_ROWS (within every device's 65535 limit), z for more pages.
ECO_CONST PAGE_ROWS = 32768;
// Visible references keep the page in 32 - PAGE_SHIFT bits.
ECO_CONST MAX_PAGES = 1u << (32 - PAGE_SHIFT);
ECO_CONST KIND_COUNT = 4;  // tree, shrub, grass, ground cover (tile.fbs SpeciesKind)
ECO_CONST LOD_COUNT = 2;
// FrameData.palette: the ground's colours (core/types.h GroundPalette, from the manifest)
ECO_CONST GROUND_SOIL = 0;
ECO_CONST GROUND_GRASS = 1;
ECO_CONST GROUND_ROCK = 2;
ECO_CONST GROUND_SAND = 3;
ECO_CONST GROUND_SNOW = 4;
ECO_CONST GROUND_COLORS = 5;
// Views the culling shader fills draw commands for: the camera, then the sun's shadow cascades.
// Draw command index = (view * species count + species) * LOD_COUNT + lod (FrameData.draws.x
// is the species count).
ECO_CONST CASCADE_COUNT = 3;
ECO_CONST VIEW_COUNT = 1 + CASCADE_COUNT;
ECO_CONST MAX_SPECIES = 256;  // the GPU record keeps the species id in 8 bits
// Linear RGB of the untinted (bark) vertices of the proxy meshes (meshes/meshes.h); the USD
// and glTF exporters give their bark the same colour. Use as vec3(BARK_COLOR) / {BARK_COLOR}.
#define BARK_COLOR 0.30f, 0.22f, 0.15f

// FrameData.cull.y flags
ECO_CONST CULL_FRUSTUM = 1;
ECO_CONST CULL_OCCLUSION = 2;
ECO_CONST CULL_DISTANCE = 4;  // LOD selection by distance
ECO_CONST CULL_FADE = 8;      // per-kind draw distance: fade out between FrameData.fadeStart and fadeEnd
ECO_CONST CULL_SHADOWS = 16;  // also fill the cascades' draw commands (shadow casters)
// draw the far trees' pages (GpuPage PAGE_FAR_TREES) where their tiles' own copies fade out;
// set with the far field (a frame without it draws neither)
ECO_CONST CULL_FAR_TREES = 32;
// skip a far trees' page whole where none of its trees can be drawn (Renderer::listPages: within
// the fade or outside the frustum; far_pages.comp: no sky behind its box); off, each tree is tested
ECO_CONST CULL_FAR_PAGES = 64;
// A far tree past its fade end whose bounding sphere is under this many pixels in radius is
// drawn as its species' far card (meshes.h SpeciesMesh::card, shaders/far_card.vert): one
// point each, all cards in one non-instanced draw (lavapipe spends about a microsecond per
// primitive and per instance: a mesh or a triangle card cost several times a point; docs/
// viewer-far-field.md "Far trees"). Its record
// follows the views' LODs (DrawCommand index VIEW_COUNT * species * LOD_COUNT), read as
// VkDrawIndirectCommand: indexCount = vertexCount (cull.comp counts the cards), instanceCount
// 1, firstIndex = firstVertex 0, vertexOffset = firstInstance = the cards' region in the
// visible list; its firstInstance field holds the region's size.
ECO_CONST FAR_CARD_PX = 4;

// GpuSpecies.info.y flags
ECO_CONST SPECIES_CASTS = 1;  // drawn into the shadow maps (trees and shrubs)

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

// The species' unit mesh (meshes/meshes.h) is scaled by scale * (crownRadius, meshHeight,
// crownRadius), rotated by tilt(up) * rotY(yaw).
struct GpuSpecies {
  vec4 shape;   // meshHeight, crownRadius, scaleMin, scaleMax
  vec4 sphere;  // bounding sphere of its LOD 0 mesh: unit-space centre, radius in metres at scale 1
  uvec4 info;   // x = kind (0 tree, 1 shrub, 2 grass, 3 ground cover), y = SPECIES_* flags
  vec4 card;    // the far card's extent (meshes.h SpeciesMesh::card)
};

// Page table entry: header = device address of the page (lo, hi), instance count, tile
// index; the page's records are quantized over its tile's box (the tile table, by index).
// PAGE_FAR_TREES in the index: the page holds far trees (render/far_field.h), the copies of a
// tile's trees in sparse stands that stay drawn past the load radius, and the index below the
// flag is their own box's (after the world's tiles).
struct GpuPage {
  uvec4 header;
};
ECO_CONST PAGE_FAR_TREES = 0x80000000u;

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
  vec4 sun;          // xyz direction toward the sun, w = sun intensity
  vec4 fog;          // rgb haze colour toward the horizon, w = fog density per metre (0: off)
  vec4 skyZenith;    // rgb sky colour overhead, w = exposure
  vec4 ground;       // rgb light bounced from the ground (hemisphere ambient below), w = ambient intensity
  vec4 elevation;    // terrain min, max height, snow line (metres; 1e30: none), unused
  vec4 terrain;      // cell size, heightmap width, height (samples), colour samples per pixel
  vec4 lod;          // lod distance factor, how far a tree's sphere reaches from its origin
                     // (metres, and a metre more; far trees' pages in cull.comp), pyramid width, height
  uvec4 cull;        // pages listed for culling (Renderer::listPages; far_pages.comp adds more), flags, pyramid levels, the visible list's slots
  uvec4 draws;       // x = species count (draw commands per view: x * LOD_COUNT), y = views culled
  uvec4 hidden[2];   // 256 bits by species id: hidden species are culled in every view
  // Near field / far field hand-over, per kind (x tree, y shrub, z grass, w ground cover), in
  // metres from the eye: instances fade out between fadeStart and fadeEnd and are not drawn
  // beyond; the far-field layer of that kind fades in over the same interval.
  vec4 fadeStart;
  vec4 fadeEnd;
  vec4 farField;     // x, y: world x, z to far-field texture coordinates (1 / extent); z: 1 when on;
                     // w: 1 when any far-field data is uploaded (the ground reads the plants from it)
  // Shadow cascades (render/shadows.h): rows of each cascade's light view-projection (depth 0
  // toward the sun, 1 away), its culling planes (FRUSTUM_* order; NEAR, toward the sun, never
  // rejects: casters there still shade the cascade), the view depth where each cascade ends.
  vec4 shadowClip[CASCADE_COUNT * 4];
  vec4 shadowPlanes[CASCADE_COUNT * FRUSTUM_PLANES];
  // What each cascade shades (FRUSTUM_* order; render/shadows.cpp): per plane of the camera's
  // view between the cascade's split depths, the test of a caster's shadow from its sphere down
  // to the lowest ground, widened by the lookup's reach. A caster outside any of them throws no
  // shadow that the cascade is read for.
  vec4 shadowReceivers[CASCADE_COUNT * FRUSTUM_PLANES];
  vec4 shadowSplits; // xyz: end of cascade 0, 1, 2 (metres along the view direction), w: 1 when on
  vec4 shadowTexel;  // x: world metres per shadow texel of each cascade (xyz), w: map size in texels
  // Rivers (render/layers.h): x 1 when drawn; the distance to the river in metres is
  // w + texel * y; water where it is at most z
  vec4 water;
  vec4 overlay;      // x 1 when a mask layer is shown, y opacity, zw unused
  uvec4 look;        // x: LOOK_* flags
  vec4 palette[GROUND_COLORS];  // rgb: the ground's colours by GROUND_*, w unused
  // Per kind: the height the far field raises the ground to under a closed stand of it (the
  // crowns' top, instance-weighted; render/far_field.h), 0 where it raises nothing
  vec4 canopy;
  vec4 crownSize;  // per kind: the instance-weighted mean crown radius (metres; the far field's crowns)
};

// FrameData.look.x flags
ECO_CONST LOOK_FLAT_SKY = 1;  // the sky is the haze colour everywhere (no gradient, no sun): plain backgrounds

// Far-field layers (render/far_field.h): one RGBA8 layer per kind, rgb = mean colour of the
// kind's instances over the texel, a = the share of their crown area that is of the kind's
// second crown form (trees: conifers, FAR_LOOK_CONIFER; the other kinds have one form, 0).
ECO_CONST FAR_LAYERS = KIND_COUNT;
// After the kinds' layers, one holding every kind's crown area over the texel's (rgba: kinds
// 0-3), each over its kind's FAR_COVER_MAX (crowns overlap: a dense stand holds more than its
// area; grass and ground cover hold a few percent, kept at finer steps): one read gives every
// kind's cover (lavapipe pays every texture read on every pixel of the ground). Use as
// vec4(FAR_COVER_MAX) / {FAR_COVER_MAX}.
ECO_CONST FAR_COVER_LAYER = FAR_LAYERS;
ECO_CONST FAR_IMAGE_LAYERS = FAR_LAYERS + 1;
#define FAR_COVER_MAX 2.0f, 2.0f, 0.5f, 0.5f
// The far look table (render/far_look.h): FAR_LOOKS looks, each FAR_LOOK_LAYERS RGBA16F layers
// over (azimuth from the sun's, 0-180 degrees) x (elevation of the eye above the horizon, 0-90
// degrees), texel centres. Look k < KIND_COUNT is kind k's (for trees, the broadleaves'),
// FAR_LOOK_CONIFER the conifer trees'. Layer 3k: projected area / pi r^2, foliage share, bark
// mean max(n.sun, 0), bark mean n.y; 3k + 1: share of the foliage facing the sun, its mean
// n.sun, its mean n.y, the spread of its n.sun; 3k + 2: the other foliage's mean -n.sun, its
// mean n.y.
ECO_CONST FAR_LOOK_CONIFER = KIND_COUNT;
ECO_CONST FAR_LOOKS = KIND_COUNT + 1;
ECO_CONST FAR_LOOK_LAYERS = 3;
ECO_CONST FAR_LOOK_AZIMUTHS = 8;
ECO_CONST FAR_LOOK_ELEVATIONS = 8;

// Auto-exposure (render/exposure.h): meter.comp sorts the finished picture's pixels into
// METER_BINS bins of log2 scene luminance (the tone curve undone, the frame's exposure divided
// out) from METER_LOG_MIN to METER_LOG_MAX.
ECO_CONST METER_BINS = 64;
#define METER_LOG_MIN (-12.0f)
#define METER_LOG_MAX 4.0f

// VkDrawIndexedIndirectCommand plus the draw's region of the visible list, padded to 32
// bytes. LOD 0 of a (view, species) fills its region upward from firstInstance, LOD 1 downward
// from regionEnd (cull.comp); cull_finish.comp then sets LOD 1's firstInstance.
struct DrawCommand {
  uint indexCount;
  uint instanceCount;
  uint firstIndex;
  uint vertexOffset;  // int in Vulkan; meshes use offsets >= 0
  uint firstInstance;
  uint regionEnd;     // LOD 1: one past the region's last slot
  uint pad0, pad1;
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
  // x: capture pipeline only, capacity of the capture buffer in vertices; y: view (0 camera,
  // 1 + c cascade c)
  uvec4 capture;
};

#ifdef __cplusplus
static_assert(sizeof(PackedInstance) == 16);
static_assert(sizeof(GpuTile) == 32 && sizeof(GpuSpecies) == 64 && sizeof(GpuPage) == 16);
static_assert(sizeof(DrawCommand) == 32);
static_assert(sizeof(TerrainNode) == 16 && sizeof(TerrainPush) == 32);
}  // namespace eco::gpu
#endif
