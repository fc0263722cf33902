// Vector exclusions: GeoJSON roads (LineString, MultiLineString with a "width" property) and
// areas (Polygon, MultiPolygon) in world metres, checked as they are read (positions finite and
// inside the world, rings closed and simple), then indexed in a bucket grid so that a query
// reads only the geometry near it. Exact: distances and the even-odd rule in doubles.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "core/file_io.h"
#include "core/json.h"

namespace eco {
namespace {

using Problems = std::vector<ConfigProblem>;
// A JSON document takes about ten times its text in memory.
constexpr uint64_t kMaxGeoJsonBytes = uint64_t(64) << 20;
constexpr size_t kMaxProblemsPerFile = 20;
constexpr int kMaxCellsPerSide = 1024;
constexpr int kMaxBands = 4096;
// Pairs of edges compared for self-intersection, per file: far beyond any real outlines
// (a 100,000-vertex lake needs a few million), and a bound on the time of a hostile file.
constexpr double kMaxEdgePairs = 1e9;
// Entries of the bucket grid and of an area's bands: the grid (or the bands) get coarser
// until the geometry fits, so huge or many overlapping shapes cannot blow memory up.
constexpr double kMaxGridEntries = 64e6;

struct P2 {
  double x = 0, z = 0;
};

double cross(P2 o, P2 a, P2 b) { return (a.x - o.x) * (b.z - o.z) - (a.z - o.z) * (b.x - o.x); }
bool onSegment(P2 a, P2 b, P2 p) {
  return std::min(a.x, b.x) <= p.x && p.x <= std::max(a.x, b.x) && std::min(a.z, b.z) <= p.z && p.z <= std::max(a.z, b.z);
}
// Closed segments ab and cd share a point.
bool segmentsTouch(P2 a, P2 b, P2 c, P2 d) {
  const double d1 = cross(c, d, a), d2 = cross(c, d, b), d3 = cross(a, b, c), d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (d1 == 0 && onSegment(c, d, a)) || (d2 == 0 && onSegment(c, d, b)) || (d3 == 0 && onSegment(a, b, c)) ||
         (d4 == 0 && onSegment(a, b, d));
}

double segmentDistance2(const ExclusionShapes::Segment& s, double x, double z) {
  const double dx = s.bx - s.ax, dz = s.bz - s.az;
  const double len2 = dx * dx + dz * dz;
  double t = len2 > 0 ? ((x - s.ax) * dx + (z - s.az) * dz) / len2 : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  const double px = s.ax + t * dx - x, pz = s.az + t * dz - z;
  return px * px + pz * pz;
}

// Reads one GeoJSON file into `shapes` (group = its index), reporting problems with JSON
// pointers inside the file.
class GeoJsonReader {
 public:
  GeoJsonReader(double extentX, double extentZ, uint32_t group, ExclusionShapes& shapes, std::vector<JsonProblem>& problems)
      : extentX_(extentX), extentZ_(extentZ), group_(group), shapes_(shapes), problems_(problems) {}

  void read(const Json& root) {
    if (!root.is_object()) return report("", "expected a GeoJSON object, got " + jsonTypeName(root));
    const auto type = root.find("type");
    if (type == root.end() || !type->is_string())
      return report("/type", "expected \"FeatureCollection\" or \"Feature\"");
    if (*type == "Feature") return feature(root, "");
    if (*type != "FeatureCollection")
      return report("/type", "expected \"FeatureCollection\" or \"Feature\", got '" + type->get<std::string>() + "'");
    const auto features = root.find("features");
    if (features == root.end() || !features->is_array()) return report("/features", "expected an array of features");
    for (size_t i = 0; i < features->size() && problems_.size() < kMaxProblemsPerFile; ++i)
      feature((*features)[i], jsonPointer("/features", i));
  }

 private:
  void report(const std::string& path, const std::string& reason) {
    if (problems_.size() < kMaxProblemsPerFile) problems_.push_back({path, reason});
  }

