#pragma once
// The plain room's lane_sum (kernels/lanes.hpp), as its definition reads.

#include <cstdint>

namespace litgrad::kernels::plain {

constexpr int kLanes = 8;  // the partial sums of kernels/lanes.hpp

/// sum_j f(j) over j < n: term j into lane j mod 8, then the lanes pairwise.
template <class F>
double lane_sum(std::int64_t n, F f) {
  double lane[kLanes] = {};
  for (std::int64_t j = 0; j < n; ++j) lane[j % kLanes] += f(j);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

}  // namespace litgrad::kernels::plain
