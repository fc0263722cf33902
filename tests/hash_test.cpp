#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "core/error.h"
#include "core/hash.h"

TEST(Hash, Checksum64IsXxh3AndTheFileVersionAgrees) {
  EXPECT_EQ(eco::checksum64({}), 0x2d06800538d394c2ull);  // XXH3-64 of no bytes, seed 0 (xxHash's tests)
  // Files are hashed in 64 KB chunks through the streaming API: same value as in one go, for
  // sizes around the chunk and XXH3's internal block boundaries.
  std::vector<uint8_t> bytes(200000);
  eco::Rng rng(3);
  for (uint8_t& b : bytes) b = uint8_t(rng.next());
  const std::string path = ::testing::TempDir() + "checksum64.bin";
  for (size_t n : {size_t(0), size_t(1), size_t(240), size_t(1025), size_t(65536), size_t(65537), bytes.size()}) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_TRUE(f);
    std::fwrite(bytes.data(), 1, n, f);
    std::fclose(f);
    EXPECT_EQ(eco::checksum64File(path), eco::checksum64({bytes.data(), n})) << n;
  }
  std::remove(path.c_str());
  const uint64_t before = eco::checksum64(bytes);
  bytes[12345] ^= 1;
  EXPECT_NE(eco::checksum64(bytes), before);
  EXPECT_THROW(eco::checksum64File(path), eco::InputError);
}

TEST(Hash, RngUniformStaysInUnitInterval) {
  eco::Rng rng(42);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    float u = rng.uniform();
    ASSERT_GE(u, 0.f);
    ASSERT_LT(u, 1.f);
    sum += double(u);
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.01);
}
