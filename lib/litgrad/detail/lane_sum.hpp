#pragma once
// A sum of many terms in eight interleaved lanes. Only the library's own .cpp files include this.
//
// Adding n terms one after another is a chain of n dependent additions, each waiting for the
// last; eight partial sums (term j into lane j mod 8, the lanes then added pairwise) keep eight
// additions in flight, and a compiler runs them as one SIMD instruction. The order of the
// additions depends only on n, so equal inputs still give equal sums wherever they sit.

#include <cstdint>

namespace litgrad::detail {

constexpr int kLanes = 8;

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

}  // namespace litgrad::detail
