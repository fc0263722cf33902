#include "sampling/directions.h"

#include <cmath>

namespace eco::sampling {

namespace {

// Taylor series, accurate to double precision for |a| <= pi / 2.
void cosSin(double a, double& c, double& s) {
  double term = a, sum = a;
  for (int n = 1; n < 14; ++n) {
    term *= -a * a / double((2 * n) * (2 * n + 1));
    sum += term;
  }
  s = sum;
  term = 1.0;
  sum = 1.0;
  for (int n = 1; n < 14; ++n) {
    term *= -a * a / double((2 * n - 1) * (2 * n));
    sum += term;
  }
  c = sum;
}

uint32_t reverseBits(uint32_t v, int bits) {
  uint32_t r = 0;
  for (int b = 0; b < bits; ++b) r |= ((v >> b) & 1u) << (bits - 1 - b);
  return r;
}

AnnulusTable makeTable() {
  constexpr double kPi = 3.14159265358979323846;
  constexpr int quarter = kAnnulusSize / 4;
  AnnulusTable t{};
  for (int i = 0; i < quarter; ++i) {
    double c, s;
    cosSin(2.0 * kPi * (i + 0.5) / kAnnulusSize, c, s);
    const double dirs[4][2] = {{c, s}, {-s, c}, {-c, -s}, {s, -c}};
    for (int q = 0; q < 4; ++q) {
      const int k = i + q * quarter;
      // Uniform by area: |offset|^2 uniform in [1, 4].
      const double u = (reverseBits(uint32_t(k), kAnnulusBits) + 0.5) / kAnnulusSize;
      const double rho = std::sqrt(1.0 + 3.0 * u);
      t.at[k] = {float(dirs[q][0] * rho), float(dirs[q][1] * rho)};
    }
  }
  return t;
}

}  // namespace

const AnnulusTable& annulusTable() {
  static const AnnulusTable table = makeTable();
  return table;
}

}  // namespace eco::sampling
