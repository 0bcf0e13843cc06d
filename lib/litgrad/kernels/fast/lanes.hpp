#pragma once
// The fast room's lane_sum (kernels/lanes.hpp): eight partial sums, unrolled so that a compiler
// runs the eight additions as one SIMD instruction.

#include <cstdint>

namespace litgrad::kernels::fast {

constexpr int kLanes = 8;  // the partial sums of kernels/lanes.hpp

/// sum_j f(j) over j < n, in kLanes interleaved partial sums combined pairwise.
template <class F>
double lane_sum(std::int64_t n, F f) {
  double lane[kLanes] = {};
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) lane[l] += f(j + l);
  for (int l = 0; l < kLanes && j < n; ++j, ++l) lane[l] += f(j);  // the last n mod 8 terms
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

}  // namespace litgrad::kernels::fast
