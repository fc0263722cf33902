#pragma once
// The config stage: the biome config (world inputs, sun, moisture, tiling, sampling and
// species), its checks, and the World it describes (config + decoded terrain and rivers).
// JSON form: schemas/biome.schema.json. Paths here are already resolved against the config
// file's folder. Every other stage reads its inputs through loadWorld.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/bilinear.h"
#include "core/error.h"
#include "core/species_kind.h"
#include "meshes/meshes.h"
#include "sampling/sampling.h"
#include "terrain/terrain.h"

namespace eco {

// Ranges of the config's numbers, documented field by field in schemas/biome.schema.json.
// Wide enough for any real terrain and vegetation; narrow enough that nothing computed from
// them (heights, world extents, radius * max_radius_factor, mesh height * scale, bounding
// spheres, noise lattice indices, grid cells) overflows a float or loses its precision.
namespace config_limits {
inline constexpr double kMaxAbsElevation = 1e5;     // metres: heights, offsets, elevation bands
inline constexpr double kMaxHeightScale = 2e5;      // metres per image unit (a 0..1 image spans all)
inline constexpr double kMinCellSize = 1e-3, kMaxCellSize = 1e4;  // metres
inline constexpr double kMaxWorldExtent = 1e6;      // metres: (pixels - 1) * cell_size, each axis
inline constexpr double kMinLength = 1e-3;          // metres: radii, falloffs, tile size floor
inline constexpr double kMaxLength = 1e5;           // metres: radii, distances, tile size
inline constexpr double kMaxRadiusFactor = 1e3;
inline constexpr double kMaxDistanceScale = 1e7;    // metres per river image unit
inline constexpr double kMinNoiseWavelength = 1, kMaxNoiseWavelength = 1e7;  // metres
inline constexpr double kMaxScale = 1e3;            // instance scale
inline constexpr double kMaxMeshSize = 1e3;         // metres: mesh height and crown radius
inline constexpr double kMaxChannelWidth = 1e4;     // metres: river.channel_width (the widest rivers)
// The tile format stores species ids as uint16; every species also costs a suitability
// raster the size of the heightmap and a slot in every tile's species table.
inline constexpr size_t kMaxSpecies = 256;
inline constexpr size_t kMaxNameBytes = 100;        // species and bake names, UTF-8 bytes
}  // namespace config_limits
enum class DensityMode : uint8_t { VariableRadius, Roulette };
enum class SamplingMethod : uint8_t { Pool, Bridson };
enum class RiverSource : uint8_t { Distance, Mask };

struct TerrainConfig {
  std::string heightmap;         // .png, .exr, .r16, .r32f, .tif or .tiff
  int rawWidth = 0, rawHeight = 0;  // required for raw files
  HeightMapping mapping;         // min/max elevation in JSON are turned into scale/offset
  // cell_size was given. Only a GeoTIFF heightmap may leave it out: its pixel scale is used
  // (World::terrain.cellSize holds the one in force; mapping.cellSize stays as parsed).
  bool cellSizeGiven = true;
};

// A painted map over the terrain's extent: its corners at the terrain's corners, any
// resolution, values in [0, 1] read bilinearly. JSON: a path, or { "file": ..., "channel":
// "r" | "g" | "b" | "a" } for one channel of an RGB(A) splat map.
struct MapInput {
  std::string file;              // empty: none
  int channel = kSingleChannel;  // terrain.h: kSingleChannel or 0..3 (r, g, b, a)
  bool given() const { return !file.empty(); }
};

// A GeoJSON file of roads and paths (LineString, MultiLineString with a "width" property in
// metres) and areas (Polygon, MultiPolygon) where nothing grows, positions [x, z] in world
// metres (x east, z south, from the heightmap's first pixel). Applies to the species named
// or of the kinds listed; to every species when both lists are empty.
struct VectorExclusionConfig {
  std::string file;
  std::vector<std::string> species;
  std::vector<SpeciesKind> kinds;
};

struct RiverConfig {
  std::string file;  // empty: no rivers (moisture from noise alone)
  RiverSource source = RiverSource::Distance;
  float distanceScale = 1.f;  // metres per image unit (for Distance images)
  // river.channel_width: metres of water around the river's pixels, drawn by the viewer
  // where the bake's river layer reads distance <= channel_width / 2. Absent: one river image
  // cell, so exactly the river's own pixels (a mask's river pixels, a distance image's zeros).
  std::optional<float> channelWidth;
};

struct MoistureConfig {
  float riverFalloff = 150.f;    // metres: river term = exp(-distance / falloff)
  float riverWeight = 0.6f;      // moisture = w * river + (1 - w) * noise, in [0, 1]
  float noiseWavelength = 800.f; // metres of the coarsest octave
  int noiseOctaves = 3;
};

struct ElevationBand {
  float min = 0, optLow = 0, optHigh = 0, max = 0;  // metres; min <= optLow <= optHigh <= max
};

// The point pattern of a species (config `pattern`, docs/ecology.md): every field has a
// natural default by kind (naturalPattern), and style "packed" turns them all off (the
// maximal packing at `radius`, a near-lattice).
enum class PatternStyle : uint8_t { Natural, Packed };
enum class CanopyResponse : uint8_t { None, Shade, Sun };
struct PatternConfig {
  PatternStyle style = PatternStyle::Natural;
  // The exact minimum spacing of the smallest instance at full density, as a share of
  // radius; the count at full density stays that of a packing at radius (the hard-core set is
  // thinned to it).
  float hardCore = 1.f;
  // How much of the scale range the spacing follows: a sample's spacing grows from the
  // smallest instance's by (1 + size_spacing * (scale / scale.min - 1)).
  float sizeSpacing = 0.f;
  float clumpRadius = 0.f, clumpShare = 0.f, clumpBetween = 1.f;  // clumping; share 0: none
  float gapSize = 0.f, gapShare = 0.f;                              // gaps (diameter); share 0: none
  CanopyResponse canopy = CanopyResponse::None;
  float canopyContrast = 3.f;  // density ratio between preferred and avoided ground
};
// The defaults of a kind for a species of spacing `radius`: what a species gets without a
// `pattern` field.
PatternConfig naturalPattern(SpeciesKind kind, float radius);

struct SpeciesConfig {
  std::string name;
  SpeciesKind kind = SpeciesKind::Tree;
  int layer = 0;                  // placement priority, lower first; defaults to kind
  float radius = 1.f;             // spacing at full density, metres
  float maxRadiusFactor = 4.f;    // variable radius bound: r(x) <= radius * factor
  float footprint = 0.f;          // keep-out radius for other species (trunk); default radius / 4
  ElevationBand elevation;
  float maxSlopeDeg = 45.f;       // weight is zero above this
  float slopeFalloffDeg = 10.f;   // weight falls from 1 to 0 over [max - falloff, max]
  float sunPreference = 0.f;      // -1 shade-tolerant .. +1 sun-loving
  float moistureOptimum = 0.5f;   // preferred moisture in [0, 1]
  float moistureTolerance = 0.5f; // weight reaches 0 at |moisture - optimum| = tolerance
  float density = 1.f;            // peak density in [0, 1]
  float scaleMin = 0.8f, scaleMax = 1.2f;
  float color[3] = {1, 1, 1};     // base colour, linear RGB in [0, 1]; the kind's when not given
  bool colorGiven = false;        // color was in the config (validate says when not)
  float colorVariation = 0.1f;    // per-instance tint jitter in [0, 1]
  float meshHeight = 1.f;         // metres at scale 1
  float crownRadius = 0.5f;       // metres at scale 1
  std::string meshAsset;          // mesh.asset: the species' own mesh for exports; empty: a proxy
  std::string meshFile;           // mesh.file: a .gltf/.glb drawn by the viewer; empty: procedural
  MeshForm meshForm = MeshForm::Broadleaf;  // mesh.form; defaults to the kind's (defaultMeshForm)
  bool meshFormGiven = false;               // mesh.form was in the config (validate says when not)
  float maxTiltDeg = 0.f;         // > 0: tilt toward the terrain normal, at most this much
  MapInput densityMap;            // multiplied into the suitability
  MapInput excludeMap;            // suitability * (1 - value): painted where it must not grow
  PatternConfig pattern;          // natural point pattern (filled from the kind when absent)
  bool growsInWater = false;      // false: nothing stands where the river layer draws water
  // cover: share of ground under crowns asked for instead of density; makeWorld turns it into
  // the density that gives it (World::coverDensity).
  std::optional<float> cover;
};

// Minimum distance between instances of two different species (overrides the default of
// footprint_a + footprint_b).
struct ExclusionOverride {
  std::string a, b;
  float distance = 0.f;
};

struct BiomeConfig {
  std::string configPath;
  std::string name;
  TerrainConfig terrain;
  RiverConfig river;
  float sunAzimuthDeg = 180.f;    // direction the sun shines from, clockwise from north
  float sunElevationDeg = 40.f;   // degrees above the horizon, (0, 90]: the viewer's light only
  std::optional<GroundPalette> ground;  // the viewer's colours and snow line; written to the manifest
  MoistureConfig moisture;
  float tileSize = 128.f;         // metres
  uint64_t seed = 1;
  SamplingMethod samplingMethod = SamplingMethod::Pool;
  int candidates = 30;            // Bridson k
  DensityMode densityMode = DensityMode::VariableRadius;
  std::vector<SpeciesConfig> species;
  std::vector<ExclusionOverride> exclusions;
  MapInput exclusionMap;          // every species' suitability * (1 - value)
  std::vector<VectorExclusionConfig> vectorExclusions;
};

// A problem with the config: JSON pointer and reason (core/error.h).
using ConfigProblem = JsonProblem;

// Parses and checks everything that can be checked without reading images.
// Returns the config and appends every problem found (does not stop at the first).
BiomeConfig parseBiomeConfig(const std::string& path, std::vector<ConfigProblem>& problems);
// A decoded painted map with its placement over the world: pixel (i, j) at world
// (i / invCellX, j / invCellZ), so its corners meet the terrain's. Bilinear, clamped.
struct PaintedMap {
  Grid values;  // in [0, 1]
  float invCellX = 1, invCellZ = 1;
  float at(float x, float z) const {
    return bilinear(values.values.data(), values.width, lerpPixel(x * invCellX, values.width),
                    lerpPixel(z * invCellZ, values.height));
  }
};

// The road and area exclusions of every vector_exclusions file, with a bucket grid over the
// world so that a query looks at the few segments and polygons near it (exact geometry, in
// double precision). Built by loadBiomeInputs; immutable and thread-safe after.
struct ExclusionShapes {
  struct Segment {
    double ax = 0, az = 0, bx = 0, bz = 0;
    double halfWidth = 0;
    uint32_t group = 0;  // index of the vector_exclusions entry
  };
  struct Edge {
    double ax = 0, az = 0, bx = 0, bz = 0;
  };
  struct Polygon {
    std::vector<Edge> edges;  // every ring; inside by the even-odd rule
    double minX = 0, minZ = 0, maxX = 0, maxZ = 0;
    uint32_t group = 0;
    // Edges by band of z, so a point's crossing test reads only the edges of its band.
    double bandZ0 = 0, invBandHeight = 0;
    std::vector<uint32_t> bandStart, bandEdges;
  };
  std::vector<Segment> segments;
  std::vector<Polygon> polygons;
  std::vector<std::vector<uint8_t>> groupSpecies;  // [group][species id]: 1 where it applies
  std::vector<float> footprint;                    // by species id
  // Bucket grid: cell (cx, cz) holds the segments whose keep-out reaches into it and the
  // polygons whose box overlaps it.
  double cellSize = 1;
  int cellsX = 0, cellsZ = 0;
  std::vector<uint32_t> segmentStart, segmentIds, polygonStart, polygonIds;

