#pragma once
// Far look: what the plants of each kind show from each direction, for the far field's
// shading (shaders/terrain.frag). Beyond the instance radius the far field knows, per texel,
// how much crown area stands there and its mean tint; how much of the ground those plants hide
// seen from a given angle, and how bright they look under the bake's sun, depends on their
// meshes. This table is an octahedral impostor reduced to its statistics: each species' coarsest
// LOD is rasterized on the CPU at load, orthographically, from FAR_LOOK_ELEVATIONS x
// FAR_LOOK_AZIMUTHS directions (azimuth measured from the sun's, the mesh averaged over
// kFarLookYaws turns about its axis, as instances are turned at random), and each direction
// keeps the mesh's projected area and the means of the light terms vegetation.frag evaluates
// (common.glsl plantLight is linear in them, so their means give each part's mean light).
// Species of a look (a kind; trees apart by crown form: broadleaf and conifer, whose side views
// differ most, FAR_LOOK_CONIFER) are mixed by their crown area in the world (the manifest's
// counts); the far field's texels say how much of their trees' crown area is conifer.
#include <cstdint>
#include <vector>

#include "meshes/meshes.h"
#include "tileio/tileio.h"
#include "shaders/shared.h"
#include "shaders/transform.h"

namespace eco::render {

constexpr uint32_t kFarLookYaws = 8;
// The light terms are those of a plant among six neighbours this many crown radii away (a
// closed stand's spacing), the area its own (speciesFarLook): fitted against the frame drawn
// with every instance, 1.6-3 tried (docs/viewer-far-field.md).
constexpr float kFarLookStandSpacing = 1.9f;
constexpr uint32_t kFarLookPixels = 64;  // raster side per direction

// One direction's statistics for one species or kind (three RGBA texels per kind, shared.h
// FAR_LOOK_*). Foliage is split by the side of the sun it faces: the far field tone-maps the
// parts apart, as the pixels of the instances it stands for are (a mean of light tone-mapped
// once reads some 13 levels brighter than the same crowns drawn).
struct FarLookEntry {
  float area = 0;       // projected area over the crown disc's pi r^2 (both at scale 1)
  float foliage = 0;    // share of the projected area that is foliage (tinted), the rest bark
  float lit = 0;        // share of the foliage facing the sun (n.sun > 0)
  float litSun = 0;     // lit foliage: mean n.sun
  float litSunSq = 0;   //              mean n.sun^2 (its spread: tone mapping is not linear)
  float litUp = 0;      //              mean n.y
  float shadeBack = 0;  // foliage facing away: mean -n.sun (light let through)
  float shadeUp = 0;    //                      mean n.y
  float barkSun = 0;    // bark: mean max(n.sun, 0)
  float barkUp = 0;     //       mean n.y
};

// Direction of texel (elevation i, azimuth j): toward the eye, in a frame whose x axis is the
// sun's horizontal direction; elevations and azimuths at texel centres of [0, 90] and [0, 180]
// degrees.
gpu::vec3 farLookDirection(uint32_t elevation, uint32_t azimuth);

// One species' table (FAR_LOOK_ELEVATIONS * FAR_LOOK_AZIMUTHS entries, elevation-major) for
// its mesh in unit space drawn at (crownRadius, meshHeight, crownRadius); sunElevationDeg: the
// sun's height above the horizon.
std::vector<FarLookEntry> speciesFarLook(const MeshSet& meshes, uint32_t species, float crownRadius,
                                         float meshHeight, float sunElevationDeg);

// The look a species is mixed into: its kind's, or FAR_LOOK_CONIFER for a conifer tree.
uint32_t farLookOf(const SpeciesRecord& species);

// The table of every look: FAR_LOOKS * FAR_LOOK_ELEVATIONS * FAR_LOOK_AZIMUTHS entries
// (look-major). A look without species has zero area (the far field draws nothing for it).
// counts: instances per species id (the manifest's; empty: every species weighs the same).
// sideArea, where given: per species, its projected area over its crown disc seen from low
// (the mean over the directions below 45 degrees, where the far field is seen from), which the
// far field weighs a texel's tints by (far_field.h surveyTile).
std::vector<FarLookEntry> farLookTable(const MeshSet& meshes, const std::vector<SpeciesRecord>& species,
                                       const std::vector<uint64_t>& counts, float sunElevationDeg,
                                       std::vector<float>* sideArea = nullptr);

}  // namespace eco::render
