#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

#include "bake/bake.h"
#include "core/hash.h"

namespace eco {

namespace {

uint8_t toByte(float v) { return uint8_t(std::lround(std::clamp(v, 0.f, 1.f) * 255.f)); }

uint32_t variedColor(const SpeciesConfig& sp, Rng& rng) {
  float brightness = 1.f + sp.colorVariation * (2.f * rng.uniform() - 1.f);
  float c[3];
  for (int i = 0; i < 3; ++i) {
    float hueJitter = 0.35f * sp.colorVariation * (2.f * rng.uniform() - 1.f);
    c[i] = sp.color[i] * (brightness + hueJitter);
  }
  return uint32_t(toByte(c[0])) | uint32_t(toByte(c[1])) << 8 | uint32_t(toByte(c[2])) << 16 | 0xff000000u;
}

// Leans the up axis toward the terrain normal, by the slope angle but at most maxTiltDeg.
Vec3 tiltedUp(const SpeciesConfig& sp, const SurfaceSample& s) {
  float horizontal = std::sqrt(s.normal.x * s.normal.x + s.normal.z * s.normal.z);
  if (sp.maxTiltDeg <= 0.f || horizontal < 1e-6f) return {0, 1, 0};
  float angle = std::min(s.slopeDeg, sp.maxTiltDeg) * (std::numbers::pi_v<float> / 180.f);
  float k = std::sin(angle) / horizontal;
  return {s.normal.x * k, std::cos(angle), s.normal.z * k};
}

}  // namespace

std::vector<Instance> makeInstances(const World& world, const SpeciesOrder& order, const TileSamples& tile) {
  std::vector<Instance> out;
  out.reserve(tile.samples.size());
  for (const Sample& sample : tile.samples) {
    uint16_t id = order.speciesOfClass[sample.cls];
    const SpeciesConfig& sp = world.config.species[id];
    SurfaceSample surface = surfaceAt(world.terrain, sample.x, sample.z, world.sunDirXZ);
    float height = world.terrain.heightAt(sample.x, sample.z);

    const ElevationBand& band = sp.elevation;
    float elevationWeight = smoothstep(band.min, band.optLow, height) * (1.f - smoothstep(band.optHigh, band.max, height));
    if (elevationWeight <= 0.f || surface.slopeDeg >= sp.maxSlopeDeg) continue;

    uint64_t key = uint64_t(std::bit_cast<uint32_t>(sample.x)) | uint64_t(std::bit_cast<uint32_t>(sample.z)) << 32;
    Rng rng(hashCombine(hashCombine(world.config.seed, 0x696e7374u + id), key));
    Instance inst;
    inst.position = {sample.x, height, sample.z};
    inst.species = id;
    inst.yaw = rng.uniform() * 2.f * std::numbers::pi_v<float>;
    inst.scale = sp.scaleMin + (sp.scaleMax - sp.scaleMin) * rng.uniform();
    inst.up = tiltedUp(sp, surface);
    inst.color = variedColor(sp, rng);
    out.push_back(inst);
  }
  std::stable_sort(out.begin(), out.end(), [](const Instance& a, const Instance& b) { return a.species < b.species; });
  return out;
}

}  // namespace eco
