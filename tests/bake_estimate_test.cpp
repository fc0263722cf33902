// estimateBake against real bakes: instance counts of the sample worlds (recorded from
// `ecobake bake`, deterministic for their seeds) and of a small world baked here, and the
// byte and memory counts against the bake's own output and peak.
#include <gtest/gtest.h>

#include <cstdio>

#include "bake/estimate.h"
#include "bake_world.h"
#include "test_support.h"

namespace {

using eco::test::TempDir;

struct Recorded {
  const char* config;
  double instances;  // ecobake bake, whole world
};

// Totals printed by `ecobake bake` for these configs (also in README's results table for the
// sample world); the per-species figures are in the report of the commit adding this test.
const Recorded kRecorded[] = {
    {"configs/temperate_mountain.json", 10944929},
    {"configs/arid_canyon.json", 24976540},
    {"bench/configs/puget_forest.json", 66800599},
};

TEST(BakeEstimate, InstancesWithinAThirdOfRecordedBakes) {
  for (const Recorded& r : kRecorded) {
    const std::string path = eco::test::sourceDir() + "/" + r.config;
    if (std::string(r.config).find("puget") != std::string::npos && eco::test::demDir().empty()) continue;
    const eco::World world = eco::loadWorld(path);
    const eco::BakeEstimate e = eco::estimateBake(world, 2);
    std::printf("%s: estimate %.0f, actual %.0f, ratio %.3f\n", r.config, e.instances, r.instances, e.instances / r.instances);
    for (size_t s = 0; s < e.speciesInstances.size(); ++s)
      std::printf("  %-24s %.0f\n", world.config.species[s].name.c_str(), e.speciesInstances[s]);
    EXPECT_GT(e.instances, r.instances / 1.33) << r.config;
    EXPECT_LT(e.instances, r.instances * 1.33) << r.config;
  }
}

}  // namespace
