#pragma once
// The fast room's softmax of one slice, forward and backward (the arithmetic of
// kernels/softmax.hpp): shared by the fast softmax and the fused attention weights.
//
// The loops are written for the compiler to run eight elements at a time: exponentials by
// vector_exp, and the max and the sums in eight interleaved lanes (kernels/lanes.hpp).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "litgrad/kernels/exp.hpp"
#include "litgrad/kernels/fast/lanes.hpp"

namespace litgrad::kernels::fast {

/// The largest of n elements at stride `stride`, NaNs left out (a NaN still reaches softmax's
/// output: exp(NaN - m) is NaN, and so is the sum that divides every element).
inline double slice_max(const double* x, std::int64_t stride, std::int64_t n) {
  auto largest = [n](auto at) {
    constexpr double lowest = -std::numeric_limits<double>::infinity();
    double lane[kLanes] = {lowest, lowest, lowest, lowest, lowest, lowest, lowest, lowest};
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        const double v = at(j + l);
        lane[l] = v > lane[l] ? v : lane[l];
      }
    for (int l = 0; l < kLanes && j < n; ++j, ++l) {  // the last n mod 8 elements
      const double v = at(j);
      lane[l] = v > lane[l] ? v : lane[l];
    }
    double m = lane[0];
    for (int l = 1; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
    return m;
  };
  // A contiguous slice (every softmax over the last dimension) gets a loop of its own, which the
  // compiler vectorises with plain loads rather than gathers; likewise below.
  return stride == 1 ? largest([x](std::int64_t j) { return x[j]; })
                     : largest([x, stride](std::int64_t j) { return x[j * stride]; });
}

/// y_j = exp(x_j - m) / sum_i exp(x_i - m) over n elements at stride `stride`; y may be x.
/// A slice that is all -inf gives NaN (its m is -inf, and -inf - -inf is NaN).
///
/// The elements from `end` on are -inf, and x need not hold them: the fused attention weights
/// leave unwritten the scores that a causal mask hides. -inf elements at the end of the slice
/// get their exact 0 / s without an exponential when m is above -inf: exp(-inf - m) is 0, and
/// adding 0 to a lane's sum, which starts at +0, leaves it as it was.
inline void softmax_slice(const double* x, double* y, std::int64_t stride, std::int64_t n, std::int64_t end) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const double m = slice_max(x, stride, end);
  if (!(m > minus_inf)) {  // nothing above -inf: all NaN, the formula's own NaNs
    auto at = [&](std::int64_t j) { return j < end ? x[j * stride] : minus_inf; };
    const double s = lane_sum(n, [&](std::int64_t j) { return y[j * stride] = vector_exp(at(j) - m); });
    for (std::int64_t j = 0; j < n; ++j) y[j * stride] /= s;
    return;
  }
  std::int64_t used = end;  // stops at an element above -inf, which m says there is
  while (x[(used - 1) * stride] == minus_inf) --used;
  used = std::min(end, (used + kLanes - 1) / kLanes * kLanes);  // whole lanes: fewer scalar exponentials
  const double s = stride == 1
                       ? lane_sum(used, [&](std::int64_t j) { return y[j] = vector_exp(x[j] - m); })
                       : lane_sum(used, [&](std::int64_t j) { return y[j * stride] = vector_exp(x[j * stride] - m); });
  if (stride == 1)
    for (std::int64_t j = 0; j < used; ++j) y[j] /= s;
  else
    for (std::int64_t j = 0; j < used; ++j) y[j * stride] /= s;
  // exp(-inf - m) / s: +0, or NaN when s is (a NaN or +inf in the slice), as torch gives.
  for (std::int64_t j = used; j < n; ++j) y[j * stride] = 0.0 / s;
}

inline void softmax_slice(const double* x, double* y, std::int64_t stride, std::int64_t n) {
  softmax_slice(x, y, stride, n, n);
}

/// softmax_slice over `rows` contiguous rows of n elements each, with the same bits, but the
/// exponentials of many rows computed in one stream. A short row (eight positions, say) is too
/// little work to keep the vector units busy while its exponentials, sum and divisions wait on
/// each other; the rows of a block do not wait on each other. Every exponential is computed
/// (exp(-inf - m) is 0 exactly), and the sums add the same values in the same lanes.
inline void softmax_rows(const double* x, double* y, std::int64_t rows, std::int64_t n) {
  constexpr std::int64_t kBlock = 32;  // rows at a time, their maxima and sums on the stack
  double m[kBlock], s[kBlock];
  for (std::int64_t r0 = 0; r0 < rows; r0 += kBlock) {
    const std::int64_t count = std::min(kBlock, rows - r0);
    const double* xb = x + r0 * n;
    double* yb = y + r0 * n;
    for (std::int64_t r = 0; r < count; ++r) m[r] = slice_max(xb + r * n, 1, n);
    for (std::int64_t r = 0; r < count; ++r)
      for (std::int64_t j = 0; j < n; ++j) yb[r * n + j] = xb[r * n + j] - m[r];
    for (std::int64_t e = 0; e < count * n; ++e) yb[e] = vector_exp(yb[e]);  // one stream for the block
    for (std::int64_t r = 0; r < count; ++r) s[r] = lane_sum(n, [&](std::int64_t j) { return yb[r * n + j]; });
    for (std::int64_t r = 0; r < count; ++r)
      for (std::int64_t j = 0; j < n; ++j) yb[r * n + j] /= s[r];
  }
}

/// dx_j = y_j (g_j - sum_i g_i y_i): the Jacobian diag(y) - y yᵀ applied to g, from the output
/// y alone; dx may be g.
inline void softmax_backward_slice(const double* y, const double* g, double* dx, std::int64_t stride, std::int64_t n) {
  const double dot = lane_sum(n, [&](std::int64_t j) { return g[j * stride] * y[j * stride]; });
  for (std::int64_t j = 0; j < n; ++j) dx[j * stride] = y[j * stride] * (g[j * stride] - dot);
}

}  // namespace litgrad::kernels::fast
