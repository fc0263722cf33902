// Species meshes (src/meshes): the procedural forms (unit space, no rotational symmetry,
// closed and outward), the glTF loader against ecosample's GLBs read independently here, the
// normalised GLB round trip, LOD 1 against an independent point-to-surface distance, and a
// corpus of hostile glTF files, each one line naming the file and the element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "meshes/meshes.h"
#include "test_support.h"

// The references below compute in double from float mesh data throughout.
#pragma GCC diagnostic ignored "-Wdouble-promotion"

namespace {

using eco::LoadedMesh;
using eco::MeshForm;
using eco::MeshVertex;
using eco::MetricMesh;
using Json = nlohmann::json;

constexpr MeshForm kForms[] = {MeshForm::Broadleaf, MeshForm::Conifer, MeshForm::Shrub, MeshForm::Grass,
                               MeshForm::GroundCover};

size_t barkTriangles(const std::vector<MeshVertex>& v, const std::vector<uint32_t>& idx) {
  size_t n = 0;
  for (size_t t = 0; t < idx.size(); t += 3) n += v[idx[t]].position[3] < 0.5f;
  return n;
}

// ---- procedural forms ----

TEST(ProceduralMeshes, InsideTheUnitSpaceWithACheaperFarLod) {
  for (MeshForm form : kForms) {
    const LoadedMesh near = eco::proceduralMesh(form, 0), far = eco::proceduralMesh(form, 1);
    const std::string name = eco::meshFormName(form);
    for (const LoadedMesh* m : {&near, &far}) {
      ASSERT_FALSE(m->indices.empty()) << name;
      ASSERT_EQ(m->indices.size() % 3, 0u) << name;
      for (uint32_t i : m->indices) ASSERT_LT(i, m->vertices.size()) << name;
      for (const MeshVertex& v : m->vertices) {
        EXPECT_LE(std::hypot(v.position[0], v.position[2]), 1.f) << name;
        EXPECT_GE(v.position[1], 0.f) << name;
        EXPECT_LE(v.position[1], 1.f) << name;
        EXPECT_NEAR(std::sqrt(v.normal[0] * v.normal[0] + v.normal[1] * v.normal[1] + v.normal[2] * v.normal[2]), 1.f,
                    1e-4f)
            << name;
      }
    }
    const size_t t0 = near.indices.size() / 3, t1 = far.indices.size() / 3;
    std::printf("%-12s LOD 0 %4zu triangles, LOD 1 %4zu\n", name.c_str(), t0, t1);
    EXPECT_LE(2 * t1, t0) << name << ": LOD 1 " << t1 << " triangles, LOD 0 " << t0;
    const bool plant = form == MeshForm::Grass || form == MeshForm::GroundCover;
    EXPECT_LE(t0, plant ? 400u : 2000u) << name;
    // trees have bark, the rest is all foliage
    const bool tree = form == MeshForm::Broadleaf || form == MeshForm::Conifer;
    EXPECT_EQ(barkTriangles(near.vertices, near.indices) > 0, tree) << name;
  }
}

// Turned about y by any of these angles, the vertex set is not itself: some vertex lands far
// from every original vertex (brute force nearest neighbour).
TEST(ProceduralMeshes, NotRotationallySymmetricSoYawShows) {
  for (MeshForm form : kForms)
    for (int lod = 0; lod < 2; ++lod) {
      const LoadedMesh m = eco::proceduralMesh(form, lod);
      for (double degrees : {45.0, 60.0, 72.0, 90.0, 120.0, 180.0}) {
        const double a = degrees * M_PI / 180, c = std::cos(a), s = std::sin(a);
        double worst = 0;
        for (const MeshVertex& v : m.vertices) {
          const double x = c * v.position[0] + s * v.position[2], z = -s * v.position[0] + c * v.position[2];
          double best = INFINITY;
          for (const MeshVertex& w : m.vertices)
            best = std::min(best, std::hypot(x - w.position[0], v.position[1] - w.position[1], z - w.position[2]));
          worst = std::max(worst, best);
        }
        EXPECT_GT(worst, 0.05) << eco::meshFormName(form) << " LOD " << lod << " turned " << degrees
                               << " degrees maps onto itself";
      }
    }
}

// Closed and consistently wound: with vertices matched by position, every directed edge a->b
// is met by as many b->a (volumes are closed solids, sheets two-sided); and the signed volume
// (divergence theorem) is positive for the forms with volumes: faces point outward.
TEST(ProceduralMeshes, ClosedWithOutwardWinding) {
  for (MeshForm form : kForms)
    for (int lod = 0; lod < 2; ++lod) {
      const LoadedMesh m = eco::proceduralMesh(form, lod);
      auto key = [&](uint32_t i) {
        const float* p = m.vertices[i].position;
        return std::make_tuple(std::lround(p[0] * 1e5), std::lround(p[1] * 1e5), std::lround(p[2] * 1e5));
      };
      std::map<std::pair<decltype(key(0)), decltype(key(0))>, int> edges;
      double volume = 0;
      for (size_t t = 0; t < m.indices.size(); t += 3) {
        for (int k = 0; k < 3; ++k) {
          const auto a = key(m.indices[t + size_t(k)]), b = key(m.indices[t + size_t((k + 1) % 3)]);
          if (a != b) ++edges[{a, b}];
        }
        const float *p = m.vertices[m.indices[t]].position, *q = m.vertices[m.indices[t + 1]].position,
                    *r = m.vertices[m.indices[t + 2]].position;
        volume += (double(p[0]) * (double(q[1]) * r[2] - double(q[2]) * r[1]) -
                   double(p[1]) * (double(q[0]) * r[2] - double(q[2]) * r[0]) +
                   double(p[2]) * (double(q[0]) * r[1] - double(q[1]) * r[0])) /
                  6;
      }
      int open = 0;
      for (const auto& [e, n] : edges) {
        auto back = edges.find({e.second, e.first});
        if (back == edges.end() || back->second != n) ++open;
      }
      EXPECT_EQ(open, 0) << eco::meshFormName(form) << " LOD " << lod << ": edges without their reverse";
      const bool solid = form == MeshForm::Broadleaf || form == MeshForm::Conifer || form == MeshForm::Shrub;
      if (solid) {
        EXPECT_GT(volume, 0.01) << eco::meshFormName(form) << " LOD " << lod;
      }
    }
}

TEST(ProceduralMeshes, BuildMeshesGivesEachSpeciesItsFormAndSphere) {
  std::vector<eco::SpeciesMeshSource> src = {{MeshForm::Conifer, "", 30, 4}, {MeshForm::Grass, "", 0.5f, 0.3f}};
  const eco::MeshSet set = eco::buildMeshes(src);
  ASSERT_EQ(set.species.size(), 2u);
  for (size_t s = 0; s < 2; ++s) {
    const eco::SpeciesMesh& m = set.species[s];
    EXPECT_EQ(m.source, std::string("procedural ") + eco::meshFormName(src[s].form));
    EXPECT_TRUE(m.error.empty());
    const LoadedMesh expect0 = eco::proceduralMesh(src[s].form, 0);
    EXPECT_EQ(m.triangles[0], expect0.indices.size() / 3);
    EXPECT_EQ(m.lods[0].indexCount, 3 * m.triangles[0]);
    EXPECT_LT(m.triangles[1], m.triangles[0]);
    // every LOD 0 vertex lies in the sphere (metres at scale 1)
    const float sz[3] = {src[s].crownRadius, src[s].meshHeight, src[s].crownRadius};
    for (uint32_t k = 0; k < m.lods[0].indexCount; ++k) {
      const float* p = set.vertices[m.lods[0].vertexOffset + set.indices[m.lods[0].firstIndex + k]].position;
      double d2 = 0;
      for (int c = 0; c < 3; ++c) d2 += std::pow(double(p[c] - m.sphere[c]) * sz[c], 2);
      ASSERT_LE(std::sqrt(d2), double(m.sphere[3])) << s;
    }
  }
}

// ---- glTF files ----

// A GLB from a JSON document and a BIN chunk (test-only packer, so the corpus below can say
// exactly what is wrong).
std::string packGlb(const Json& j, const std::string& bin) {
  std::string json = j.dump();
  while (json.size() % 4) json += ' ';
  std::string b = bin;
  while (b.size() % 4) b += '\0';
  auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  std::string out = "glTF" + u32(2) + u32(uint32_t(12 + 8 + json.size() + (b.empty() ? 0 : 8 + b.size())));
  out += u32(uint32_t(json.size())) + u32(0x4E4F534Au) + json;
  if (!b.empty()) out += u32(uint32_t(b.size())) + u32(0x004E4942u) + b;
  return out;
}
// The JSON and BIN chunks of a GLB.
std::pair<Json, std::string> unpackGlb(const std::string& glb) {
  uint32_t jsonLength, binLength;
  std::memcpy(&jsonLength, glb.data() + 12, 4);
  const Json j = Json::parse(glb.substr(20, jsonLength));
  std::memcpy(&binLength, glb.data() + 20 + jsonLength, 4);
  return {j, glb.substr(20 + jsonLength + 8, binLength)};
}

const std::string kCottonwood = eco::test::sourceDir() + "/samples/world/meshes/cottonwood.glb";

// ecosample's cottonwood read by hand (the JSON chunk: triangles per material, POSITION
// min/max) against loadMeshFile: same triangles, bark split and bounds in the unit space.
TEST(MeshFiles, SampleGlbLoadsWithItsTrianglesBoundsAndTints) {
  const auto [j, bin] = unpackGlb(eco::test::readBytes(kCottonwood));
  size_t bark = 0, foliage = 0;
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (const Json& p : j["meshes"][0]["primitives"]) {
    const size_t tris = j["accessors"][p["indices"].get<size_t>()]["count"].get<size_t>() / 3;
    const std::string material = j["materials"][p["material"].get<size_t>()]["name"];
    (material == "bark" ? bark : foliage) += tris;
    const Json& pos = j["accessors"][p["attributes"]["POSITION"].get<size_t>()];
    for (size_t c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], pos["min"][c].get<float>());
      hi[c] = std::max(hi[c], pos["max"][c].get<float>());
    }
  }
  ASSERT_GT(bark, 0u);
  ASSERT_GT(foliage, 0u);
  const float h = 20, cr = 7;
  const LoadedMesh m = eco::loadMeshFile(kCottonwood, h, cr);
  EXPECT_EQ(m.indices.size() / 3, bark + foliage);
  EXPECT_EQ(barkTriangles(m.vertices, m.indices), bark);
  float mlo[3] = {INFINITY, INFINITY, INFINITY}, mhi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (const MeshVertex& v : m.vertices)
    for (int c = 0; c < 3; ++c) {
      mlo[c] = std::min(mlo[c], v.position[c]);
      mhi[c] = std::max(mhi[c], v.position[c]);
    }
  const float s[3] = {cr, h, cr};
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(mlo[c], lo[c] / s[c], 1e-5f) << c;
    EXPECT_NEAR(mhi[c], hi[c] / s[c], 1e-5f) << c;
  }
  const std::vector<eco::SpeciesMeshSource> src = {{MeshForm::Broadleaf, kCottonwood, h, cr}};
  const eco::MeshSet set = eco::buildMeshes(src);
  EXPECT_EQ(set.species[0].triangles[0], bark + foliage);
  EXPECT_LT(set.species[0].triangles[1], set.species[0].triangles[0]);
  std::printf("cottonwood.glb: LOD 0 %u triangles, LOD 1 %u\n", set.species[0].triangles[0], set.species[0].triangles[1]);
  // drawn at its true size: the file is 20 m tall and within the 7 m crown
  EXPECT_NEAR(hi[1] - lo[1], 20.f, 0.5f);
  EXPECT_LE(std::max({-lo[0], hi[0], -lo[2], hi[2]}), 7.f);
}

