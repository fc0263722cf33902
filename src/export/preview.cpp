#include "export/export.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "core/rounding.h"
#include "terrain/png16.h"

namespace eco {

namespace {

struct Rgb8Image {
  int width, height;
  std::vector<uint8_t> rgb;
  Rgb8Image(int w, int h) : width(w), height(h), rgb(size_t(w) * size_t(h) * 3) {}
  uint8_t* at(int x, int y) { return &rgb[(size_t(y) * size_t(width) + size_t(x)) * 3]; }
};

// Written plainly: the files go into a staging folder that is synced and swapped in whole.
void savePng(const std::string& path, const Rgb8Image& img) {
  std::vector<uint8_t> png = encodePngRgb8(path, img.width, img.height, img.rgb.data());
  writeFilePlain(path, png.data(), png.size());
}

// Grey ramp for a scalar field of w x h cells, one pixel every `step` cells; `map` turns the
// value at a cell into [0, 1].
template <class Field>
void writeScalar(const std::string& path, int w, int h, int step, Field map) {
  Rgb8Image img((w - 1) / step + 1, (h - 1) / step + 1);
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      uint8_t v = unorm8(map(x * step, y * step));
      uint8_t* p = img.at(x, y);
      p[0] = p[1] = p[2] = v;
    }
  savePng(path, img);
}

float hillshade(const World& world, float x, float z) {
  SurfaceSample s = surfaceAt(world.terrain, x, z, sunDirectionXZ(315.f));
  Vec3 light{-0.5f, 0.707f, -0.5f};  // from the north-west, the cartographic convention
  return std::clamp(s.normal.x * light.x + s.normal.y * light.y + s.normal.z * light.z, 0.f, 1.f);
}

}  // namespace

std::vector<std::string> writeMaskPreviews(const World& world, const SuitabilityRasters& rasters, const std::string& dir) {
  const Heightmap& t = world.terrain;
  int w = t.metres.width, h = t.metres.height;
  const int step = (std::max(w, h) + kMaxPreviewSide - 1) / kMaxPreviewSide;
  auto [lo, hi] = std::minmax_element(t.metres.values.begin(), t.metres.values.end());
  float minH = *lo, range = std::max(*hi - *lo, 1e-3f);
  auto env = [&](int x, int y) { return environmentAt(world, float(x) * t.cellSize, float(y) * t.cellSize); };

  std::vector<std::string> files;
  auto add = [&](const std::string& name, auto map) {
    files.push_back((std::filesystem::path(dir) / name).string());
    writeScalar(files.back(), w, h, step, map);
  };
  add("elevation.png", [&](int x, int y) { return (t.metres.at(x, y) - minH) / range; });
  add("slope.png", [&](int x, int y) { return env(x, y).slopeDeg / 90.f; });
  add("aspect.png", [&](int x, int y) {
    return surfaceAt(t, float(x) * t.cellSize, float(y) * t.cellSize, world.sunDirXZ).aspectDeg / 360.f;
  });
  add("sun.png", [&](int x, int y) { return 0.5f + 0.5f * env(x, y).sunExposure; });
  add("moisture.png", [&](int x, int y) { return moistureAt(world, float(x) * t.cellSize, float(y) * t.cellSize); });
  for (size_t s = 0; s < world.config.species.size(); ++s)
    add("suitability_" + world.config.species[s].name + ".png", [&](int x, int y) { return rasters.species[s].at(x, y); });
  // The inputs from terrain tools, only where a config uses them: the heightmap's nodata
  // pixels, and per species the factor of its painted maps and vector exclusions (white:
  // untouched, black: nothing grows).
  if (!t.noData.empty())
    add("nodata.png", [&](int x, int y) { return float(t.noData[size_t(y) * size_t(w) + size_t(x)]); });
  for (size_t s = 0; s < world.config.species.size(); ++s) {
    bool shaped = false;
    for (const std::vector<uint8_t>& g : world.shapes.groupSpecies) shaped |= s < g.size() && g[s];
    if (!shaped && !world.hasPaintedMaps(s)) continue;
    add("inputs_" + world.config.species[s].name + ".png", [&](int x, int y) {
      const float wx = float(x) * t.cellSize, wz = float(y) * t.cellSize;
      if (world.shapes.excludes(s, double(wx), double(wz))) return 0.f;
      return world.paintedFactor(s, wx, wz);
    });
  }
  return files;
}

float writeInstancePreview(const World& world, const std::vector<TileData>& tiles, float pixelsPerMetre,
                           const std::string& path) {
  const double longest = std::max<double>(double(world.terrain.extentX()), double(world.terrain.extentZ()));
  if (longest * double(pixelsPerMetre) > kMaxPreviewSide) pixelsPerMetre = float(kMaxPreviewSide / longest);
  int w = std::clamp(int(double(world.terrain.extentX()) * double(pixelsPerMetre)), 1, kMaxPreviewSide);
  int h = std::clamp(int(double(world.terrain.extentZ()) * double(pixelsPerMetre)), 1, kMaxPreviewSide);
  Rgb8Image img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t v = unorm8(0.25f + 0.5f * hillshade(world, float(x) / pixelsPerMetre, float(y) / pixelsPerMetre));
      uint8_t* p = img.at(x, y);
      p[0] = p[1] = p[2] = v;
    }
  // Larger plants drawn last, as discs of their crown radius (at least one pixel). The radius
  // comes from each tile's own species table, not from world.config: a bake drawn over a
  // config may list other species, and decodeTile guarantees the tile's ids index its table.
  struct Disc {
    const Instance* instance;
    float crownRadius;
  };
  std::vector<Disc> order;
  for (const TileData& t : tiles)
    for (const Instance& in : t.instances) order.push_back({&in, t.species.at(in.species).crownRadius});
  std::stable_sort(order.begin(), order.end(), [](const Disc& a, const Disc& b) { return a.crownRadius < b.crownRadius; });
  for (const auto& [in, crownRadius] : order) {
    float r = std::max(0.5f, crownRadius * in->scale * pixelsPerMetre);
    float cx = in->position.x * pixelsPerMetre, cz = in->position.z * pixelsPerMetre;
    int x0 = std::max(0, int(cx - r)), x1 = std::min(w - 1, int(cx + r));
    int y0 = std::max(0, int(cz - r)), y1 = std::min(h - 1, int(cz + r));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        float dx = float(x) + 0.5f - cx, dy = float(y) + 0.5f - cz;
        if (dx * dx + dy * dy > r * r && !(x == int(cx) && y == int(cz))) continue;
        uint8_t* p = img.at(x, y);
        for (int c = 0; c < 3; ++c) p[c] = uint8_t((in->color >> (8 * c)) & 0xffu);
      }
  }
  savePng(path, img);
  return pixelsPerMetre;
}

}  // namespace eco