  void feature(const Json& f, const std::string& path) {
    if (!f.is_object() || !f.contains("type") || f["type"] != "Feature")
      return report(path, "expected a GeoJSON Feature object");
    const auto geometry = f.find("geometry");
    if (geometry == f.end() || !geometry->is_object())
      return report(jsonPointer(path, "geometry"), "expected a geometry object");
    const std::string gpath = jsonPointer(path, "geometry");
    const auto type = geometry->find("type");
    const auto coords = geometry->find("coordinates");
    if (type == geometry->end() || !type->is_string()) return report(jsonPointer(gpath, "type"), "expected a string");
    const std::string t = type->get<std::string>();
    if (t != "LineString" && t != "MultiLineString" && t != "Polygon" && t != "MultiPolygon")
      return report(jsonPointer(gpath, "type"),
                    "unsupported geometry '" + t + "' (use LineString, MultiLineString, Polygon or MultiPolygon)");
    const std::string cpath = jsonPointer(gpath, "coordinates");
    if (coords == geometry->end() || !coords->is_array()) return report(cpath, "expected an array");
    if (t == "LineString" || t == "MultiLineString") {
      double width = 0;
      if (!roadWidth(f, path, width)) return;
      if (t == "LineString") return line(*coords, cpath, width / 2);
      for (size_t i = 0; i < coords->size(); ++i) line((*coords)[i], jsonPointer(cpath, i), width / 2);
      return;
    }
    if (t == "Polygon") return polygon(*coords, cpath);
    for (size_t i = 0; i < coords->size(); ++i) polygon((*coords)[i], jsonPointer(cpath, i));
  }

  bool roadWidth(const Json& f, const std::string& path, double& width) {
    const std::string wpath = jsonPointer(jsonPointer(path, "properties"), "width");
    const auto props = f.find("properties");
    if (props == f.end() || !props->is_object() || !props->contains("width")) {
      report(wpath, "a road (LineString) needs its width in metres");
      return false;
    }
    const Json& w = (*props)["width"];
    if (!w.is_number()) {
      report(wpath, "expected a number, got " + jsonTypeName(w));
      return false;
    }
    width = w.get<double>();
    if (!(width > 0 && width <= config_limits::kMaxLength)) {
      report(wpath, "must be in (0, " + describeNumber(config_limits::kMaxLength) + "], got " + describeNumber(width));
      return false;
    }
    return true;
  }

  bool position(const Json& p, const std::string& path, P2& out) {
    if (!p.is_array() || p.size() < 2 || p.size() > 3 || !p[0].is_number() || !p[1].is_number()) {
      report(path, "expected a position [x, z] of numbers");
      return false;
    }
    out = {p[0].get<double>(), p[1].get<double>()};
    if (!std::isfinite(out.x) || !std::isfinite(out.z)) {
      report(path, "position is not finite");
      return false;
    }
    if (out.x < 0 || out.x > extentX_ || out.z < 0 || out.z > extentZ_) {
      report(path, "position [" + describeNumber(out.x) + ", " + describeNumber(out.z) +
                       "] lies outside the world [0, " + describeNumber(extentX_) + "] x [0, " +
                       describeNumber(extentZ_) + "] m");
      return false;
    }
    return true;
  }

  // Positions of a line or ring, consecutive duplicates dropped.
  bool positions(const Json& array, const std::string& path, std::vector<P2>& out) {
    if (!array.is_array()) {
      report(path, "expected an array of positions");
      return false;
    }
    for (size_t i = 0; i < array.size(); ++i) {
      P2 p;
      if (!position(array[i], jsonPointer(path, i), p)) return false;
      if (out.empty() || out.back().x != p.x || out.back().z != p.z) out.push_back(p);
    }
    return true;
  }

  void line(const Json& array, const std::string& path, double halfWidth) {
    std::vector<P2> pts;
    if (!positions(array, path, pts)) return;
    if (array.size() < 2) return report(path, "a LineString needs at least 2 positions");
    if (pts.size() == 1) pts.push_back(pts[0]);  // a zero-length road still keeps a disc clear
    for (size_t i = 0; i + 1 < pts.size(); ++i)
      shapes_.segments.push_back({pts[i].x, pts[i].z, pts[i + 1].x, pts[i + 1].z, halfWidth, group_});
  }

