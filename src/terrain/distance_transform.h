#pragma once
// Exact Euclidean distance transform (Felzenszwalb & Huttenlocher 2012, "Distance Transforms
// of Sampled Functions"): two separable passes of the 1-D lower envelope of parabolas.
#include <cstdint>
#include <vector>

namespace eco {

// Squared distance in pixels from each pixel to the nearest pixel with isSite != 0 (row-major
// width x height). Pixels are +infinity when there is no site at all. Values are exact
// integers (stored in double, exact up to 2^53).
std::vector<double> squaredDistanceTransform(const uint8_t* isSite, int width, int height);

}  // namespace eco