TEST(MeshFiles, NormalisedGlbReadsBackBitForBit) {
  const MetricMesh m = eco::loadMetricMesh(kCottonwood);
  const std::vector<uint8_t> glb = eco::writeGlb(m);
  const MetricMesh back = eco::parseMetricMesh(glb, "normalised.glb", "");
  ASSERT_EQ(back.indices, m.indices);  // the sample is already bark-first, compacted
  ASSERT_EQ(back.vertices.size(), m.vertices.size());
  EXPECT_EQ(std::memcmp(back.vertices.data(), m.vertices.data(), m.vertices.size() * sizeof(MeshVertex)), 0);
  EXPECT_EQ(eco::writeGlb(back), glb);
  // the sample file is itself such a GLB
  EXPECT_EQ(std::string(glb.begin(), glb.end()), eco::test::readBytes(kCottonwood));
}

// Node transforms (a 90 degree turn and a translation) apply to positions and normals, and a
// mirroring scale keeps faces outward.
TEST(MeshFiles, NodeTransformsApply) {
  const MetricMesh m = eco::loadMetricMesh(kCottonwood);
  auto [j, bin] = unpackGlb(eco::test::readBytes(kCottonwood));
  j["nodes"] = Json::array({{{"children", {1}}, {"translation", {1.0, 2.0, 3.0}}},
                            {{"mesh", 0}, {"rotation", {0.0, std::sqrt(0.5), 0.0, std::sqrt(0.5)}}}});
  eco::test::TempDir dir;
  eco::test::writeBytes(dir.file("turned.glb"), packGlb(j, bin));
  const MetricMesh t = eco::loadMetricMesh(dir.file("turned.glb"));
  ASSERT_EQ(t.vertices.size(), m.vertices.size());
  for (size_t i = 0; i < m.vertices.size(); ++i) {
    const float* p = m.vertices[i].position;
    // +90 degrees about y: (x, y, z) -> (z, y, -x)
    EXPECT_NEAR(t.vertices[i].position[0], p[2] + 1, 1e-4f);
    EXPECT_NEAR(t.vertices[i].position[1], p[1] + 2, 1e-4f);
    EXPECT_NEAR(t.vertices[i].position[2], -p[0] + 3, 1e-4f);
    EXPECT_NEAR(t.vertices[i].normal[0], m.vertices[i].normal[2], 1e-4f);
    EXPECT_NEAR(t.vertices[i].normal[1], m.vertices[i].normal[1], 1e-4f);
    EXPECT_NEAR(t.vertices[i].normal[2], -m.vertices[i].normal[0], 1e-4f);
  }
  j["nodes"] = Json::array({{{"mesh", 0}, {"scale", {-1.0, 1.0, 1.0}}}});
  eco::test::writeBytes(dir.file("mirrored.glb"), packGlb(j, bin));
  const MetricMesh r = eco::loadMetricMesh(dir.file("mirrored.glb"));
  // the first triangle's winding is reversed, so its face normal still agrees with its vertex normals
  const float *a = r.vertices[r.indices[0]].position, *b = r.vertices[r.indices[1]].position,
              *c = r.vertices[r.indices[2]].position;
  const float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const float n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  const float* vn = r.vertices[r.indices[0]].normal;
  EXPECT_GT(n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2], 0.f);
  EXPECT_EQ(r.indices[1], m.indices[2]);
}