  void polygon(const Json& rings, const std::string& path) {
    if (!rings.is_array() || rings.empty()) return report(path, "expected an array of linear rings");
    ExclusionShapes::Polygon poly;
    poly.group = group_;
    std::vector<size_t> ringStart;
    for (size_t r = 0; r < rings.size(); ++r) {
      const std::string rpath = jsonPointer(path, r);
      std::vector<P2> pts;
      if (!positions(rings[r], rpath, pts)) return;
      if (rings[r].size() < 4) return report(rpath, "a linear ring needs at least 4 positions");
      const Json& first = rings[r][0];
      const Json& last = rings[r][rings[r].size() - 1];
      if (first[0] != last[0] || first[1] != last[1])
        return report(rpath, "the ring is not closed (its first and last positions differ)");
      pts.pop_back();  // the closing duplicate
      if (pts.size() < 3) return report(rpath, "the ring has fewer than 3 distinct positions");
      ringStart.push_back(poly.edges.size());
      for (size_t i = 0; i < pts.size(); ++i) {
        const P2 a = pts[i], b = pts[(i + 1) % pts.size()];
        poly.edges.push_back({a.x, a.z, b.x, b.z});
      }
    }
    ringStart.push_back(poly.edges.size());
    buildBands(poly);
    if (std::string why = selfIntersection(poly, ringStart, pairBudget_); !why.empty()) return report(path, why);
    // Holes inside their ring (GeoJSON, RFC 7946 3.1.6): the rings do not cross (checked
    // above), so a hole whose first position lies inside the outer ring lies inside it whole.
    // Outside, the even-odd rule would make it an extra exclusion. The ray toward +x meets only
    // edges listed in the z band of the hole's first position (the bands the queries use), so
    // each hole costs that band's edges, not the whole outer ring.
    const int bands = int(poly.bandStart.size()) - 1;
    double work = 0;  // edges visited: bounded, as the self-intersection pairs are
    for (size_t r = 1; r + 1 < ringStart.size(); ++r) {
      const ExclusionShapes::Edge& h = poly.edges[ringStart[r]];
      const int b = std::clamp(int((h.az - poly.bandZ0) * poly.invBandHeight), 0, bands - 1);
      work += double(poly.bandStart[size_t(b) + 1] - poly.bandStart[size_t(b)]);
      if (work > 4e8) return report(path, "too many holes times outer edges to check (over 4e8)");
      bool inside = false;
      for (uint32_t k = poly.bandStart[size_t(b)]; k < poly.bandStart[size_t(b) + 1]; ++k) {
        const uint32_t i = poly.bandEdges[k];
        if (i < ringStart[0] || i >= ringStart[1]) continue;  // the outer ring's edges only
        const ExclusionShapes::Edge& e = poly.edges[i];
        if ((e.az > h.az) != (e.bz > h.az) && h.ax < e.ax + (h.az - e.az) / (e.bz - e.az) * (e.bx - e.ax)) inside = !inside;
      }
      if (!inside) return report(jsonPointer(path, r), "the hole lies outside its polygon's outer ring");
    }
    shapes_.polygons.push_back(std::move(poly));
  }

  static void buildBands(ExclusionShapes::Polygon& p) {
    p.minX = p.maxX = p.edges[0].ax;
    p.minZ = p.maxZ = p.edges[0].az;
    for (const ExclusionShapes::Edge& e : p.edges) {
      p.minX = std::min({p.minX, e.ax, e.bx});
      p.maxX = std::max({p.maxX, e.ax, e.bx});
      p.minZ = std::min({p.minZ, e.az, e.bz});
      p.maxZ = std::max({p.maxZ, e.az, e.bz});
    }
    int bands = std::clamp(int(p.edges.size() / 2), 1, kMaxBands);
    const double height = p.maxZ - p.minZ;
    p.bandZ0 = p.minZ;
    auto bandOf = [&](double z) { return std::clamp(int((z - p.bandZ0) * p.invBandHeight), 0, bands - 1); };
    // Fewer bands while edges spanning many of them would list too many entries.
    for (;;) {
      p.invBandHeight = height > 0 ? double(bands) / height : 0.0;
      double entries = 0;
      for (const ExclusionShapes::Edge& e : p.edges)
        entries += double(bandOf(std::max(e.az, e.bz)) - bandOf(std::min(e.az, e.bz)) + 1);
      if (bands == 1 || entries <= 16.0 * double(p.edges.size()) + 1e6) break;
      bands = std::max(1, bands / 2);
    }
    std::vector<uint32_t> count(size_t(bands) + 1, 0);
    for (const ExclusionShapes::Edge& e : p.edges)
      for (int b = bandOf(std::min(e.az, e.bz)); b <= bandOf(std::max(e.az, e.bz)); ++b) ++count[size_t(b) + 1];
    for (size_t b = 1; b < count.size(); ++b) count[b] += count[b - 1];
    p.bandStart = count;
    p.bandEdges.resize(count.back());
    for (uint32_t i = 0; i < p.edges.size(); ++i) {
      const ExclusionShapes::Edge& e = p.edges[i];
      for (int b = bandOf(std::min(e.az, e.bz)); b <= bandOf(std::max(e.az, e.bz)); ++b)
        p.bandEdges[count[size_t(b)]++] = i;
    }
  }

