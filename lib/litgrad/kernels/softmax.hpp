#pragma once
// Softmax and its relatives along one dimension, on raw arrays. Only the library's own .cpp
// files (and the kernels' tests) include this.
//
// A tensor is seen as [outer, n, inner] around the dimension: slice (o, c) is the n elements at
// o n inner + c + j inner, j < n (contiguous rows when inner = 1).
//
// Softmax's arithmetic, the same in both rooms (kernels/room.hpp): per slice, m = its largest
// element, NaNs left out (-inf when there is none); e_j = exp(x_j - m) by kernels/exp.hpp;
// s = lane_sum of the e_j (kernels/lanes.hpp); y_j = e_j / s. A slice of only -inf gives NaN
// (-inf - -inf is NaN), and so does one holding a NaN or +inf, as torch gives. Backward,
// dx_j = y_j (g_j - d) with d = lane_sum of g_j y_j: the Jacobian diag(y) - y yᵀ applied to g.

#include <cstdint>

#include "litgrad/kernels/room.hpp"

namespace litgrad::kernels {

namespace plain {
void softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                      std::int64_t inner);
// One implementation, which both rooms use: sums in order with std::exp, and std::log.
//   log_softmax: y_j = x_j - m - log(sum_i exp(x_i - m)); backward dx_j = g_j - exp(y_j) sum_i g_i.
//   logsumexp: y = m + log(sum_i exp(x_i - m)) per slice (-inf for a slice of only -inf, or an
//   empty one), y laid out [outer, inner]; backward dx_j = g exp(x_j - y).
void log_softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void log_softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                          std::int64_t inner);
void logsumexp(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void logsumexp_backward(const double* x, const double* y, const double* g, double* dx, std::int64_t outer,
                        std::int64_t n, std::int64_t inner);
}  // namespace plain

namespace fast {
void softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                      std::int64_t inner);
}  // namespace fast

/// y (x's layout, may be x) = softmax of every slice.
inline void softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  room::softmax(x, y, outer, n, inner);
}
/// dx (may be g) from softmax's output y and the gradient g of its output.
inline void softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                             std::int64_t inner) {
  room::softmax_backward(y, g, dx, outer, n, inner);
}
using plain::log_softmax;
using plain::log_softmax_backward;
using plain::logsumexp;
using plain::logsumexp_backward;

}  // namespace litgrad::kernels