// A tint rule detail: a material named "Oak_Trunk" is bark; extras ecobake_tint false too;
// missing normals are computed.
TEST(MeshFiles, TintRuleAndMissingNormals) {
  auto [j, bin] = unpackGlb(eco::test::readBytes(kCottonwood));
  j["materials"] = Json::array({{{"name", "Leaves"}, {"extras", {{"ecobake_tint", false}}}}, {{"name", "Oak_Trunk"}}});
  for (Json& p : j["meshes"][0]["primitives"]) p["attributes"].erase("NORMAL");
  eco::test::TempDir dir;
  eco::test::writeBytes(dir.file("t.glb"), packGlb(j, bin));
  const MetricMesh m = eco::loadMetricMesh(dir.file("t.glb"));
  EXPECT_EQ(barkTriangles(m.vertices, m.indices), m.indices.size() / 3);  // both materials are bark now
  for (const MeshVertex& v : m.vertices)
    EXPECT_NEAR(std::hypot(v.normal[0], v.normal[1], v.normal[2]), 1.f, 1e-4f);
}

// Distance from point p to triangle abc (closest point by regions, Ericson's RTCD 5.1.5),
// written here independently of meshoptimizer.
double pointTriangle(const double p[3], const double a[3], const double b[3], const double c[3]) {
  auto sub = [](const double* x, const double* y, double* o) { for (int i = 0; i < 3; ++i) o[i] = x[i] - y[i]; };
  auto dot = [](const double* x, const double* y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]; };
  double ab[3], ac[3], ap[3], bp[3], cp[3], q[3];
  sub(b, a, ab), sub(c, a, ac), sub(p, a, ap);
  auto at = [&](double v, double w) {
    for (int i = 0; i < 3; ++i) q[i] = a[i] + ab[i] * v + ac[i] * w;
    double d[3];
    sub(p, q, d);
    return std::sqrt(dot(d, d));
  };
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return at(0, 0);
  sub(p, b, bp);
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return at(1, 0);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return at(d1 / (d1 - d3), 0);
  sub(p, c, cp);
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return at(0, 1);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return at(0, d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int i = 0; i < 3; ++i) q[i] = b[i] + (c[i] - b[i]) * w;
    double d[3];
    sub(p, q, d);
    return std::sqrt(dot(d, d));
  }
  const double denom = 1 / (va + vb + vc);
  return at(vb * denom, vc * denom);
}

