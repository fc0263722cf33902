#include "terrain/distance_transform.h"

#include <cstddef>
#include <limits>

namespace eco {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// 1-D transform d(q) = min_p (q - p)^2 + f(p) over n samples with the given stride. Only
// finite samples enter the envelope, so "no site" needs no large sentinel and stays exact.
struct Envelope {
  std::vector<int> site;      // parabola vertices, left to right
  std::vector<double> start;  // where each parabola starts to be the lowest
  std::vector<double> f;      // copy of the input line

  void transform(double* line, int n, size_t stride) {
    f.resize(size_t(n));
    site.resize(size_t(n));
    start.resize(size_t(n) + 1);
    for (int q = 0; q < n; ++q) f[size_t(q)] = line[size_t(q) * stride];

    int k = -1;
    for (int q = 0; q < n; ++q) {
      if (f[size_t(q)] == kInfinity) continue;
      double s = -kInfinity;
      while (k >= 0) {
        int v = site[size_t(k)];
        s = ((f[size_t(q)] + double(q) * q) - (f[size_t(v)] + double(v) * v)) / (2.0 * (q - v));
        if (s > start[size_t(k)]) break;
        --k;
      }
      ++k;
      site[size_t(k)] = q;
      start[size_t(k)] = k == 0 ? -kInfinity : s;
    }
    if (k < 0) return;  // no finite sample: the line stays infinite
    start[size_t(k) + 1] = kInfinity;

    int j = 0;
    for (int q = 0; q < n; ++q) {
      while (start[size_t(j) + 1] < q) ++j;
      int v = site[size_t(j)];
      line[size_t(q) * stride] = double(q - v) * (q - v) + f[size_t(v)];
    }
  }
};

}  // namespace

std::vector<double> squaredDistanceTransform(const uint8_t* isSite, int width, int height) {
  std::vector<double> d(size_t(width) * size_t(height));
  for (size_t i = 0; i < d.size(); ++i) d[i] = isSite[i] ? 0.0 : kInfinity;
  Envelope envelope;
  for (int x = 0; x < width; ++x) envelope.transform(d.data() + x, height, size_t(width));
  for (int y = 0; y < height; ++y) envelope.transform(d.data() + size_t(y) * size_t(width), width, 1);
  return d;
}

}  // namespace eco
