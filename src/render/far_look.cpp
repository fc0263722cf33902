#include "render/far_look.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

namespace eco::render {

namespace {

constexpr float kPi = 3.14159265358979f;
using gpu::vec3;

vec3 normalized(vec3 v) {
  float l = std::sqrt(dot(v, v));
  return l > 0 ? v * (1.0f / l) : v;
}

// The mesh's triangles in metres at scale 1, turned by yaw (transform.h, upright).
struct Triangle {
  vec3 p[3], n[3];
  bool foliage;
  bool own = true;  // the plant the statistics are of (false: a neighbour, which only hides)
};

std::vector<Triangle> placedTriangles(const MeshSet& meshes, const MeshRange& range, vec3 size, float yaw) {
  std::vector<Triangle> out;
  const vec3 up{0, 1, 0};
  for (uint32_t i = 0; i + 2 < range.indexCount; i += 3) {
    Triangle t{};
    for (uint32_t c = 0; c < 3; ++c) {
      const MeshVertex& v = meshes.vertices[range.vertexOffset + meshes.indices[range.firstIndex + i + c]];
      vec3 p{v.position[0], v.position[1], v.position[2]}, n{v.normal[0], v.normal[1], v.normal[2]};
      t.p[c] = gpu::placeInstancePoint(vec3{}, up, yaw, size, p);
      t.n[c] = normalized(gpu::placeInstanceNormal(up, yaw, size, n));
      if (c == 0) t.foliage = v.position[3] > 0.5f;
    }
    out.push_back(t);
  }
  return out;
}

// Sums of one orthographic raster of the triangles seen along -toEye (every pixel's nearest
// triangle, its interpolated normal turned toward the eye as vegetation.frag does for back
// faces), added to `sum` (the entry's fields as sums over pixels, area in m^2).
void rasterize(const std::vector<Triangle>& tris, vec3 toEye, vec3 sun, FarLookEntry& sum) {
  vec3 right = normalized(cross(vec3{0, 1, 0}, toEye));
  vec3 upv = cross(toEye, right);
  float x0 = 1e30f, x1 = -1e30f, y0 = 1e30f, y1 = -1e30f;
  for (const Triangle& t : tris)
    if (t.own)
      for (const vec3& p : t.p) {
        x0 = std::min(x0, dot(p, right)), x1 = std::max(x1, dot(p, right));
        y0 = std::min(y0, dot(p, upv)), y1 = std::max(y1, dot(p, upv));
      }
  if (!(x1 > x0) || !(y1 > y0)) return;
  const uint32_t n = kFarLookPixels;
  const float pixel = std::max(x1 - x0, y1 - y0) / float(n);
  std::vector<float> depth(size_t(n) * n, -std::numeric_limits<float>::infinity());
  std::vector<vec3> normal(size_t(n) * n);
  std::vector<uint8_t> leaf(size_t(n) * n, 0), own(size_t(n) * n, 0);
  for (const Triangle& t : tris) {
    float sx[3], sy[3], sz[3];
    for (int c = 0; c < 3; ++c) {
      sx[c] = (dot(t.p[c], right) - x0) / pixel;
      sy[c] = (dot(t.p[c], upv) - y0) / pixel;
      sz[c] = dot(t.p[c], toEye);  // larger: nearer the eye
    }
    float area = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    if (std::abs(area) < 1e-12f) continue;
    int ix0 = std::max(0, int(std::floor(std::min({sx[0], sx[1], sx[2]}))));
    int ix1 = std::min(int(n) - 1, int(std::ceil(std::max({sx[0], sx[1], sx[2]}))));
    int iy0 = std::max(0, int(std::floor(std::min({sy[0], sy[1], sy[2]}))));
    int iy1 = std::min(int(n) - 1, int(std::ceil(std::max({sy[0], sy[1], sy[2]}))));
    for (int y = iy0; y <= iy1; ++y)
      for (int x = ix0; x <= ix1; ++x) {
        float px = float(x) + 0.5f, py = float(y) + 0.5f;
        // barycentric weights of the pixel centre
        float w0 = ((sx[1] - px) * (sy[2] - py) - (sx[2] - px) * (sy[1] - py)) / area;
        float w1 = ((sx[2] - px) * (sy[0] - py) - (sx[0] - px) * (sy[2] - py)) / area;
        float w2 = 1.0f - w0 - w1;
        if (w0 < 0 || w1 < 0 || w2 < 0) continue;
        float z = w0 * sz[0] + w1 * sz[1] + w2 * sz[2];
        size_t i = size_t(y) * n + size_t(x);
        if (z <= depth[i]) continue;
        depth[i] = z;
        normal[i] = t.n[0] * w0 + t.n[1] * w1 + t.n[2] * w2;
        leaf[i] = t.foliage;
        own[i] = t.own;
      }
  }
  const float pixelArea = pixel * pixel;
  for (size_t i = 0; i < depth.size(); ++i) {
    if (!std::isfinite(depth[i]) || !own[i]) continue;
    vec3 nn = normalized(normal[i]);
    if (dot(nn, toEye) < 0) nn = nn * -1.0f;  // the face seen is lit from its own side
    float s = dot(nn, sun);
    sum.area += pixelArea;
    if (leaf[i]) {
      sum.foliage += pixelArea;
      if (s > 0) {
        sum.lit += pixelArea;
        sum.litSun += pixelArea * s;
        sum.litSunSq += pixelArea * s * s;
        sum.litUp += pixelArea * nn.y;
      } else {
        sum.shadeBack -= pixelArea * s;
        sum.shadeUp += pixelArea * nn.y;
      }
    } else {
      sum.barkSun += pixelArea * std::max(s, 0.0f);
      sum.barkUp += pixelArea * nn.y;
    }
  }
}

// Sums to means: the light terms over their part's area, area over the crown disc.
FarLookEntry finish(const FarLookEntry& s, float disc) {
  FarLookEntry e;
  if (!(s.area > 0)) return e;
  const float bark = s.area - s.foliage, shade = s.foliage - s.lit;
  e.area = s.area / disc;
  e.foliage = s.foliage / s.area;
  if (s.foliage > 0) e.lit = s.lit / s.foliage;
  if (s.lit > 0) e.litSun = s.litSun / s.lit, e.litSunSq = s.litSunSq / s.lit, e.litUp = s.litUp / s.lit;
  if (shade > 0) e.shadeBack = s.shadeBack / shade, e.shadeUp = s.shadeUp / shade;
  if (bark > 0) e.barkSun = s.barkSun / bark, e.barkUp = s.barkUp / bark;
  return e;
}

// The sums of `e` (means) over an area `area` of which `foliage` is foliage.
void addScaled(FarLookEntry& sum, const FarLookEntry& e, float area) {
  const float foliage = area * e.foliage, bark = area - foliage, lit = foliage * e.lit, shade = foliage - lit;
  sum.area += area;
  sum.foliage += foliage;
  sum.lit += lit;
  sum.litSun += lit * e.litSun, sum.litSunSq += lit * e.litSunSq, sum.litUp += lit * e.litUp;
  sum.shadeBack += shade * e.shadeBack, sum.shadeUp += shade * e.shadeUp;
  sum.barkSun += bark * e.barkSun, sum.barkUp += bark * e.barkUp;
}

}  // namespace

vec3 farLookDirection(uint32_t elevation, uint32_t azimuth) {
  const float e = (float(elevation) + 0.5f) / float(gpu::FAR_LOOK_ELEVATIONS) * 0.5f * kPi;
  const float a = (float(azimuth) + 0.5f) / float(gpu::FAR_LOOK_AZIMUTHS) * kPi;
  return {std::cos(e) * std::cos(a), std::sin(e), std::cos(e) * std::sin(a)};
}

std::vector<FarLookEntry> speciesFarLook(const MeshSet& meshes, uint32_t species, float crownRadius,
                                         float meshHeight, float sunElevationDeg) {
  std::vector<FarLookEntry> out(size_t(gpu::FAR_LOOK_ELEVATIONS) * gpu::FAR_LOOK_AZIMUTHS);
  if (species >= meshes.species.size() || !(crownRadius > 0) || !(meshHeight > 0)) return out;
  const MeshRange& range = meshes.species[species].lods[gpu::LOD_COUNT - 1];  // what far instances draw
  const float se = sunElevationDeg * kPi / 180.0f;
  const vec3 sun{std::cos(se), std::sin(se), 0};
  const vec3 size{crownRadius, meshHeight, crownRadius};
  std::vector<std::vector<Triangle>> turned;
  for (uint32_t y = 0; y < kFarLookYaws; ++y)
    turned.push_back(placedTriangles(meshes, range, size, 2 * kPi * float(y) / float(kFarLookYaws)));
  // The parts' light is taken from the plant among neighbours: what the eye sees of a stand is
  // mostly its crowns' upper, outer parts, the lower ones hidden by the trees in front (a spruce
  // stand seen from 30 degrees reads 2-18 % brighter than its trees one by one). Per yaw, six
  // neighbours about kFarLookStandSpacing crown radii away, each turned to another yaw; the area
  // stays the plant's own (the cover's Beer-Lambert counts the neighbours). The same stands
  // serve every direction.
  std::vector<std::vector<Triangle>> stands;
  for (uint32_t y = 0; y < kFarLookYaws; ++y) {
    std::vector<Triangle> all = turned[y];
    for (uint32_t j = 0; j < 6; ++j) {
      const float angle = 2 * kPi * (float(j) + 0.37f * float(y)) / 6.0f;
      const float d = kFarLookStandSpacing * crownRadius * (0.85f + 0.075f * float((j * 7 + y * 3) % 5));
      for (Triangle t : turned[(y + j + 1) % kFarLookYaws]) {
        t.own = false;
        for (vec3& p : t.p) p = p + vec3{d * std::cos(angle), 0, d * std::sin(angle)};
        all.push_back(t);
      }
    }
    stands.push_back(std::move(all));
  }
  const float disc = kPi * crownRadius * crownRadius;
  for (uint32_t e = 0; e < gpu::FAR_LOOK_ELEVATIONS; ++e)
    for (uint32_t a = 0; a < gpu::FAR_LOOK_AZIMUTHS; ++a) {
      FarLookEntry alone, stand;
      for (const std::vector<Triangle>& tris : turned) rasterize(tris, farLookDirection(e, a), sun, alone);
      for (const std::vector<Triangle>& tris : stands) rasterize(tris, farLookDirection(e, a), sun, stand);
      // the sums of all yaws: their mean area over the disc, alone; the light among neighbours
      FarLookEntry& entry = out[size_t(e) * gpu::FAR_LOOK_AZIMUTHS + a];
      entry = finish(stand, disc * float(kFarLookYaws));
      entry.area = finish(alone, disc * float(kFarLookYaws)).area;
    }
  return out;
}

uint32_t farLookOf(const SpeciesRecord& s) {
  const uint32_t kind = std::min<uint32_t>(s.kind, gpu::KIND_COUNT - 1);
  return kind == uint32_t(SpeciesKind::Tree) && speciesMeshForm(s) == MeshForm::Conifer ? gpu::FAR_LOOK_CONIFER : kind;
}

std::vector<FarLookEntry> farLookTable(const MeshSet& meshes, const std::vector<SpeciesRecord>& species,
                                       const std::vector<uint64_t>& counts, float sunElevationDeg,
                                       std::vector<float>* sideArea) {
  constexpr size_t kDirections = size_t(gpu::FAR_LOOK_ELEVATIONS) * gpu::FAR_LOOK_AZIMUTHS;
  // per look and direction: weighted sums (weight = the species' crown area in the world)
  std::vector<FarLookEntry> sums(gpu::FAR_LOOKS * kDirections);
  std::vector<double> weight(gpu::FAR_LOOKS, 0.0), speciesWeight(species.size(), 0.0);
  for (uint32_t s = 0; s < species.size(); ++s) {
    const SpeciesRecord& r = species[s];
    if (r.kind >= gpu::KIND_COUNT) continue;
    const double count = counts.empty() ? 1.0 : s < counts.size() ? double(counts[s]) : 0.0;
    const double scale = 0.5 * (double(r.scaleMin) + double(r.scaleMax));
    speciesWeight[s] = count * double(r.crownRadius) * double(r.crownRadius) * scale * scale;
  }
  // Each species' table on its own (about 40 ms each on this VM, at load): spread over the
  // cores, then summed in species order, so the table is the same whatever the thread count.
  std::vector<std::vector<FarLookEntry>> own(species.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t s; (s = next++) < species.size();)
      if (speciesWeight[s] > 0)
        own[s] = speciesFarLook(meshes, uint32_t(s), species[s].crownRadius, species[s].meshHeight, sunElevationDeg);
  };
  std::vector<std::thread> threads;
  const size_t helpers = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), species.size()) - 1;
  for (size_t t = 0; t < helpers && species.size() > 1; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (sideArea) {
    sideArea->assign(species.size(), 0.0f);
    for (size_t s = 0; s < species.size(); ++s) {
      if (own[s].empty()) continue;
      double sum = 0;
      uint32_t n = 0;
      for (uint32_t e = 0; e < gpu::FAR_LOOK_ELEVATIONS; ++e)
        if (farLookDirection(e, 0).y < std::sin(kPi / 4))
          for (uint32_t a = 0; a < gpu::FAR_LOOK_AZIMUTHS; ++a, ++n) sum += double(own[s][e * gpu::FAR_LOOK_AZIMUTHS + a].area);
      (*sideArea)[s] = n ? float(sum / n) : 0.0f;
    }
  }
  for (uint32_t s = 0; s < species.size(); ++s) {
    if (!(speciesWeight[s] > 0)) continue;
    const uint32_t look = farLookOf(species[s]);
    weight[look] += speciesWeight[s];
    for (size_t d = 0; d < kDirections; ++d)
      addScaled(sums[look * kDirections + d], own[s][d], float(speciesWeight[s]) * own[s][d].area);
  }
  std::vector<FarLookEntry> out(sums.size());
  for (uint32_t k = 0; k < gpu::FAR_LOOKS; ++k)
    for (size_t d = 0; d < kDirections; ++d) {
      const FarLookEntry& s = sums[k * kDirections + d];
      if (!(weight[k] > 0) || !(s.area > 0)) continue;
      // the same sums-to-means as one species, the crown area's weight standing for the disc
      out[k * kDirections + d] = finish(s, float(weight[k]));
    }
  return out;
}

}  // namespace eco::render
