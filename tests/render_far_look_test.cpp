// The far look table (render/far_look.h) on meshes whose projections are known in closed form:
// a horizontal leaf (a square facing up) and a vertical post (a closed box of bark). The
// references are written from the geometry, not from the rasterizer.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "render/far_look.h"

using namespace eco;
using namespace eco::render;

namespace {

constexpr double kPi = 3.14159265358979;

// One species whose coarsest LOD is the given triangles (unit space).
MeshSet oneMesh(const std::vector<MeshVertex>& vertices, const std::vector<uint32_t>& indices) {
  MeshSet m;
  m.vertices = vertices;
  m.indices = indices;
  SpeciesMesh s{};
  for (MeshRange& r : s.lods) r = {0, uint32_t(indices.size()), 0};
  m.species.push_back(s);
  return m;
}

double elevationOf(uint32_t e) { return (e + 0.5) / gpu::FAR_LOOK_ELEVATIONS * 0.5 * kPi; }

// A 2 x 2 square at height 0.5, normal up, foliage: seen from elevation e it shows 4 sin(e)
// (unit crown radius: pi for the disc), every pixel facing the sun (above the horizon) with
// n.sun = sin(sun elevation) and n.y = 1.
TEST(RenderFarLook, HorizontalLeafShowsItsAreaTimesTheSineOfTheElevation) {
  const float up[4] = {0, 1, 0, 0};
  std::vector<MeshVertex> v;
  for (auto [x, z] : {std::pair{-1.f, -1.f}, {1.f, -1.f}, {1.f, 1.f}, {-1.f, 1.f}})
    v.push_back({{x, 0.5f, z, 1}, {up[0], up[1], up[2], up[3]}});
  const MeshSet m = oneMesh(v, {0, 2, 1, 0, 3, 2});
  const float sunElevation = 40;
  const std::vector<FarLookEntry> t = speciesFarLook(m, 0, 1, 1, sunElevation);
  ASSERT_EQ(t.size(), size_t(gpu::FAR_LOOK_ELEVATIONS) * gpu::FAR_LOOK_AZIMUTHS);
  for (uint32_t e = 0; e < gpu::FAR_LOOK_ELEVATIONS; ++e)
    for (uint32_t a = 0; a < gpu::FAR_LOOK_AZIMUTHS; ++a) {
      const FarLookEntry& x = t[e * gpu::FAR_LOOK_AZIMUTHS + a];
      const double area = 4 * std::sin(elevationOf(e)) / kPi;
      EXPECT_NEAR(x.area, area, 0.04 * area + 0.005) << e << "," << a;
      EXPECT_FLOAT_EQ(x.foliage, 1);
      EXPECT_FLOAT_EQ(x.lit, 1);
      EXPECT_NEAR(x.litSun, std::sin(double(sunElevation) * kPi / 180), 1e-4);
      EXPECT_NEAR(x.litUp, 1, 1e-5);
    }
}

// A closed box of bark, 0.4 x 1 x 0.4 in unit space, drawn at crown radius 1 and height 10:
// 0.4 m square, 10 m tall. Its projection along a direction at elevation e and azimuth a (the
// box turned at yaws k / 8 of a turn) is 10 cos(e) (0.4 |cos| + 0.4 |sin|) for the sides plus
// 0.16 sin(e) for the top, averaged over the yaws.
TEST(RenderFarLook, BarkPostShowsItsSidesFromTheSide) {
  std::vector<MeshVertex> v;
  std::vector<uint32_t> idx;
  auto face = [&](std::array<float, 3> n, std::array<std::array<float, 3>, 4> c) {
    const uint32_t b = uint32_t(v.size());
    for (const auto& p : c) v.push_back({{p[0], p[1], p[2], 0}, {n[0], n[1], n[2], 0}});
    idx.insert(idx.end(), {b, b + 1, b + 2, b, b + 2, b + 3});
  };
  const float h = 0.2f;
  face({1, 0, 0}, {{{h, 0, -h}, {h, 1, -h}, {h, 1, h}, {h, 0, h}}});
  face({-1, 0, 0}, {{{-h, 0, h}, {-h, 1, h}, {-h, 1, -h}, {-h, 0, -h}}});
  face({0, 0, 1}, {{{h, 0, h}, {h, 1, h}, {-h, 1, h}, {-h, 0, h}}});
  face({0, 0, -1}, {{{-h, 0, -h}, {-h, 1, -h}, {h, 1, -h}, {h, 0, -h}}});
  face({0, 1, 0}, {{{-h, 1, -h}, {-h, 1, h}, {h, 1, h}, {h, 1, -h}}});
  const MeshSet m = oneMesh(v, idx);
  const std::vector<FarLookEntry> t = speciesFarLook(m, 0, 1, 10, 40);
  for (uint32_t e = 0; e < gpu::FAR_LOOK_ELEVATIONS; ++e) {
    const double el = elevationOf(e);
    for (uint32_t a = 0; a < gpu::FAR_LOOK_AZIMUTHS; a += 3) {
      const double az = (a + 0.5) / gpu::FAR_LOOK_AZIMUTHS * kPi;
      double sides = 0;
      for (uint32_t y = 0; y < kFarLookYaws; ++y) {
        const double turn = az - 2 * kPi * y / kFarLookYaws;
        sides += 4.0 * (std::abs(std::cos(turn)) + std::abs(std::sin(turn)));
      }
      sides /= kFarLookYaws;
      const double area = (std::cos(el) * sides + 0.16 * std::sin(el)) / kPi;
      const FarLookEntry& x = t[e * gpu::FAR_LOOK_AZIMUTHS + a];
      // a thin shape on a 64-pixel raster of its long side: about a pixel's width of error
      EXPECT_NEAR(x.area, area, 0.12 * area) << e << "," << a;
      EXPECT_FLOAT_EQ(x.foliage, 0);
      EXPECT_GE(x.barkUp, 0);
      EXPECT_LE(x.barkSun, 1);
    }
  }
  // from the side toward the sun the lit faces are the ones turned to it: mean n.sun near
  // cos(40 deg) times the mean |cos| of a face seen (2 / pi for faces seen in proportion)
  const FarLookEntry& side = t[0];
  EXPECT_GT(side.barkSun, 0.3);
  EXPECT_LT(side.barkSun, 0.8);
}

// Species of one kind mix by their crown area in the world: two leaves, one with 3x the count.
TEST(RenderFarLook, KindTableWeighsSpeciesByCrownArea) {
  const float up[4] = {0, 1, 0, 0};
  std::vector<MeshVertex> v;
  for (auto [x, z] : {std::pair{-1.f, -1.f}, {1.f, -1.f}, {1.f, 1.f}, {-1.f, 1.f}})
    v.push_back({{x, 0.5f, z, 1}, {up[0], up[1], up[2], up[3]}});
  for (auto [x, z] : {std::pair{-0.5f, -0.5f}, {0.5f, -0.5f}, {0.5f, 0.5f}, {-0.5f, 0.5f}})
    v.push_back({{x, 0.5f, z, 1}, {up[0], up[1], up[2], up[3]}});
  MeshSet m;
  m.vertices = v;
  m.indices = {0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6};
  SpeciesMesh big{}, small{};
  for (MeshRange& r : big.lods) r = {0, 6, 0};
  for (MeshRange& r : small.lods) r = {6, 6, 0};
  m.species = {big, small};
  std::vector<SpeciesRecord> species(2);
  for (SpeciesRecord& s : species) s.kind = 0, s.crownRadius = 1, s.meshHeight = 1;
  const std::vector<FarLookEntry> t = farLookTable(m, species, {1, 3}, 40);
  ASSERT_EQ(t.size(), size_t(gpu::FAR_LOOKS) * gpu::FAR_LOOK_ELEVATIONS * gpu::FAR_LOOK_AZIMUTHS);
  const uint32_t e = gpu::FAR_LOOK_ELEVATIONS - 1;
  // areas 4 and 1 (over pi) weighed 1 : 3
  const double expect = (1 * 4.0 + 3 * 1.0) / 4 * std::sin(elevationOf(e)) / kPi;
  EXPECT_NEAR(t[e * gpu::FAR_LOOK_AZIMUTHS].area, expect, 0.04 * expect);
  for (uint32_t k = 1; k < gpu::FAR_LOOKS; ++k)
    EXPECT_EQ(t[k * gpu::FAR_LOOK_ELEVATIONS * gpu::FAR_LOOK_AZIMUTHS].area, 0) << "look " << k << " has no species";
  // a conifer tree goes to the conifer look, a broadleaf to the trees'
  species[1].meshForm = MeshForm::Conifer;
  const std::vector<FarLookEntry> apart = farLookTable(m, species, {1, 3}, 40);
  const size_t conifer = size_t(gpu::FAR_LOOK_CONIFER) * gpu::FAR_LOOK_ELEVATIONS * gpu::FAR_LOOK_AZIMUTHS;
  const double leaf = std::sin(elevationOf(e)) / kPi;
  EXPECT_NEAR(apart[e * gpu::FAR_LOOK_AZIMUTHS].area, 4 * leaf, 0.04 * 4 * leaf);
  EXPECT_NEAR(apart[conifer + e * gpu::FAR_LOOK_AZIMUTHS].area, leaf, 0.04 * leaf);
}

// The lit side's spread of n.sun (the shader evaluates the tone curve a standard deviation
// either side of the mean): two species of one kind, the same horizontal leaf, one with its
// normal up and one with its normal tilted to n.y = 0.8, under a sun at the zenith (n.sun = n.y
// whatever the yaw and view). Equal crown areas: n.sun is 1 on half the lit area and 0.8 on
// the other half, so mean 0.9 and standard deviation 0.1.
TEST(RenderFarLook, LitSideKeepsTheSpreadOfItsSunAngle) {
  std::vector<MeshVertex> v;
  const std::array<std::array<float, 4>, 2> normals{{{0, 1, 0, 0}, {0.6f, 0.8f, 0, 0}}};
  for (const std::array<float, 4>& n : normals)
    for (auto [x, z] : {std::pair{-1.f, -1.f}, {1.f, -1.f}, {1.f, 1.f}, {-1.f, 1.f}})
      v.push_back({{x, 0.5f, z, 1}, {n[0], n[1], n[2], n[3]}});
  MeshSet m;
  m.vertices = v;
  m.indices = {0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6};
  SpeciesMesh up{}, tilted{};
  for (MeshRange& r : up.lods) r = {0, 6, 0};
  for (MeshRange& r : tilted.lods) r = {6, 6, 0};
  m.species = {up, tilted};
  std::vector<SpeciesRecord> species(2);
  for (SpeciesRecord& s : species) s.kind = 0, s.crownRadius = 1, s.meshHeight = 1;
  const std::vector<FarLookEntry> t = farLookTable(m, species, {1, 1}, 90);
  // from 37 degrees up: lower, the tilted leaf shows its back for some yaws (0.6 cos e > 0.8 sin e)
  for (uint32_t e = 3; e < gpu::FAR_LOOK_ELEVATIONS; ++e)
    for (uint32_t a = 0; a < gpu::FAR_LOOK_AZIMUTHS; ++a) {
      const FarLookEntry& x = t[e * gpu::FAR_LOOK_AZIMUTHS + a];
      EXPECT_FLOAT_EQ(x.lit, 1) << e << "," << a;
      EXPECT_NEAR(x.litSun, 0.9, 2e-3) << e << "," << a;
      EXPECT_NEAR(std::sqrt(x.litSunSq - x.litSun * x.litSun), 0.1, 3e-3) << e << "," << a;
    }
  // one species alone: no spread
  const std::vector<FarLookEntry> one = speciesFarLook(m, 0, 1, 1, 90);
  EXPECT_NEAR(one[gpu::FAR_LOOK_AZIMUTHS * 5].litSunSq, 1, 1e-5);
}

}  // namespace

