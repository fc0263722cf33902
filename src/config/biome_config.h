#pragma once
// The biome config: world inputs, sun, moisture, tiling, sampling and species.
// JSON form: schemas/biome.schema.json. Paths here are already resolved against the config
// file's folder.
#include <cstdint>
#include <string>
#include <vector>

#include "terrain/terrain.h"

namespace eco {

enum class SpeciesKind : uint8_t { Tree = 0, Shrub = 1, Grass = 2, GroundCover = 3 };
enum class DensityMode : uint8_t { VariableRadius, Roulette };
enum class SamplingMethod : uint8_t { Pool, Bridson };
enum class RiverSource : uint8_t { Distance, Mask };

struct TerrainConfig {
  std::string heightmap;         // .png, .exr, .r16 or .r32f
  int rawWidth = 0, rawHeight = 0;  // required for raw files
  HeightMapping mapping;         // min/max elevation in JSON are turned into scale/offset
};

struct RiverConfig {
  std::string file;  // empty: no rivers (moisture from noise alone)
  RiverSource source = RiverSource::Distance;
  float distanceScale = 1.f;  // metres per image unit (for Distance images)
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
  float color[3] = {1, 1, 1};     // base colour, linear RGB in [0, 1]
  float colorVariation = 0.1f;    // per-instance tint jitter in [0, 1]
  float meshHeight = 1.f;         // metres at scale 1
  float crownRadius = 0.5f;       // metres at scale 1
  float maxTiltDeg = 0.f;         // > 0: tilt toward the terrain normal, at most this much
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
  MoistureConfig moisture;
  float tileSize = 128.f;         // metres
  uint64_t seed = 1;
  SamplingMethod samplingMethod = SamplingMethod::Pool;
  int candidates = 30;            // Bridson k
  DensityMode densityMode = DensityMode::VariableRadius;
  std::vector<SpeciesConfig> species;
  std::vector<ExclusionOverride> exclusions;
};

struct ConfigProblem {
  std::string path;    // JSON pointer, e.g. /species/2/elevation/min
  std::string reason;  // plain words
};

// Parses and checks everything that can be checked without reading images.
// Returns the config and appends every problem found (does not stop at the first).
BiomeConfig parseBiomeConfig(const std::string& path, std::vector<ConfigProblem>& problems);
// Adds the checks that need the input files: existence, readable headers, raw sizes,
// heightmap/river extents.
void checkBiomeInputs(const BiomeConfig& config, std::vector<ConfigProblem>& problems);
// parse + checkBiomeInputs; throws InputError with the first problem if any.
BiomeConfig loadBiomeConfig(const std::string& path);

// One line: "<file>: <json path>: <reason>" (the path is left out when empty).
std::string formatProblem(const std::string& file, const ConfigProblem& problem);

// Largest distance at which two instances can affect each other: the largest variable
// radius (radius * maxRadiusFactor), twice the largest footprint and every exclusion
// distance. Tiles must be at least twice this wide.
float maxInteractionDistance(const BiomeConfig& config);

// JSON spelling of a kind: "tree", "shrub", "grass", "ground_cover".
const char* speciesKindName(SpeciesKind kind);

}  // namespace eco
