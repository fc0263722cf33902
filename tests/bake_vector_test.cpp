// Vector exclusions end to end: a GeoJSON of random roads and areas (some with holes, some
// limited to a kind or a species); every instance of the bake is checked against the file's
// geometry with routines written here (distance to a segment by cases, point in polygon by
// winding number), not the bake's own; bad GeoJSON files are one-line exit-2 errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bake/bake.h"
#include "core/error.h"
#include "terrain/png16.h"
#include "test_support.h"
#include "tileio/tileio.h"

using eco::test::TempDir;

namespace {

constexpr int kN = 257;
constexpr double kExtent = 1024.0;

struct Pt {
  double x, z;
};

// Distance from p to segment ab, by cases: beyond either end the distance to that end, else
// the perpendicular distance |cross| / |ab|.
double distanceToSegment(Pt p, Pt a, Pt b) {
  const double abx = b.x - a.x, abz = b.z - a.z;
  const double apx = p.x - a.x, apz = p.z - a.z, bpx = p.x - b.x, bpz = p.z - b.z;
  if (abx * apx + abz * apz <= 0) return std::hypot(apx, apz);
  if (abx * bpx + abz * bpz >= 0) return std::hypot(bpx, bpz);
  return std::fabs(abx * apz - abz * apx) / std::hypot(abx, abz);
}

// Winding number of a closed ring around p (Sunday's algorithm).
int winding(const std::vector<Pt>& ring, Pt p) {
  int wn = 0;
  for (size_t i = 0; i + 1 < ring.size(); ++i) {
    const Pt a = ring[i], b = ring[i + 1];
    const double side = (b.x - a.x) * (p.z - a.z) - (p.x - a.x) * (b.z - a.z);
    if (a.z <= p.z) {
      if (b.z > p.z && side > 0) ++wn;
    } else if (b.z <= p.z && side < 0) {
      --wn;
    }
  }
  return wn;
}

struct Road {
  std::vector<Pt> line;
  double width;
  int group;
};
struct Area {
  std::vector<std::vector<Pt>> rings;  // outer counter-clockwise, holes clockwise (in x-z as drawn)
  int group;
};

nlohmann::json positions(const std::vector<Pt>& pts) {
  nlohmann::json a = nlohmann::json::array();
  for (Pt p : pts) a.push_back({p.x, p.z});
  return a;
}

// A star-shaped ring around c: vertices at increasing angles, so it never crosses itself.
std::vector<Pt> starRing(std::mt19937& rng, Pt c, double r0, double r1, int n, bool clockwise) {
  std::uniform_real_distribution<double> radius(r0, r1);
  std::vector<Pt> ring;
  for (int k = 0; k < n; ++k) {
    const double a = (clockwise ? -1.0 : 1.0) * 2.0 * 3.14159265358979 * k / n;
    const double r = radius(rng);
    ring.push_back({c.x + r * std::cos(a), c.z + r * std::sin(a)});
  }
  ring.push_back(ring.front());
  return ring;
}

const char* kSpecies = R"([
  {"name": "oak", "kind": "tree", "radius": 4, "max_radius_factor": 3, "footprint": 1.5,
   "elevation": {"min": 0, "opt_low": 0, "opt_high": 1000, "max": 1100}, "moisture": {"optimum": 0.5, "tolerance": 1},
   "mesh": {"height": 15, "crown_radius": 4}},
  {"name": "grass", "kind": "grass", "radius": 1.5, "max_radius_factor": 3, "footprint": 0.2,
   "elevation": {"min": 0, "opt_low": 0, "opt_high": 1000, "max": 1100}, "moisture": {"optimum": 0.5, "tolerance": 1},
   "mesh": {"height": 0.5, "crown_radius": 0.3}}
])";

