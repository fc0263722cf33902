// The 3D Tiles writer's pure parts (src/export/tiles3d.cpp): the geodetic frame against known
// points of the WGS84 ellipsoid, and tileset.json's tree on hand-made leaves. The whole export
// read back by loaders.gl, instance by instance: tests/interop/export_interop.mjs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "export/writers.h"

namespace eco {
namespace {

using nlohmann::json;

Manifest grid(int tilesX, int tilesZ, float tileSize) {
  Manifest m;
  m.tiling.tileSize = tileSize;
  m.tiling.tilesX = tilesX;
  m.tiling.tilesZ = tilesZ;
  m.world.sizeX = float(tilesX) * tileSize;
  m.world.sizeZ = float(tilesZ) * tileSize;
  m.world.minY = 10;
  m.world.maxY = 50;
  return m;
}

TilesetLeaf leaf(int x, int z, float tileSize, float tallest) {
  TilesetLeaf l;
  l.x = x, l.z = z, l.tallest = tallest;
  l.file = "tiles/";  // (appended piecewise: GCC 12 warns falsely on a chain of + here)
  l.file += std::to_string(x);
  l.file += '_';
  l.file += std::to_string(z);
  l.file += ".glb";
  // plants in the middle half of the tile, 20 to 20 + tallest metres up
  l.box.lo = {(float(x) + 0.25f) * tileSize, 20, (float(z) + 0.25f) * tileSize};
  l.box.hi = {(float(x) + 0.75f) * tileSize, 20 + tallest, (float(z) + 0.75f) * tileSize};
  return l;
}

TEST(Tiles3d, EastNorthUpFrameSitsOnTheWgs84Ellipsoid) {
  // (0, 0): the equator at Greenwich is (a, 0, 0); east +y, north +z, up +x
  std::array<double, 16> m = eastNorthUpToEcef(0, 0, 0);
  const std::array<double, 16> equator = {0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 6378137.0, 0, 0, 1};
  for (size_t i = 0; i < 16; ++i) EXPECT_NEAR(m[i], equator[i], 1e-9) << i;
  // the north pole, 100 m up: the semi-minor axis b = a (1 - f) = 6356752.3142 m (NIMA TR8350.2)
  m = eastNorthUpToEcef(0, 90, 100);
  EXPECT_NEAR(m[12], 0, 1e-6);
  EXPECT_NEAR(m[14], 6356752.3142 + 100, 1e-3);
  EXPECT_NEAR(m[10], 1, 1e-12);  // up is +z
  // 90 degrees east on the equator: (0, a, 0), east is -x
  m = eastNorthUpToEcef(90, 0, 0);
  EXPECT_NEAR(m[13], 6378137.0, 1e-6);
  EXPECT_NEAR(m[0], -1, 1e-12);
}

TEST(Tiles3d, QuadtreeBoundsItsLeavesAndErrsByTheTallestPlant) {
  const Manifest m = grid(4, 4, 100);
  const std::vector<TilesetLeaf> leaves = {leaf(0, 0, 100, 30), leaf(1, 0, 100, 12), leaf(3, 3, 100, 2)};
  const json t = json::parse(tilesetJson(m, leaves, std::nullopt));
  EXPECT_EQ(t["asset"]["version"], "1.1");
  const json& root = t["root"];
  EXPECT_EQ(root["refine"], "ADD");
  EXPECT_FALSE(root.contains("transform"));
  EXPECT_DOUBLE_EQ(root["geometricError"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(t["geometricError"].get<double>(), 30.0);
  // two occupied quadrants: (0..1, 0..1) holding two leaves and (2..3, 2..3) holding one,
  // which is then that leaf itself (no single-child chains)
  ASSERT_EQ(root["children"].size(), 2u);
  const json& nw = root["children"][0];
  EXPECT_DOUBLE_EQ(nw["geometricError"].get<double>(), 30.0);
  ASSERT_EQ(nw["children"].size(), 2u);
  const json& se = root["children"][1];
  EXPECT_EQ(se["content"]["uri"], "tiles/3_3.glb");
  EXPECT_DOUBLE_EQ(se["geometricError"].get<double>(), 0.0);
  // the leaf's transform moves its tile-local content to the tile's corner in east-north-up:
  // (x, -z, 0) x tile size; its box is relative to that corner: centre (50, -50, 21), half
  // axes (25, 25, 1) (north = -z: the tile's middle half lies south of its corner)
  const std::vector<double> transform = se["transform"].get<std::vector<double>>();
  EXPECT_EQ(transform, (std::vector<double>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 300, -300, 0, 1}));
  const std::vector<double> box = se["boundingVolume"]["box"].get<std::vector<double>>();
  EXPECT_EQ(box, (std::vector<double>{50, -50, 21, 25, 0, 0, 0, 25, 0, 0, 0, 1}));
  // the root's box, in the root frame: east 25..375, north -375..-25, up 20..50
  EXPECT_EQ(root["boundingVolume"]["box"].get<std::vector<double>>(),
            (std::vector<double>{200, -200, 35, 175, 0, 0, 0, 175, 0, 0, 0, 15}));
}

TEST(Tiles3d, OneTileUnderAGeoreferenceKeepsItsOffset) {
  const Manifest m = grid(4, 4, 100);
  const json t = json::parse(tilesetJson(m, {leaf(2, 3, 100, 5)}, eastNorthUpToEcef(0, 0, 0)));
  // the root is the leaf: its transform is the frame at (0, 0) times the move to (200, -300, 0),
  // so the tile's corner is at ECEF (a, 200, -300) (east +y, north +z)
  const std::vector<double> r = t["root"]["transform"].get<std::vector<double>>();
  EXPECT_NEAR(r[12], 6378137.0, 1e-6);
  EXPECT_NEAR(r[13], 200, 1e-6);
  EXPECT_NEAR(r[14], -300, 1e-6);
  EXPECT_EQ(t["root"]["content"]["uri"], "tiles/2_3.glb");
}

TEST(Tiles3d, NothingSelectedIsAnEmptyValidTileset) {
  Manifest m = grid(2, 2, 64);
  m.crs = "EPSG:32610";
  const json t = json::parse(tilesetJson(m, {}, std::nullopt));
  EXPECT_DOUBLE_EQ(t["root"]["geometricError"].get<double>(), 0.0);
  EXPECT_FALSE(t["root"].contains("children"));
  EXPECT_EQ(t["root"]["boundingVolume"]["box"].get<std::vector<double>>(),
            (std::vector<double>{64, -64, 30, 64, 0, 0, 0, 64, 0, 0, 0, 20}));
  EXPECT_EQ(t["extras"]["ecobake"]["crs"], "EPSG:32610");
}

}  // namespace
}  // namespace eco