namespace {

// LOD 1 of every procedural form shows the projected area of LOD 0 from every elevation, within
// 10 % (azimuths averaged): where instances turn LOD 1 (40 bounding radii from the eye) a
// coarser mesh with a smaller outline thins the stand at once, a ring around the eye (three-lobe
// broadleaves showed 0.74-0.80 of LOD 0's area: a forest a fifth thinner past 600 m; shrubs
// 0.56-0.70, ground cover 0.53). The area is measured by the far look's own rasterizer on each
// LOD in turn, the sample's proportions.
TEST(RenderFarLook, Lod1ShowsLod0sArea) {
  struct Form {
    MeshForm form;
    float height, crown;
  };
  const Form forms[] = {{MeshForm::Broadleaf, 28, 5.5f}, {MeshForm::Broadleaf, 12, 4},  {MeshForm::Conifer, 32, 3.2f},
                        {MeshForm::Shrub, 2.5f, 2},      {MeshForm::Grass, 0.4f, 0.3f}, {MeshForm::GroundCover, 0.08f, 0.35f}};
  for (const Form& f : forms) {
    SpeciesMeshSource source;
    source.form = f.form;
    source.meshHeight = f.height;
    source.crownRadius = f.crown;
    const MeshSet lod1 = buildMeshes(std::span<const SpeciesMeshSource>(&source, 1));
    MeshSet lod0 = lod1;
    lod0.species[0].lods[gpu::LOD_COUNT - 1] = lod0.species[0].lods[0];  // the far look reads the last LOD
    const std::vector<FarLookEntry> a1 = speciesFarLook(lod1, 0, f.crown, f.height, 40);
    const std::vector<FarLookEntry> a0 = speciesFarLook(lod0, 0, f.crown, f.height, 40);
    for (uint32_t e = 0; e < gpu::FAR_LOOK_ELEVATIONS; ++e) {
      double s0 = 0, s1 = 0;
      for (uint32_t a = 0; a < gpu::FAR_LOOK_AZIMUTHS; ++a) {
        s0 += double(a0[e * gpu::FAR_LOOK_AZIMUTHS + a].area);
        s1 += double(a1[e * gpu::FAR_LOOK_AZIMUTHS + a].area);
      }
      ASSERT_GT(s0, 0);
      EXPECT_NEAR(s1 / s0, 1.0, 0.1) << meshFormName(f.form) << " " << f.height << " m, elevation "
                                     << elevationOf(e) * 180 / kPi << " degrees";
    }
  }
}

}  // namespace