// A finely tessellated lumpy sphere (bark-free foliage), 8 m across, as a GLB.
std::string lumpySphereGlb() {
  MetricMesh m;
  const int rings = 48, segments = 96;
  for (int r = 0; r <= rings; ++r)
    for (int s = 0; s < segments; ++s) {
      const double phi = M_PI * r / rings, theta = 2 * M_PI * s / segments;
      const double k = 4 * (1 + 0.08 * std::sin(3 * theta) * std::sin(2 * phi));
      MeshVertex v{};
      v.position[0] = float(k * std::sin(phi) * std::cos(theta));
      v.position[1] = float(4 - k * std::cos(phi));
      v.position[2] = float(k * std::sin(phi) * std::sin(theta));
      v.position[3] = 1;
      v.normal[1] = 1;
      m.vertices.push_back(v);
    }
  for (int r = 0; r < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      const uint32_t a = uint32_t(r * segments + s), b = uint32_t(r * segments + (s + 1) % segments);
      const uint32_t c = a + uint32_t(segments), d = b + uint32_t(segments);
      m.indices.insert(m.indices.end(), {a, c, b, b, c, d});
    }
  const std::vector<uint8_t> glb = eco::writeGlb(m);
  return std::string(glb.begin(), glb.end());
}

// LOD 1 of a file: far fewer triangles, deterministic, and every LOD 0 vertex within the
// documented error (kLod1RelativeError of the extent, measured here as the distance to the
// nearest LOD 1 triangle, with 50 % slack for meshoptimizer's quadric estimate).
TEST(MeshFiles, Lod1IsCheaperAndWithinItsErrorBound) {
  eco::test::TempDir dir;
  eco::test::writeBytes(dir.file("sphere.glb"), lumpySphereGlb());
  const std::vector<eco::SpeciesMeshSource> src = {{MeshForm::Broadleaf, dir.file("sphere.glb"), 8, 4}};
  const eco::MeshSet set = eco::buildMeshes(src);
  const eco::SpeciesMesh& m = set.species[0];
  ASSERT_TRUE(m.error.empty()) << m.error;
  EXPECT_EQ(m.source, dir.file("sphere.glb"));
  EXPECT_EQ(m.triangles[0], 48u * 96u * 2u);
  EXPECT_LE(m.triangles[1], m.triangles[0] / 3) << "LOD 1 keeps " << m.triangles[1];
  EXPECT_EQ(eco::buildMeshes(src).indices, set.indices);  // deterministic

  auto metres = [&](uint32_t lod, uint32_t k, double out[3]) {
    const eco::MeshRange& r = m.lods[lod];
    const float* p = set.vertices[r.vertexOffset + set.indices[r.firstIndex + k]].position;
    out[0] = double(p[0]) * 4, out[1] = double(p[1]) * 8, out[2] = double(p[2]) * 4;
  };
  double worst = 0;
  for (uint32_t k = 0; k < m.lods[0].indexCount; k += 7) {  // a sample of LOD 0's vertices
    double p[3];
    metres(0, k, p);
    double best = INFINITY;
    for (uint32_t t = 0; t < m.lods[1].indexCount; t += 3) {
      double a[3], b[3], c[3];
      metres(1, t, a), metres(1, t + 1, b), metres(1, t + 2, c);
      best = std::min(best, pointTriangle(p, a, b, c));
    }
    worst = std::max(worst, best);
  }
  const double extent = 8.64;  // the sphere's largest side, 2 * 4 * 1.08
  std::printf("LOD 1: %u of %u triangles, largest LOD 0 vertex distance %.4f m (%.2f %% of the extent)\n",
              m.triangles[1], m.triangles[0], worst, 100 * worst / extent);
  EXPECT_LE(worst, 1.5 * double(eco::kLod1RelativeError) * extent);
}