  // "" when no two edges of the polygon meet except neighbours of one ring at their shared
  // vertex; else which edges cross where. Edges that meet share a cell of a square grid over
  // the polygon's box (about one edge per cell): z bands alone held whole rows of a world
  // polygon's holes, O(N^1.5) pairs (81 k holes: 49 s), the grid keeps the pairs near O(N).
  static std::string selfIntersection(const ExclusionShapes::Polygon& p, const std::vector<size_t>& ringStart,
                                      double& budget) {
    const size_t edges = p.edges.size();
    const double width = std::max(p.maxX - p.minX, 1e-9), height = std::max(p.maxZ - p.minZ, 1e-9);
    int side = std::clamp(int(std::ceil(std::sqrt(double(edges)))), 1, 4096);
    auto cellOf = [&](double v, double lo, double extent) {
      return std::clamp(int((v - lo) / extent * side), 0, side - 1);
    };
    struct Box {
      int x0, x1, z0, z1;
    };
    std::vector<Box> boxes(edges);
    // Coarser while long edges would list too many cells.
    for (;;) {
      double entries = 0;
      for (size_t e = 0; e < edges; ++e) {
        const ExclusionShapes::Edge& g = p.edges[e];
        Box& b = boxes[e];
        b = {cellOf(std::min(g.ax, g.bx), p.minX, width), cellOf(std::max(g.ax, g.bx), p.minX, width),
             cellOf(std::min(g.az, g.bz), p.minZ, height), cellOf(std::max(g.az, g.bz), p.minZ, height)};
        entries += double(b.x1 - b.x0 + 1) * double(b.z1 - b.z0 + 1);
      }
      if (side == 1 || entries <= 16.0 * double(edges) + 1e6) break;
      side = std::max(1, side / 2);
    }
    const size_t cells = size_t(side) * size_t(side);
    std::vector<uint32_t> start(cells + 1, 0);
    for (const Box& b : boxes)
      for (int z = b.z0; z <= b.z1; ++z)
        for (int x = b.x0; x <= b.x1; ++x) ++start[size_t(z) * size_t(side) + size_t(x) + 1];
    for (size_t c = 1; c <= cells; ++c) start[c] += start[c - 1];
    std::vector<uint32_t> members(start.back());
    {
      std::vector<uint32_t> fill(start.begin(), start.end() - 1);
      for (uint32_t e = 0; e < edges; ++e)
        for (int z = boxes[e].z0; z <= boxes[e].z1; ++z)
          for (int x = boxes[e].x0; x <= boxes[e].x1; ++x) members[fill[size_t(z) * size_t(side) + size_t(x)]++] = e;
    }
    double pairs = 0;
    for (size_t c = 0; c < cells; ++c) {
      const double n = double(start[c + 1] - start[c]);
      pairs += n * n / 2;
    }
    budget -= pairs;
    if (budget < 0)
      return "polygon of " + std::to_string(p.edges.size()) + " edges is too complex to check for self-intersection " +
             "(with the file's other areas, more than " + describeNumber(kMaxEdgePairs) + " pairs of edges to compare)";
    auto ringOf = [&](size_t e) { return size_t(std::upper_bound(ringStart.begin(), ringStart.end(), e) - ringStart.begin()) - 1; };
    auto adjacent = [&](size_t i, size_t j) {
      const size_t r = ringOf(i);
      if (ringOf(j) != r) return false;
      const size_t first = ringStart[r], n = ringStart[r + 1] - first;
      const size_t a = i - first, c = j - first;
      return (a + 1) % n == c || (c + 1) % n == a;
    };
    for (size_t cell = 0; cell < cells; ++cell)
      for (uint32_t u = start[cell]; u < start[cell + 1]; ++u)
        for (uint32_t v = u + 1; v < start[cell + 1]; ++v) {
          const size_t i = members[u], j = members[v];
          // each pair once: in the cell of the corner where their cell boxes start to overlap
          const Box &bi = boxes[i], &bj = boxes[j];
          const int ox = std::max(bi.x0, bj.x0), oz = std::max(bi.z0, bj.z0);
          if (size_t(oz) * size_t(side) + size_t(ox) != cell) continue;
          const ExclusionShapes::Edge &e = p.edges[i], &f = p.edges[j];
          if (adjacent(i, j)) {
            // Neighbours share one vertex; they may not fold back over each other.
            const P2 a{e.ax, e.az}, bb{e.bx, e.bz}, c{f.ax, f.az}, d{f.bx, f.bz};
            if (cross(a, bb, c) == 0 && cross(a, bb, d) == 0) {
              const bool overlap = (onSegment(a, bb, c) && !(c.x == a.x && c.z == a.z) && !(c.x == bb.x && c.z == bb.z)) ||
                                   (onSegment(a, bb, d) && !(d.x == a.x && d.z == a.z) && !(d.x == bb.x && d.z == bb.z)) ||
                                   (onSegment(c, d, a) && !(a.x == c.x && a.z == c.z) && !(a.x == d.x && a.z == d.z)) ||
                                   (onSegment(c, d, bb) && !(bb.x == c.x && bb.z == c.z) && !(bb.x == d.x && bb.z == d.z));
              if (overlap)
                return "self-intersecting polygon: edges " + std::to_string(i) + " and " + std::to_string(j) +
                       " fold back over each other at [" + describeNumber(e.bx) + ", " + describeNumber(e.bz) + "]";
            }
            continue;
          }
          if (segmentsTouch({e.ax, e.az}, {e.bx, e.bz}, {f.ax, f.az}, {f.bx, f.bz}))
            return "self-intersecting polygon: edge " + std::to_string(i) + " from [" + describeNumber(e.ax) + ", " +
                   describeNumber(e.az) + "] meets edge " + std::to_string(j) + " from [" + describeNumber(f.ax) +
                   ", " + describeNumber(f.az) + "]";
        }
    return {};
  }

