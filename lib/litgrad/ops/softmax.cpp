// softmax, log_softmax and logsumexp: the formulas and their gradients. The loops are the
// kernels' (kernels/softmax.hpp), which say how each sum is added.

#include "litgrad/ops/softmax.hpp"

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/softmax.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/registry.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad {

namespace {

// A shape seen as [outer, n, inner] around dimension d (a scalar as one slice of one element).
struct Slices {
  std::int64_t outer = 1, n = 1, inner = 1;
};
Slices slices(const Shape& shape, std::int64_t d) {
  Slices s;
  if (shape.empty()) return s;
  for (std::int64_t i = 0; i < d; ++i) s.outer *= shape[i];
  s.n = shape[d];
  for (std::size_t i = d + 1; i < shape.size(); ++i) s.inner *= shape[i];
  return s;
}

}  // namespace

// x: any shape; y: x's shape. y_i = exp(x_i - m) / sum_j exp(x_j - m) along dim, m the largest.
Tensor softmax(const Tensor& x, std::int64_t dim) {
  const std::int64_t d = wrap_dim("softmax", dim, x.dim());
  const Slices s = slices(x.shape(), d);
  Tensor y = detail::uninitialized_tensor(x.shape());
  if (x.numel() > 0) kernels::softmax(x.data(), y.data(), s.outer, s.n, s.inner);
  // dx_i = y_i (g_i - sum_j g_j y_j): the Jacobian diag(y) - y yᵀ applied to g, from y alone.
  return detail::record(
      op::softmax, y, {x},
      [y, s](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(y.shape());
        if (y.numel() > 0) kernels::softmax_backward(y.data(), g.data(), gx.data(), s.outer, s.n, s.inner);
        return {gx};
      },
      [d](const Tensor& g, const Tensor& y, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {y * (g - sum(g * y, {d}, true))};
      },
      detail::Saved::only_output());
}

// x: any shape; y: x's shape. y_i = x_i - m - log(sum_j exp(x_j - m)) along dim.
Tensor log_softmax(const Tensor& x, std::int64_t dim) {
  const std::int64_t d = wrap_dim("log_softmax", dim, x.dim());
  const Slices s = slices(x.shape(), d);
  Tensor y = detail::uninitialized_tensor(x.shape());
  if (x.numel() > 0) kernels::log_softmax(x.data(), y.data(), s.outer, s.n, s.inner);
  // dx_i = g_i - exp(y_i) sum_j g_j: the derivative of log softmax, from y alone.
  return detail::record(
      op::log_softmax, y, {x},
      [y, s](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(y.shape());
        if (y.numel() > 0) kernels::log_softmax_backward(y.data(), g.data(), gx.data(), s.outer, s.n, s.inner);
        return {gx};
      },
      [d](const Tensor& g, const Tensor& y, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {g - exp(y) * sum(g, {d}, true)};
      },
      detail::Saved::only_output());
}

// x: [..., n, ...] around dim; y: [..., ...] (keepdim: [..., 1, ...]). y = m + log(sum_j exp(x_j - m)).
Tensor logsumexp(const Tensor& x, std::int64_t dim, bool keepdim) {
  const std::int64_t d = wrap_dim("logsumexp", dim, x.dim());
  const Slices s = slices(x.shape(), d);
  Shape kept = x.shape();
  if (x.dim() > 0) kept[d] = 1;
  Tensor y = detail::uninitialized_tensor(kept);
  if (y.numel() > 0) kernels::logsumexp(x.data(), y.data(), s.outer, s.n, s.inner);  // sums of nothing: -inf
  // dx_j = g exp(x_j - y): softmax along dim, from x and y.
  Tensor out = detail::record(
      op::logsumexp, y, {x},
      [x, y, s](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(x.shape());
        if (x.numel() > 0) kernels::logsumexp_backward(x.data(), y.data(), g.data(), gx.data(), s.outer, s.n, s.inner);
        return {gx};
      },
      [](const Tensor& g, const Tensor& y, const std::vector<Tensor>& in) -> std::vector<Tensor> {
        return {g * exp(in[0] - y)};  // y and g keep the summed dimension, of size 1: they broadcast
      });
  if (keepdim || x.dim() == 0) return out;
  Shape dropped = x.shape();
  dropped.erase(dropped.begin() + d);
  return reshape(out, dropped);
}

}  // namespace litgrad