TEST(MeshFiles, ABadFileFallsBackToTheProceduralMeshWithTheError) {
  eco::test::TempDir dir;
  eco::test::writeBytes(dir.file("bad.glb"), "glTF nonsense");
  const std::vector<eco::SpeciesMeshSource> src = {{MeshForm::Conifer, dir.file("bad.glb"), 10, 2}};
  const eco::MeshSet set = eco::buildMeshes(src);
  EXPECT_EQ(set.species[0].source, "procedural conifer");
  EXPECT_NE(set.species[0].error.find(dir.file("bad.glb")), std::string::npos) << set.species[0].error;
  EXPECT_EQ(set.species[0].triangles[0], eco::proceduralMesh(MeshForm::Conifer, 0).indices.size() / 3);
}

// ---- the hostile corpus ----

struct BadCase {
  std::string name, file, expect;  // expect: a part of the message
};

std::vector<BadCase> writeCorpus(const eco::test::TempDir& dir) {
  const std::string good = eco::test::readBytes(kCottonwood);
  const auto [j, bin] = unpackGlb(good);
  std::vector<BadCase> cases;
  auto add = [&](const std::string& name, const std::string& bytes, const std::string& expect,
                 const std::string& ext = ".glb") {
    const std::string file = dir.file(name + ext);
    eco::test::writeBytes(file, bytes);
    cases.push_back({name, file, expect});
  };
  add("truncated", good.substr(0, good.size() - 100), "truncated");
  add("bad_magic", "glTX" + good.substr(4), "neither a GLB");
  add("empty", "", "neither a GLB");
  add("header_only", good.substr(0, 12), "truncated GLB");
  {
    Json k = j;  // first primitive's indices point past its vertices
    std::string b = bin;
    const Json& acc = k["accessors"][k["meshes"][0]["primitives"][0]["indices"].get<size_t>()];
    const size_t at = k["bufferViews"][acc["bufferView"].get<size_t>()]["byteOffset"].get<size_t>();
    const uint32_t huge = 100000;
    std::memcpy(b.data() + at, &huge, 4);
    add("index_out_of_range", packGlb(k, b), "mesh 0 primitive 0: index 100000");
  }
  {
    Json k = j;  // an accessor claims more elements than its view holds
    k["accessors"][0]["count"] = k["accessors"][0]["count"].get<size_t>() + 10;
    add("accessor_past_view", packGlb(k, bin), "mesh 0 primitive 0: POSITION (accessor 0)");
  }
  {
    Json k = j;  // a view past the end of the buffer
    k["bufferViews"][0]["byteLength"] = 1 << 24;
    add("view_past_buffer", packGlb(k, bin), "");
  }
  {
    Json k = j;
    std::string b = bin;
    const size_t at = k["bufferViews"][k["accessors"][3]["bufferView"].get<size_t>()]["byteOffset"].get<size_t>();
    const float nan = NAN;
    std::memcpy(b.data() + at + 12 * 5, &nan, 4);
    add("nan_position", packGlb(k, b), "mesh 0 primitive 1: POSITION 5 is not finite");
  }
  {
    Json k = j;
    for (Json& p : k["meshes"][0]["primitives"]) p["mode"] = 0;  // points
    add("no_triangles", packGlb(k, bin), "no triangles");
  }
  {
    Json k = j;
    k["accessors"][0]["count"] = 4000000000ull;
    add("huge_count", packGlb(k, bin), "more than the limit");
  }
  {
    Json k = j;
    k["scenes"] = Json::array();
    add("no_scene", packGlb(k, bin), "no scene");
  }
  {
    Json k = j;  // a node that is its own child
    k["nodes"][0]["children"] = {0};
    add("node_cycle", packGlb(k, bin), "node 0: is reached twice");
  }
  {
    Json k = j;
    k["meshes"][0]["primitives"][0]["material"] = 9;
    add("missing_material", packGlb(k, bin), "mesh 0 primitive 0: material 9 does not exist");
  }
  // .gltf with external buffers: outside the folder, and missing
  {
    Json k = j;
    k["buffers"][0]["uri"] = "../outside.bin";
    eco::test::writeBytes((dir.path.parent_path() / "outside.bin").string(), bin);
    add("escaping_uri", k.dump(), "", ".gltf");
    k["buffers"][0]["uri"] = "missing.bin";
    add("missing_uri", k.dump(), "", ".gltf");
    k["buffers"][0]["uri"] = "/etc/passwd";
    add("absolute_uri", k.dump(), "", ".gltf");
  }
  add("not_json", "{ \"asset\": ", "", ".gltf");
  // required extensions this reader does not support (glTF 2.0 section 3.12: refuse them)
  for (const char* ext : {"KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_texture_basisu"}) {
    Json k = j;
    k["extensionsUsed"] = {ext};
    k["extensionsRequired"] = {ext};
    add(std::string("requires_") + ext, packGlb(k, bin), std::string("requires the glTF extension ") + ext);
  }
  return cases;
}