std::string writeConfig(const TempDir& dir, const std::string& vectors) {
  eco::writePng16(dir.file("h.png"), kN, kN, std::vector<uint16_t>(size_t(kN) * kN, 30000).data());
  const std::string text = R"({"name": "roads", "terrain": {"heightmap": "h.png", "cell_size": 4, "min_elevation": 0,
    "max_elevation": 1000}, "tiling": {"tile_size": 64}, "seed": 3, "vector_exclusions": )" + vectors +
                           R"(, "species": )" + kSpecies + "}";
  std::ofstream(dir.file("c.json")) << text;
  return dir.file("c.json");
}

}  // namespace

TEST(BakeVector, NoInstanceInsideAnAreaOrCloserToARoadThanAllowed) {
  TempDir dir;
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> coord(40.0, kExtent - 40.0), step(-60.0, 60.0), width(2.0, 12.0);
  std::vector<Road> roads;
  std::vector<Area> areas;
  // File 0, all species: 60 winding roads (a MultiLineString among them) and 8 areas, two
  // with a hole. File 1, trees only: 10 roads. File 2, species "grass" only: 3 areas.
  nlohmann::json files[3];
  for (auto& f : files) f = {{"type", "FeatureCollection"}, {"features", nlohmann::json::array()}};
  auto addRoad = [&](int group) {
    Road r{{}, width(rng), group};
    Pt p{coord(rng), coord(rng)};
    for (int k = 0; k < 6; ++k) {
      r.line.push_back(p);
      p = {std::clamp(p.x + step(rng), 0.0, kExtent), std::clamp(p.z + step(rng), 0.0, kExtent)};
    }
    roads.push_back(r);
    files[group]["features"].push_back({{"type", "Feature"},
                                        {"properties", {{"width", r.width}, {"name", "road"}}},
                                        {"geometry", {{"type", "LineString"}, {"coordinates", positions(r.line)}}}});
  };
  for (int k = 0; k < 58; ++k) addRoad(0);
  {
    Road a{{{10, 500}, {200, 520}}, 5, 0}, b{{{600, 30}, {620, 300}, {640, 310}}, 5, 0};
    roads.push_back(a);
    roads.push_back(b);
    files[0]["features"].push_back({{"type", "Feature"}, {"properties", {{"width", 5}}},
                                    {"geometry", {{"type", "MultiLineString"},
                                                  {"coordinates", {positions(a.line), positions(b.line)}}}}});
  }
  for (int k = 0; k < 10; ++k) addRoad(1);
  auto addArea = [&](int group, bool hole) {
    std::uniform_real_distribution<double> centre(60.0, kExtent - 60.0);
    const Pt c{centre(rng), centre(rng)};
    Area a{{starRing(rng, c, 25, 45, 12, false)}, group};
    if (hole) a.rings.push_back(starRing(rng, c, 8, 15, 7, true));
    nlohmann::json rings = nlohmann::json::array();
    for (const auto& r : a.rings) rings.push_back(positions(r));
    areas.push_back(a);
    files[group]["features"].push_back({{"type", "Feature"}, {"properties", nullptr},
                                        {"geometry", {{"type", "Polygon"}, {"coordinates", rings}}}});
  };
  for (int k = 0; k < 8; ++k) addArea(0, k < 2);
  for (int k = 0; k < 3; ++k) addArea(2, false);
  const char* names[3] = {"v0.geojson", "v1.geojson", "v2.geojson"};
  for (int f = 0; f < 3; ++f) std::ofstream(dir.file(names[f])) << files[f].dump();
  const std::string config = writeConfig(dir, R"([{"file": "v0.geojson"}, {"file": "v1.geojson", "kinds": ["tree"]},
      {"file": "v2.geojson", "species": ["grass"]}])");

  const eco::World world = eco::loadWorld(config);
  const float footprint[2] = {1.5f, 0.2f};
  auto applies = [](int group, uint16_t species) { return group == 0 || (group == 1 && species == 0) || (group == 2 && species == 1); };
  size_t count[2] = {0, 0}, nearRoad[2] = {0, 0}, grassOnTreeRoads = 0, inHoles = 0;
  for (const eco::TileData& t : eco::bakeInMemory(world, 2))
    for (const eco::Instance& in : t.instances) {
      const Pt p{double(in.position.x), double(in.position.z)};
      ++count[in.species];
      for (const Road& r : roads) {
        const double allowed = r.width / 2 + double(footprint[in.species]);
        double d = 1e30;
        for (size_t k = 0; k + 1 < r.line.size(); ++k) d = std::min(d, distanceToSegment(p, r.line[k], r.line[k + 1]));
        if (!applies(r.group, in.species)) {
          grassOnTreeRoads += r.group == 1 && d < allowed;
          continue;
        }
        ASSERT_GE(d, allowed - 1e-9) << "species " << in.species << " at " << p.x << "," << p.z << " on a road of width "
                                      << r.width;
        nearRoad[in.species] += d < allowed + 1.0;
      }
      for (const Area& a : areas) {
        int wn = 0;
        for (const auto& ring : a.rings) wn += winding(ring, p);
        if (!applies(a.group, in.species)) continue;
        ASSERT_EQ(wn, 0) << "species " << in.species << " at " << p.x << "," << p.z << " inside an area";
        if (a.rings.size() > 1 && winding(a.rings[0], p) != 0) ++inHoles;
      }
    }
  // Vegetation reaches right up to the keep-out (not a coarse raster's margin), grows in the
  // holes, and the trees-only roads do not stop the grass.
  EXPECT_GT(count[0], 10000u);
  EXPECT_GT(nearRoad[0], 50u);
  EXPECT_GT(nearRoad[1], 500u);
  EXPECT_GT(inHoles, 20u);
  EXPECT_GT(grassOnTreeRoads, 100u);

  // Hashed into the manifest; shown by `masks`.
  auto r = eco::test::runTool("ecobake", "bake " + config + " -q -o " + dir.file("out"));
  ASSERT_EQ(r.code, 0) << r.output;
  const eco::Manifest m = eco::readManifest(dir.file("out"));
  ASSERT_EQ(m.inputHashes.size(), 3u);
  EXPECT_EQ(m.inputHashes[2].first, "/vector_exclusions/2/file");
}