  bool empty() const { return segments.empty() && polygons.empty(); }
  // True when an instance of `species` may not stand at (x, z): closer than half a road's
  // width plus the species' footprint to a road's centre line, or inside an area.
  bool excludes(size_t species, double x, double z) const;
  // Whether the point lies inside polygon p (even-odd over its rings).
  bool inside(const Polygon& p, double x, double z) const;
};

// The config's input images, decoded as the bake uses them; empty where a problem was found.
struct BiomeInputs {
  std::optional<Image> heightmap, river;
  float cellSize = 0;  // the cell size in force: the config's, else the GeoTIFF's pixel scale
  std::string crs;     // the heightmap's CRS ("EPSG:32610"), "" when it names none
  // Painted maps: each distinct (file, channel) once; -1 where none (or a problem).
  std::vector<PaintedMap> maps;
  int exclusionMap = -1;
  std::vector<int> densityMap, excludeMap;  // by species id
  ExclusionShapes shapes;
  // JSON pointer of every input beyond the heightmap and the river, with its file: what the
  // manifest hashes (only when given, so the manifest of a config without them is unchanged).
  std::vector<std::pair<std::string, std::string>> extraInputs;
  // Each species' mesh.file, loaded and checked (meshes/meshes.h); empty where none is given
  // or where it failed (a problem at /species/N/mesh/file).
  std::vector<MetricMesh> meshes;
};
// The vector_exclusions files of a config over a world of extentX x extentZ metres, parsed,
// checked (problems at /vector_exclusions/N/file naming the GeoJSON file and the pointer in
// it) and indexed. Part of loadBiomeInputs.
ExclusionShapes loadExclusionShapes(const BiomeConfig& config, double extentX, double extentZ,
                                    std::vector<ConfigProblem>& problems);
// Reads every input file the way the bake does (full decode, NaN/Inf scan, raw sizes, at
// least 2 x 2 pixels, the heightmap/river extent rule), adding a problem per bad file. The
// one code path of `validate` and loadWorld, so both give the same message for a bad input.
BiomeInputs loadBiomeInputs(const BiomeConfig& config, std::vector<ConfigProblem>& problems);
// loadBiomeInputs without keeping the images.
void checkBiomeInputs(const BiomeConfig& config, std::vector<ConfigProblem>& problems);
// parse + loadBiomeInputs; throws InputError with the first problem if any. The decoded
// images go to *inputs when given (loadWorld uses them rather than reading the files again).
BiomeConfig loadBiomeConfig(const std::string& path, BiomeInputs* inputs = nullptr);



// Why `name` cannot name a species or a bake, or "" when it can. The rule (also in the
// schema): 1 to kMaxNameBytes bytes of valid UTF-8; ASCII letters, digits, space and
// _ - . ( ) ' plus any non-ASCII letter or symbol, but no control, format or separator
// characters (bidi overrides, zero-width marks, U+2028); no leading or trailing space.
// Quotes, commas, backslashes and newlines are out, so no output format (CSV, PLY headers,
// JSON, terminals) has to escape a name.
std::string nameProblem(std::string_view name);

// ---- The world a config describes ----

// Terrain, rivers and climate of one bake, in world units.
struct World {
  BiomeConfig config;
  Heightmap terrain;
  RiverField river;
  bool hasRiver = false;
  Vec2 sunDirXZ;
  std::string crs;  // BiomeInputs::crs
  std::vector<PaintedMap> maps;
  int exclusionMap = -1;
  std::vector<int> densityMap, excludeMap;  // by species id, -1: none
  ExclusionShapes shapes;
  std::vector<std::pair<std::string, std::string>> extraInputs;  // BiomeInputs::extraInputs
  std::vector<MetricMesh> meshes;  // BiomeInputs::meshes: by species id, empty without mesh.file
  // Species with `cover`: config.species[i].density is the density found for it; problems
  // (a cover out of reach) reported by checkWorld.
  std::vector<ConfigProblem> coverProblems;
  // The water rule of the river layer: water where the river distance is at most this (half
  // river.channel_width, else half a river image cell); nothing stands there unless its
  // species grows_in_water. 0 without a river.
  float waterDistance = 0.f;
  bool inWater(float x, float z) const { return hasRiver && river.distanceAt(x, z) <= waterDistance; }
  // The painted factor of a species at (x, z): density_map * (1 - exclude_map) *
  // (1 - exclusion_map), each present map bilinearly. 1 without maps.
  float paintedFactor(size_t species, float x, float z) const;
  bool hasPaintedMaps(size_t species) const {
    return exclusionMap >= 0 || (species < densityMap.size() && densityMap[species] >= 0) ||
           (species < excludeMap.size() && excludeMap[species] >= 0);
  }
};

// The density that gives a species its `cover` (share of ground under its crowns where its
// suitability is full), found by sampling a patch of flat ground with the species' own
// pattern and measuring the crowns' union; sets *reached to the cover at density 1.
// Deterministic (one thread, the config's seed).
float densityForCover(const SpeciesConfig& species, uint64_t seed, float cover, float* reached);
// The sampler class of a species: spacing, size coupling, thinning, clumps and gaps (the
// canopy's class order is filled by samplerParams).
SampleClass sampleClass(const SpeciesConfig& sp, bool variableRadius);

// Loads the config and its inputs (InputError on any problem).
World loadWorld(const std::string& configPath);
// The world of a parsed config and the inputs loadBiomeInputs decoded from it without a
// problem (for callers that already hold them, like `validate`: no second decode).
World makeWorld(BiomeConfig config, BiomeInputs&& inputs);

// ---- The config as the sampler sees it ----

// Sampler classes are the species sorted by layer (stable); these map between the two.
struct SpeciesOrder {
  std::vector<uint16_t> speciesOfClass;
};
SpeciesOrder speciesOrder(const BiomeConfig& config);
// The sampler's view of a config over a world of worldX x worldZ metres.
SamplerParams samplerParams(const BiomeConfig& config, float worldX, float worldZ, const SpeciesOrder& order);
SamplerParams samplerParams(const World& world, const SpeciesOrder& order);

// samplerProblems() of the config's sampler parameters, each with the JSON path of the field
// at fault (/species/3/radius, /tiling/tile_size, ...): the tile-size rule and every other
// sampler rule live with the sampler (sampling/sampling.h), the paths here. worldX / worldZ
// <= 0: the extent is not known yet (parse time) and its checks are left out.
void checkSamplingConfig(const BiomeConfig& config, float worldX, float worldZ, std::vector<ConfigProblem>& problems);
// Checks that need the loaded inputs: world extent, heights after the height mapping,
// radii against float precision at the world's extent, and checkSamplingConfig with the
// extent.
void checkWorld(const World& world, std::vector<ConfigProblem>& problems);
// checkWorld; InputError "<config>: <path>: <reason>" with the first problem.
void requireValidWorld(const World& world);

}  // namespace eco