  double pairBudget_ = kMaxEdgePairs;
  double extentX_, extentZ_;
  uint32_t group_;
  ExclusionShapes& shapes_;
  std::vector<JsonProblem>& problems_;
};

// Cells of the grid within `reach` of the segment (conservatively: by the cell's centre and
// half diagonal), each visited once.
template <class Visit>
void cellsNear(const ExclusionShapes& s, double ax, double az, double bx, double bz, double reach, Visit visit) {
  const double pad = reach + s.cellSize * 0.7072;
  auto cell = [&](double v, int n) { return std::clamp(int(std::floor(v / s.cellSize)), 0, n - 1); };
  const int x0 = cell(std::min(ax, bx) - reach, s.cellsX), x1 = cell(std::max(ax, bx) + reach, s.cellsX);
  const int z0 = cell(std::min(az, bz) - reach, s.cellsZ), z1 = cell(std::max(az, bz) + reach, s.cellsZ);
  const ExclusionShapes::Segment seg{ax, az, bx, bz, 0, 0};
  for (int cz = z0; cz <= z1; ++cz)
    for (int cx = x0; cx <= x1; ++cx) {
      const double centreX = (cx + 0.5) * s.cellSize, centreZ = (cz + 0.5) * s.cellSize;
      if (segmentDistance2(seg, centreX, centreZ) <= pad * pad) visit(size_t(cz) * size_t(s.cellsX) + size_t(cx));
    }
}

void buildIndex(ExclusionShapes& s, double extentX, double extentZ) {
  const double side = std::max({extentX, extentZ, 1e-3});
  const size_t items = s.segments.size() + s.polygons.size();
  // The largest footprint among the species each group applies to.
  std::vector<double> groupReach(s.groupSpecies.size(), 0.0);
  for (size_t g = 0; g < s.groupSpecies.size(); ++g)
    for (size_t sp = 0; sp < s.groupSpecies[g].size(); ++sp)
      if (s.groupSpecies[g][sp]) groupReach[g] = std::max(groupReach[g], double(s.footprint[sp]));
  // About 4 items per cell; coarser while the shapes' boxes would cover too many cells.
  int n = std::clamp(int(std::ceil(std::sqrt(double(items)) * 2)), 1, kMaxCellsPerSide);
  for (;;) {
    s.cellSize = side / n;
    s.cellsX = std::clamp(int(std::floor(extentX / s.cellSize)) + 1, 1, kMaxCellsPerSide + 1);
    s.cellsZ = std::clamp(int(std::floor(extentZ / s.cellSize)) + 1, 1, kMaxCellsPerSide + 1);
    auto span = [&](double lo, double hi, int count) {
      return double(std::clamp(int(std::floor(hi / s.cellSize)), 0, count - 1) -
                    std::clamp(int(std::floor(lo / s.cellSize)), 0, count - 1) + 1);
    };
    double boxes = 0;
    for (const ExclusionShapes::Segment& g : s.segments) {
      const double reach = g.halfWidth + groupReach[g.group];
      boxes += span(std::min(g.ax, g.bx) - reach, std::max(g.ax, g.bx) + reach, s.cellsX) *
               span(std::min(g.az, g.bz) - reach, std::max(g.az, g.bz) + reach, s.cellsZ);
    }
    for (const ExclusionShapes::Polygon& p : s.polygons) boxes += span(p.minX, p.maxX, s.cellsX) * span(p.minZ, p.maxZ, s.cellsZ);
    if (n == 1 || boxes <= kMaxGridEntries) break;
    n = std::max(1, n / 2);
  }
  const size_t cells = size_t(s.cellsX) * size_t(s.cellsZ);

  // Two passes (count, fill) into compressed rows, in input order: deterministic.
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<uint32_t> segCount(cells + 1, 0), polyCount(cells + 1, 0);
    std::vector<uint32_t>& segFill = pass ? s.segmentStart : segCount;
    std::vector<uint32_t>& polyFill = pass ? s.polygonStart : polyCount;
    std::vector<uint32_t> segCursor, polyCursor;
    if (pass) {
      segCursor.assign(s.segmentStart.begin(), s.segmentStart.end() - 1);
      polyCursor.assign(s.polygonStart.begin(), s.polygonStart.end() - 1);
    }
    for (uint32_t i = 0; i < s.segments.size(); ++i) {
      const ExclusionShapes::Segment& g = s.segments[i];
      cellsNear(s, g.ax, g.az, g.bx, g.bz, g.halfWidth + groupReach[g.group], [&](size_t c) {
        if (pass) s.segmentIds[segCursor[c]++] = i;
        else ++segFill[c + 1];
      });
    }
    for (uint32_t i = 0; i < s.polygons.size(); ++i) {
      const ExclusionShapes::Polygon& p = s.polygons[i];
      auto cell = [&](double v, int count) { return std::clamp(int(std::floor(v / s.cellSize)), 0, count - 1); };
      for (int cz = cell(p.minZ, s.cellsZ); cz <= cell(p.maxZ, s.cellsZ); ++cz)
        for (int cx = cell(p.minX, s.cellsX); cx <= cell(p.maxX, s.cellsX); ++cx) {
          const size_t c = size_t(cz) * size_t(s.cellsX) + size_t(cx);
          if (pass) s.polygonIds[polyCursor[c]++] = i;
          else ++polyFill[c + 1];
        }
    }
    if (!pass) {
      for (size_t c = 1; c <= cells; ++c) {
        segCount[c] += segCount[c - 1];
        polyCount[c] += polyCount[c - 1];
      }
      s.segmentStart = segCount;
      s.polygonStart = polyCount;
      s.segmentIds.resize(segCount.back());
      s.polygonIds.resize(polyCount.back());
    }
  }
}

}  // namespace

