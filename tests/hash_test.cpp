#include <gtest/gtest.h>

#include "core/hash.h"

TEST(Hash, Fnv1aMatchesPublishedVectors) {
  // Reference values of FNV-1a 64 from the FNV test suite.
  EXPECT_EQ(eco::fnv1a64({}), 0xcbf29ce484222325ull);
  const uint8_t a[] = {'a'};
  EXPECT_EQ(eco::fnv1a64(a), 0xaf63dc4c8601ec8cull);
  const uint8_t foobar[] = {'f', 'o', 'o', 'b', 'a', 'r'};
  EXPECT_EQ(eco::fnv1a64(foobar), 0x85944171f73967e8ull);
}

TEST(Hash, RngUniformStaysInUnitInterval) {
  eco::Rng rng(42);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    float u = rng.uniform();
    ASSERT_GE(u, 0.f);
    ASSERT_LT(u, 1.f);
    sum += u;
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.01);
}