// A road network of 10,000 segments: the bucket index keeps the bake's cost near a plain bake's.
TEST(BakeVector, TenThousandSegmentsStayFast) {
  TempDir dir;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> coord(10.0, kExtent - 10.0), step(-8.0, 8.0);
  nlohmann::json fc = {{"type", "FeatureCollection"}, {"features", nlohmann::json::array()}};
  for (int road = 0; road < 100; ++road) {
    std::vector<Pt> line;
    Pt p{coord(rng), coord(rng)};
    for (int k = 0; k <= 100; ++k) {
      line.push_back(p);
      p = {std::clamp(p.x + step(rng), 0.0, kExtent), std::clamp(p.z + step(rng), 0.0, kExtent)};
    }
    fc["features"].push_back({{"type", "Feature"}, {"properties", {{"width", 3}}},
                              {"geometry", {{"type", "LineString"}, {"coordinates", positions(line)}}}});
  }
  std::ofstream(dir.file("net.geojson")) << fc.dump();
  const eco::World world = eco::loadWorld(writeConfig(dir, R"([{"file": "net.geojson"}])"));
  EXPECT_EQ(world.shapes.segments.size(), 10000u);
  size_t buckets = 0;
  for (size_t c = 0; c + 1 < world.shapes.segmentStart.size(); ++c)
    buckets = std::max<size_t>(buckets, world.shapes.segmentStart[c + 1] - world.shapes.segmentStart[c]);
  EXPECT_LT(buckets, 200u);  // the fullest cell holds a few of the 10,000
}

