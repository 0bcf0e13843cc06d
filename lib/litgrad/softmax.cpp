#include "litgrad/softmax.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/detail/broadcast.hpp"
#include "litgrad/detail/node.hpp"
#include "litgrad/detail/softmax_slice.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/error.hpp"
#include "litgrad/reshaping.hpp"

namespace litgrad {

namespace {

// Calls f(first, stride, n) for every slice along `dim` of a tensor of shape `shape`:
// the slice's elements are at first, first + stride, ..., first + (n-1) * stride.
template <class F>
void for_each_slice(const Shape& shape, std::int64_t dim, F f) {
  if (numel(shape) == 0) return;  // no elements, no slices (and an empty tensor's data may be null)
  std::int64_t outer = 1, n = shape.empty() ? 1 : shape[dim], inner = 1;
  for (std::int64_t i = 0; i < dim; ++i) outer *= shape[i];
  for (std::size_t i = dim + 1; i < shape.size(); ++i) inner *= shape[i];
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t k = 0; k < inner; ++k) f(o * n * inner + k, inner, n);
}

// Whether the slices along `dim` are contiguous rows: no dimension after it has more than one element.
bool slices_are_rows(const Shape& shape, std::int64_t dim) {
  for (std::size_t i = static_cast<std::size_t>(dim) + 1; i < shape.size(); ++i)
    if (shape[i] != 1) return false;
  return true;
}

}  // namespace

// x: any shape; y: x's shape. y_i = exp(x_i - m) / sum_j exp(x_j - m) along dim.
Tensor softmax(const Tensor& x, std::int64_t dim) {
  const std::int64_t d = wrap_dim("softmax", dim, x.dim());
  Tensor y = detail::uninitialized_tensor(x.shape());
  const double* xv = x.data();
  double* yv = y.data();
  const std::int64_t n = x.dim() == 0 ? 1 : x.size(d), count = x.numel();
  if (count > 0 && slices_are_rows(x.shape(), d))
    detail::softmax_rows(xv, yv, count / n, n);
  else
    for_each_slice(x.shape(), d, [&](std::int64_t first, std::int64_t stride, std::int64_t n) {
      detail::softmax_slice(xv + first, yv + first, stride, n);
    });
  // dx_i = y_i (g_i - sum_j g_j y_j): the Jacobian diag(y) - y yᵀ applied to g, from y alone.
  return detail::record("softmax", y, {x}, [y, d](const Tensor& g) -> std::vector<Tensor> {
    Tensor gx = detail::uninitialized_tensor(y.shape());
    const double *yv = y.data(), *gv = g.data();
    double* gxv = gx.data();
    for_each_slice(y.shape(), d, [&](std::int64_t first, std::int64_t stride, std::int64_t n) {
      detail::softmax_backward_slice(yv + first, gv + first, gxv + first, stride, n);
    });
    return {gx};
  });
}

// x: any shape; y: x's shape. y_i = x_i - m - log(sum_j exp(x_j - m)) along dim.
Tensor log_softmax(const Tensor& x, std::int64_t dim) {
  const std::int64_t d = wrap_dim("log_softmax", dim, x.dim());
  Tensor y = detail::uninitialized_tensor(x.shape());
  for_each_slice(x.shape(), d, [&](std::int64_t first, std::int64_t stride, std::int64_t n) {
    const double* xv = x.data() + first;
    const double m = detail::slice_max(xv, stride, n);
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) s += std::exp(xv[j * stride] - m);  // all -inf: NaN
    const double lse = std::log(s);
    double* yv = y.data() + first;
    for (std::int64_t j = 0; j < n; ++j) yv[j * stride] = xv[j * stride] - m - lse;
  });
  // dx_i = g_i - exp(y_i) sum_j g_j: the derivative of log softmax, from y alone.
  return detail::record("log_softmax", y, {x}, [y, d](const Tensor& g) -> std::vector<Tensor> {
    Tensor gx = detail::uninitialized_tensor(y.shape());
    for_each_slice(y.shape(), d, [&](std::int64_t first, std::int64_t stride, std::int64_t n) {
      const double *yv = y.data() + first, *gv = g.data() + first;
      double total = 0;
      for (std::int64_t j = 0; j < n; ++j) total += gv[j * stride];
      double* gxv = gx.data() + first;
      for (std::int64_t j = 0; j < n; ++j) gxv[j * stride] = gv[j * stride] - std::exp(yv[j * stride]) * total;
    });
    return {gx};
  });
}

// x: [..., n, ...] around dim; y: [..., ...] (keepdim: [..., 1, ...]). y = m + log(sum_j exp(x_j - m)).
Tensor logsumexp(const Tensor& x, std::int64_t dim, bool keepdim) {
  const std::int64_t d = wrap_dim("logsumexp", dim, x.dim());
  Shape kept = x.shape();
  if (x.dim() > 0) kept[d] = 1;
  Tensor y = detail::uninitialized_tensor(kept);
  std::int64_t slice = 0;
  if (y.numel() > 0 && x.numel() == 0) std::fill_n(y.data(), y.numel(), -INFINITY);  // sums of nothing
  for_each_slice(x.shape(), d, [&](std::int64_t first, std::int64_t stride, std::int64_t n) {
    const double* xv = x.data() + first;
    const double m = detail::slice_max(xv, stride, n);
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) s += std::exp(xv[j * stride] - m);
    y.data()[slice++] = std::isinf(m) && m < 0 ? m : m + std::log(s);  // all -inf: -inf
  });
  // dx_j = g exp(x_j - y): softmax along dim, from x and y.
  Tensor out = detail::record("logsumexp", y, {x}, [x, y](const Tensor& g) -> std::vector<Tensor> {
    Tensor gx = detail::uninitialized_tensor(x.shape());
    const double *xv = x.data(), *yv = y.data(), *gv = g.data();
    double* gxv = gx.data();
    detail::for_each_broadcast<1>(x.shape(), {&y.shape()}, [&](std::int64_t i, const auto& o) {
      gxv[i] = gv[o[0]] * std::exp(xv[i] - yv[o[0]]);
    });
    return {gx};
  });
  if (keepdim || x.dim() == 0) return out;
  Shape dropped = x.shape();
  dropped.erase(dropped.begin() + d);
  return reshape(out, dropped);
}

}  // namespace litgrad
