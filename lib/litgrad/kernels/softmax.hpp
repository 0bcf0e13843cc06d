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
// log_softmax's, also the same in both rooms: m and s as softmax's, y_j = (x_j - m) - log(s)
// (std::log, once a slice); backward, dx_j = g_j - exp(y_j) t with t = lane_sum of the g_j.

#include <cstdint>

#include "litgrad/kernels/room.hpp"

namespace litgrad::kernels {

namespace plain {
void softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                      std::int64_t inner);
void log_softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void log_softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                          std::int64_t inner);
// One implementation, which both rooms use (it is in no training loop):
//   logsumexp: y = m + log(s) per slice, s as softmax's (-inf for a slice of only -inf, or an
//   empty one), y laid out [outer, inner]; backward dx_j = g e^{x_j - y}.
void logsumexp(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void logsumexp_backward(const double* x, const double* y, const double* g, double* dx, std::int64_t outer,
                        std::int64_t n, std::int64_t inner);
}  // namespace plain

namespace fast {
void softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                      std::int64_t inner);
void log_softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner);
void log_softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
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
/// y (x's layout) = log_softmax of every slice.
inline void log_softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  room::log_softmax(x, y, outer, n, inner);
}
/// dx from log_softmax's output y and the gradient g of its output.
inline void log_softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                                 std::int64_t inner) {
  room::log_softmax_backward(y, g, dx, outer, n, inner);
}
using plain::logsumexp;
using plain::logsumexp_backward;

}  // namespace litgrad::kernels