// A world polygon with 2,500 holes in a grid (rows of holes: what the old z-band check
// compared pair by pair, O(N^1.5)): valid as it is; one hole moved onto its neighbour, or one
// hole's edge crossing the outer ring, is found wherever it lies.
TEST(BakeVector, ManyHolesAreCheckedPairByPairWhereTheyMeet) {
  TempDir dir;
  const double extent = double(kN - 1) * 4;
  auto world = [&](int moved, double shift) {
    nlohmann::json rings = nlohmann::json::array();
    rings.push_back(positions({{1, 1}, {extent - 1, 1}, {extent - 1, extent - 1}, {1, extent - 1}, {1, 1}}));
    const int g = 50;
    const double step = (extent - 20) / g;
    for (int k = 0; k < g * g; ++k) {
      double cx = 10 + (k % g + 0.5) * step, cz = 10 + (k / g + 0.5) * step;
      if (k == moved) cx += shift;
      const double h = step * 0.3;
      rings.push_back(positions({{cx - h, cz - h}, {cx - h, cz + h}, {cx + h, cz + h}, {cx + h, cz - h}, {cx - h, cz - h}}));
    }
    nlohmann::json fc = {{"type", "FeatureCollection"},
                         {"features", {{{"type", "Feature"}, {"properties", nlohmann::json::object()},
                                        {"geometry", {{"type", "Polygon"}, {"coordinates", rings}}}}}}};
    std::ofstream(dir.file("holes.geojson"), std::ios::trunc) << fc.dump();
    return eco::test::runTool("ecobake", "validate " + writeConfig(dir, R"([{"file": "holes.geojson"}])"));
  };
  const double step = (extent - 20) / 50;
  auto r = world(-1, 0);
  EXPECT_EQ(r.code, 0) << r.output;
  for (int moved : {0, 1234, 2498}) {
    r = world(moved, step * 0.5);  // half a cell east: its east edge crosses the next hole's west edge
    EXPECT_EQ(r.code, 2) << moved << ": " << r.output;
    EXPECT_NE(r.output.find("self-intersecting polygon"), std::string::npos) << moved << ": " << r.output;
  }
  r = world(2499, step * 0.67);  // the last hole of the last row crosses the outer ring's east side (to x = 1023.5)
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("self-intersecting polygon"), std::string::npos) << r.output;
}