TEST(MeshFiles, HostileFilesAreOneLineErrorsNamingTheFile) {
  eco::test::TempDir dir;
  for (const BadCase& c : writeCorpus(dir)) {
    try {
      eco::loadMeshFile(c.file, 10, 3);
      ADD_FAILURE() << c.name << ": loaded";
    } catch (const eco::InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(c.file + ": ", 0), 0u) << c.name << ": " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << c.name << ": " << what;
      EXPECT_NE(what.find(c.expect), std::string::npos) << c.name << ": " << what;
    }
  }
  // a good .gltf with its buffer beside it loads
  auto [j, bin] = unpackGlb(eco::test::readBytes(kCottonwood));
  j["buffers"][0]["uri"] = "beside.bin";
  eco::test::writeBytes(dir.file("beside.bin"), bin);
  eco::test::writeBytes(dir.file("ok.gltf"), j.dump());
  EXPECT_EQ(eco::loadMeshFile(dir.file("ok.gltf"), 10, 3).indices.size(), eco::loadMeshFile(kCottonwood, 10, 3).indices.size());
}

// `ecobake validate` refuses each with exit 2 and a line naming the mesh file.
TEST(MeshFiles, ValidateExitsTwoNamingTheMeshFile) {
  eco::test::TempDir dir;
  const std::vector<BadCase> cases = writeCorpus(dir);
  const std::string config = eco::test::readBytes(eco::test::sourceDir() + "/configs/arid_canyon.json");
  const std::string world = eco::test::sourceDir() + "/samples/world/";
  for (const BadCase& c : {cases[0], cases[4], cases[7], cases[13]}) {
    std::string text = config;
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"../samples/world/meshes/cottonwood.glb", c.file}, {"../samples/world/", world}})
      for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    eco::test::writeBytes(dir.file("config.json"), text);
    const eco::test::CommandResult r = eco::test::runTool("ecobake", "validate " + dir.file("config.json"));
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find("/species/0/mesh/file: " + c.file + ": "), std::string::npos) << c.name << ": " << r.output;
    // one line for the problem, then the count
    EXPECT_EQ(eco::test::lineCount(r.output), 2u) << r.output;
    EXPECT_NE(r.output.find(": 1 problem(s)"), std::string::npos) << r.output;
  }
}

}  // namespace

