#include "sampling/directions.h"

#include <array>
#include <cstddef>

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

std::array<Direction, kDirections + 1> makeTable() {
  constexpr double kPi = 3.14159265358979323846;
  constexpr int quarter = kDirections / 4;
  std::array<Direction, kDirections + 1> table{};
  for (int i = 0; i < quarter; ++i) {
    double c, s;
    cosSin(2.0 * kPi * i / kDirections, c, s);
    table[size_t(i)] = {float(c), float(s)};
    table[size_t(i + quarter)] = {float(-s), float(c)};
    table[size_t(i + 2 * quarter)] = {float(-c), float(-s)};
    table[size_t(i + 3 * quarter)] = {float(s), float(-c)};
  }
  table[kDirections] = table[0];
  return table;
}

}  // namespace

const Direction* directionTable() {
  static const std::array<Direction, kDirections + 1> table = makeTable();
  return table.data();
}

}  // namespace eco::sampling