TEST(BakeVector, BadGeoJsonIsAOneLineError) {
  TempDir dir;
  struct Case {
    std::string geojson, expect;
  };
  const std::string road = R"({"type": "Feature", "properties": {"width": 4}, "geometry": {"type": "LineString", "coordinates": )";
  const std::string area = R"({"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": )";
  auto fc = [](const std::string& feature) { return R"({"type": "FeatureCollection", "features": [)" + feature + "]}"; };
  const Case cases[] = {
      {fc(road + "[[10, 10], [2000, 10]]}}"), "/features/0/geometry/coordinates/1: position [2000, 10] lies outside the world [0, 1024] x [0, 1024] m"},
      {fc(road + "[[10, 10], [-1, 10]]}}"), "/features/0/geometry/coordinates/1: position [-1, 10] lies outside the world"},
      {fc(road + "[[10, 10], [20, \"x\"]]}}"), "/features/0/geometry/coordinates/1: expected a position [x, z] of numbers"},
      {fc(road + "[[10, 10]]}}"), "/features/0/geometry/coordinates: a LineString needs at least 2 positions"},
      {fc(R"({"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[1, 1], [5, 5]]}})"),
       "/features/0/properties/width: a road (LineString) needs its width in metres"},
      {fc(R"({"type": "Feature", "properties": {"width": -2}, "geometry": {"type": "LineString", "coordinates": [[1, 1], [5, 5]]}})"),
       "/features/0/properties/width: must be in (0, 100000], got -2"},
      {fc(area + "[[[10, 10], [100, 100], [100, 10], [10, 100], [10, 10]]]}}"),
       "/features/0/geometry/coordinates: self-intersecting polygon"},
      {fc(area + "[[[10, 10], [100, 10], [100, 100], [10, 100]]]}}"),
       "/features/0/geometry/coordinates/0: the ring is not closed"},
      {fc(area + "[[[10, 10], [100, 10], [10, 10]]]}}"), "/features/0/geometry/coordinates/0: a linear ring needs at least 4 positions"},
      {fc(area + "[[[10, 10], [100, 10], [100, 100], [10, 100], [10, 10]], [[50, 50], [150, 50], [150, 60], [50, 50]]]}}"),
       "/features/0/geometry/coordinates: self-intersecting polygon"},
      {fc(R"({"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 1]}})"),
       "/features/0/geometry/type: unsupported geometry 'Point'"},
      {R"({"type": "Topology"})", "/type: expected \"FeatureCollection\" or \"Feature\", got 'Topology'"},
      {R"({"type": "FeatureCollection", "features": [)", "invalid JSON"},
      {"[1, 2]", "expected a GeoJSON object, got an array"},
      // a hole outside its ring (issue #30: it became an extra exclusion)
      {fc(area + "[[[10, 10], [100, 10], [100, 100], [10, 100], [10, 10]], [[200, 200], [300, 200], [300, 300], [200, 200]]]}}"),
       "/features/0/geometry/coordinates/1: the hole lies outside its polygon's outer ring"},
      // one JSON policy (issue #30): a NUL byte hid a second, world-sized area after it; a
      // duplicate "features" was resolved silently
      {fc("") + std::string(1, '\0') + fc(area + "[[[0, 0], [1024, 0], [1024, 1024], [0, 1024], [0, 0]]]}}"),
       "byte 45 is a NUL byte"},
      {R"({"type": "FeatureCollection", "features": [], "features": [)" + area +
           "[[[0, 0], [1024, 0], [1024, 1024], [0, 1024], [0, 0]]]}}]}",
       "/features: duplicate key"},
  };
  for (const Case& c : cases) {
    std::ofstream(dir.file("bad.geojson"), std::ios::trunc) << c.geojson;
    const std::string config = writeConfig(dir, R"([{"file": "bad.geojson"}])");
    std::vector<std::string> commands(2);
    commands[0].append("validate ").append(config);
    commands[1].append("bake -q ").append(config).append(" -o ").append(dir.file("o"));
    for (const std::string& command : commands) {
      auto r = eco::test::runTool("ecobake", command);
      SCOPED_TRACE(c.geojson + " / " + command);
      EXPECT_EQ(r.code, 2) << r.output;
      EXPECT_NE(r.output.find(config + ": /vector_exclusions/0/file: " + dir.file("bad.geojson") + ": "), std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find(c.expect), std::string::npos) << r.output;
      EXPECT_LE(eco::test::lineCount(r.output), 2u) << r.output;
    }
  }
  // A hole inside its ring (any orientation, any vertex order) is fine.
  for (const char* hole : {"[[40, 40], [60, 40], [60, 60], [40, 60], [40, 40]]", "[[40, 40], [40, 60], [60, 60], [40, 40]]"}) {
    std::ofstream(dir.file("ok.geojson"), std::ios::trunc)
        << fc(area + "[[[10, 10], [100, 10], [100, 100], [10, 100], [10, 10]], " + std::string(hole) + "]}}");
    auto r = eco::test::runTool("ecobake", "validate " + writeConfig(dir, R"([{"file": "ok.geojson"}])"));
    EXPECT_EQ(r.code, 0) << hole << "\n" << r.output;
  }
  // Unknown species and kinds in the filter, a missing file: named by their fields.
  auto r = eco::test::runTool("ecobake", "validate " + writeConfig(dir, R"([{"file": "none.geojson", "species": ["oaak"], "kinds": ["bush"]}])"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("/vector_exclusions/0/kinds/0: expected one of tree, shrub, grass, ground_cover, got 'bush'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/vector_exclusions/0/species/0: unknown species 'oaak' (did you mean 'oak'?)"), std::string::npos) << r.output;
}