// A broadleaf's crown takes its length from its width (issue #29: a 28 m beech with a 5.5 m
// crown radius was a column of leaves): measured on the foliage (w = 1) in metres.
TEST(ProceduralMeshes, BroadleafCrownIsAboutAsLongAsItIsWide) {
  struct Extent {
    float base = 1e9f, top = -1e9f, radius = 0;
  };
  auto foliage = [](const LoadedMesh& m) {
    Extent e;
    for (const eco::MeshVertex& v : m.vertices) {
      if (v.position[3] != 1.f) continue;
      e.base = std::min(e.base, v.position[1]);
      e.top = std::max(e.top, v.position[1]);
      e.radius = std::max(e.radius, std::hypot(v.position[0], v.position[2]));
    }
    return e;
  };
  for (auto [height, crown] : {std::pair{28.f, 5.5f}, {35.f, 4.f}, {20.f, 6.f}}) {
    for (int lod = 0; lod < 2; ++lod) {
      const Extent e = foliage(eco::proceduralMesh(MeshForm::Broadleaf, lod, height / crown));
      const float length = (e.top - e.base) * height, width = 2 * e.radius * crown;
      std::printf("broadleaf %g m, crown radius %g m, LOD %d: crown %.1f m long, %.1f m wide, bole %.1f m\n", height,
                  crown, lod, length, width, e.base * height);
      EXPECT_GT(length / width, 0.85f) << height << " " << crown;
      EXPECT_LT(length / width, 1.6f) << height << " " << crown;
      EXPECT_NEAR(e.top, 1.f, 0.02f);
    }
  }
  // A tree as wide as the form was drawn for keeps the form's mesh exactly.
  const LoadedMesh form = eco::proceduralMesh(MeshForm::Broadleaf, 0), wide = eco::proceduralMesh(MeshForm::Broadleaf, 0, 2.f);
  ASSERT_EQ(form.vertices.size(), wide.vertices.size());
  for (size_t i = 0; i < form.vertices.size(); ++i)
    for (int c = 0; c < 4; ++c) ASSERT_EQ(form.vertices[i].position[c], wide.vertices[i].position[c]);
  const Extent unit = foliage(form);
  std::printf("the form: crown from %.3f to %.3f of the height\n", unit.base, unit.top);
}