bool ExclusionShapes::inside(const Polygon& p, double x, double z) const {
  if (x < p.minX || x > p.maxX || z < p.minZ || z > p.maxZ) return false;
  const int bands = int(p.bandStart.size()) - 1;
  const int b = std::clamp(int((z - p.bandZ0) * p.invBandHeight), 0, bands - 1);
  bool in = false;
  for (uint32_t k = p.bandStart[size_t(b)]; k < p.bandStart[size_t(b) + 1]; ++k) {
    const Edge& e = p.edges[p.bandEdges[k]];
    // A ray toward +x crosses the edge when the edge spans z (half-open) right of x.
    if ((e.az > z) != (e.bz > z)) {
      const double cx = e.ax + (z - e.az) * (e.bx - e.ax) / (e.bz - e.az);
      if (x < cx) in = !in;
    }
  }
  return in;
}

bool ExclusionShapes::excludes(size_t species, double x, double z) const {
  if (empty()) return false;
  const int cx = std::clamp(int(std::floor(x / cellSize)), 0, cellsX - 1);
  const int cz = std::clamp(int(std::floor(z / cellSize)), 0, cellsZ - 1);
  const size_t c = size_t(cz) * size_t(cellsX) + size_t(cx);
  const double foot = double(footprint[species]);
  for (uint32_t k = segmentStart[c]; k < segmentStart[c + 1]; ++k) {
    const Segment& s = segments[segmentIds[k]];
    if (!groupSpecies[s.group][species]) continue;
    const double r = s.halfWidth + foot;
    if (segmentDistance2(s, x, z) < r * r) return true;
  }
  for (uint32_t k = polygonStart[c]; k < polygonStart[c + 1]; ++k) {
    const Polygon& p = polygons[polygonIds[k]];
    if (groupSpecies[p.group][species] && inside(p, x, z)) return true;
  }
  return false;
}

