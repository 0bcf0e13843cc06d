#pragma once
// Softmax of one slice, forward and backward: shared by softmax() and the fused attention
// weights, which must compute bit for bit the same. Only the library's own .cpp files include this.
//
// The loops are written for the compiler to run eight elements at a time: exponentials by
// vector_exp, and the max and the sums in eight interleaved lanes (lane_sum.hpp). The order of
// the additions depends only on the slice's length, so equal slices give equal results anywhere.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "litgrad/detail/exp.hpp"
#include "litgrad/detail/lane_sum.hpp"

namespace litgrad::detail {

/// The largest of n elements at stride `stride`, NaNs left out (a NaN still reaches softmax's
/// output: exp(NaN - m) is NaN, and so is the sum that divides every element).
inline double slice_max(const double* x, std::int64_t stride, std::int64_t n) {
  constexpr double lowest = -std::numeric_limits<double>::infinity();
  double lane[kLanes] = {lowest, lowest, lowest, lowest, lowest, lowest, lowest, lowest};
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const double v = x[(j + l) * stride];
      lane[l] = v > lane[l] ? v : lane[l];
    }
  for (int l = 0; l < kLanes && j < n; ++j, ++l) {  // the last n mod 8 elements
    const double v = x[j * stride];
    lane[l] = v > lane[l] ? v : lane[l];
  }
  double m = lane[0];
  for (int l = 1; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
  return m;
}

/// y_j = exp(x_j - m) / sum_i exp(x_i - m) over n elements at stride `stride`; y may be x.
/// A slice that is all -inf gives NaN (its m is -inf, and -inf - -inf is NaN).
///
/// -inf elements at the end of the slice (a causal mask leaves half of attention's scores so)
/// get their exact 0 without an exponential, when m is above -inf: exp(-inf - m) is 0, and
/// adding 0 to a lane's sum, which starts at +0, leaves it as it was.
inline void softmax_slice(const double* x, double* y, std::int64_t stride, std::int64_t n) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const double m = slice_max(x, stride, n);
  std::int64_t used = n;  // stops at an element above -inf, which m > -inf says there is
  if (m > minus_inf) {
    while (x[(used - 1) * stride] == minus_inf) --used;
    used = std::min(n, (used + kLanes - 1) / kLanes * kLanes);  // whole lanes: fewer scalar exponentials
  }
  // Contiguous slices (every softmax over the last dimension) get a loop of their own, which
  // the compiler vectorises with plain loads rather than gathers.
  const double s = stride == 1 ? lane_sum(used, [&](std::int64_t j) { return y[j] = vector_exp(x[j] - m); })
                               : lane_sum(used, [&](std::int64_t j) { return y[j * stride] = vector_exp(x[j * stride] - m); });
  for (std::int64_t j = 0; j < used; ++j) y[j * stride] /= s;
  for (std::int64_t j = used; j < n; ++j) y[j * stride] = 0.0;
}

/// dx_j = y_j (g_j - sum_i g_i y_i): the Jacobian diag(y) - y yᵀ applied to g, from the output
/// y alone; dx may be g.
inline void softmax_backward_slice(const double* y, const double* g, double* dx, std::int64_t stride, std::int64_t n) {
  const double dot = lane_sum(n, [&](std::int64_t j) { return g[j * stride] * y[j * stride]; });
  for (std::int64_t j = 0; j < n; ++j) dx[j * stride] = y[j * stride] * (g[j * stride] - dot);
}

}  // namespace litgrad::detail
