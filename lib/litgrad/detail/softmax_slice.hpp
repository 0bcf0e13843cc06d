#pragma once
// Softmax of one slice, forward and backward: shared by softmax() and the fused attention
// weights, which must compute bit for bit the same. Only the library's own .cpp files include this.

#include <cmath>
#include <cstdint>
#include <limits>

namespace litgrad::detail {

/// The largest of n elements at stride `stride`, or NaN if one is NaN (so a NaN reaches the output).
inline double slice_max(const double* x, std::int64_t stride, std::int64_t n) {
  double m = -std::numeric_limits<double>::infinity();
  for (std::int64_t j = 0; j < n; ++j) m = std::isnan(x[j * stride]) || x[j * stride] > m ? x[j * stride] : m;
  return m;
}

/// y_j = exp(x_j - m) / sum_i exp(x_i - m) over n elements at stride `stride`; y may be x.
/// A slice that is all -inf gives NaN. A masked element (x_j - m = -inf) gets exp's exact
/// answer, 0, without calling exp: half of a causal mask's scores are masked.
inline void softmax_slice(const double* x, double* y, std::int64_t stride, std::int64_t n) {
  const double m = slice_max(x, stride, n);
  double s = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const double z = x[j * stride] - m;
    s += y[j * stride] = z == -std::numeric_limits<double>::infinity() ? 0.0 : std::exp(z);
  }
  for (std::int64_t j = 0; j < n; ++j) y[j * stride] /= s;
}

/// dx_j = y_j (g_j - sum_i g_i y_i): the Jacobian diag(y) - y yᵀ applied to g, from the output
/// y alone; dx may be g.
inline void softmax_backward_slice(const double* y, const double* g, double* dx, std::int64_t stride, std::int64_t n) {
  double dot = 0;
  for (std::int64_t j = 0; j < n; ++j) dot += g[j * stride] * y[j * stride];
  for (std::int64_t j = 0; j < n; ++j) dx[j * stride] = y[j * stride] * (g[j * stride] - dot);
}

}  // namespace litgrad::detail