ExclusionShapes loadExclusionShapes(const BiomeConfig& config, double extentX, double extentZ, Problems& problems) {
  ExclusionShapes shapes;
  for (const SpeciesConfig& s : config.species) shapes.footprint.push_back(s.footprint);
  for (uint32_t g = 0; g < config.vectorExclusions.size(); ++g) {
    const VectorExclusionConfig& v = config.vectorExclusions[g];
    std::vector<uint8_t>& applies = shapes.groupSpecies.emplace_back(config.species.size(), 0);
    for (size_t s = 0; s < config.species.size(); ++s) {
      const SpeciesConfig& sp = config.species[s];
      const bool all = v.species.empty() && v.kinds.empty();
      const bool named = std::find(v.species.begin(), v.species.end(), sp.name) != v.species.end();
      const bool kind = std::find(v.kinds.begin(), v.kinds.end(), sp.kind) != v.kinds.end();
      applies[s] = uint8_t(all || named || kind);
    }
    const std::string path = "/vector_exclusions/" + std::to_string(g) + "/file";
    if (v.file.empty()) continue;  // reported by the parser
    Json json;
    try {
      const std::string text = readFileText(v.file, kMaxGeoJsonBytes, "GeoJSON file");
      // the JSON policy of every input (core/json.h): no NUL, no duplicate keys
      if (std::string why = jsonNulProblem(text); !why.empty()) throw InputError(v.file + ": " + why + "; GeoJSON is JSON text");
      json = Json::parse(text);
      if (std::vector<std::string> twice = duplicateJsonKeys(text); !twice.empty())
        throw InputError(v.file + ": " + (twice.front().empty() ? std::string("/") : twice.front()) + ": " + kDuplicateKeyReason);
    } catch (const InputError& e) {
      problems.push_back({path, e.what()});
      continue;
    } catch (const nlohmann::json::exception& e) {
      std::string what = e.what();
      for (char& c : what)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
      problems.push_back({path, v.file + ": invalid JSON (" + what + ")"});
      continue;
    }
    std::vector<JsonProblem> found;
    GeoJsonReader(extentX, extentZ, g, shapes, found).read(json);
    for (const JsonProblem& p : found) problems.push_back({path, formatProblem(v.file, p)});
  }
  buildIndex(shapes, extentX, extentZ);
  return shapes;
}

}  // namespace eco
