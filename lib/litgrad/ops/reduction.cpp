#include "litgrad/ops/reduction.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/core/grad_mode.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/kernels/reduce.hpp"
#include "litgrad/ops/detail/sum_to.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/indexing.hpp"
#include "litgrad/ops/registry.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad {

// x: [s_0, ..., s_{n-1}]; result: x's shape with each summed dimension set to 1 (keepdim) or
// removed. An empty dims list sums over everything, as torch's sum(dim=[]).
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim) {
  Shape kept = x.shape(), out;
  std::vector<bool> reduced(kept.size(), dims.empty());
  for (auto dim : dims) {
    const std::int64_t d = wrap_dim("sum", dim, x.dim());
    if (x.dim() == 0) continue;
    if (reduced[d]) throw ShapeError("sum: dimension ", dim, " appears twice in the list");
    reduced[d] = true;
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (reduced[i]) kept[i] = 1;
    if (!reduced[i] || keepdim) out.push_back(kept[i]);
  }
  // Each result adds the elements of x that broadcast onto it, in the order kernels/reduce.hpp
  // gives (eight lanes when they are contiguous, otherwise a running total).
  const kernels::SumLayout layout = kernels::sum_layout(x.shape(), reduced);
  Tensor y = detail::uninitialized_tensor(kept);
  kernels::sum(x.data(), layout, y.data());
  return detail::record(
      op::sum, detail::share_storage(y, out), {x},
      [layout](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(layout.shape);  // each element of x receives the gradient of its sum
        kernels::sum_backward(g.data(), layout, gx.data());
        return {gx};
      },
      [layout](const Tensor& g, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {expand(reshape(g, layout.kept), layout.shape)};
      },
      detail::Saved::nothing());
}

Tensor sum(const Tensor& x) { return sum(x, {}, false); }

Tensor mean(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim) {
  const Tensor s = sum(x, dims, keepdim);
  return s / (static_cast<double>(x.numel()) / static_cast<double>(s.numel()));
}

Tensor mean(const Tensor& x) { return mean(x, {}, false); }

// x: [outer, n, inner] around dim; values and indices: [outer, inner] (keepdim: [outer, 1, inner]).
MaxResult max(const Tensor& x, std::int64_t dim, bool keepdim) {
  const std::int64_t d = wrap_dim("max", dim, x.dim());
  Shape kept = x.shape();
  std::int64_t outer = 1, n = 1, inner = 1;
  if (x.dim() > 0) {
    for (std::int64_t i = 0; i < d; ++i) outer *= kept[i];
    n = kept[d];
    for (std::int64_t i = d + 1; i < x.dim(); ++i) inner *= kept[i];
    kept[d] = 1;
  }
  if (n == 0) throw ValueError("max: cannot reduce over dimension ", d, " of size 0 (shape ", x.shape(), ")");
  Shape out = kept;
  if (!keepdim && x.dim() > 0) out.erase(out.begin() + d);
  Tensor values = detail::uninitialized_tensor(out), indices = detail::uninitialized_tensor(out, DType::Int64);
  kernels::max_along(x.data(), outer, n, inner, values.data(), indices.data());
  const Shape in = x.shape();
  Tensor v = detail::record(op::max, values, {x},
                            [in, indices, outer, n, inner](const Tensor& g) -> std::vector<Tensor> {
                              // The gradient goes to the position that won.
                              Tensor gx = detail::uninitialized_tensor(in);
                              kernels::max_along_backward(g.data(), indices.data(), outer, n, inner, gx.data());
                              return {gx};
                            },
                            nullptr, detail::Saved::nothing(), {{"the indices it returned", indices}});
  return {v, indices};
}

// The largest element of x, 0-dimensional; its gradient is shared evenly among the elements
// equal to it (among the NaNs, when one wins), as torch's max() shares it, where max along a
// dimension gives it all to the first.
Tensor max(const Tensor& x) {
  if (x.numel() == 0) throw ValueError("max: cannot reduce an empty tensor of shape ", x.shape());
  const double* v = x.data();
  double top = v[0];
  for (std::int64_t i = 1; i < x.numel() && !std::isnan(top); ++i)
    if (std::isnan(v[i]) || v[i] > top) top = v[i];
  std::vector<std::int64_t> ties;
  for (std::int64_t i = 0; i < x.numel(); ++i)
    if (v[i] == top || (std::isnan(top) && std::isnan(v[i]))) ties.push_back(i);
  const Shape in = x.shape();
  return detail::record(
      op::max, full({}, top), {x},
      [in, ties](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = zeros(in);
        const double share = g.item() / static_cast<double>(ties.size());
        for (std::int64_t i : ties) gx.data()[i] = share;
        return {gx};
      },
      nullptr, detail::Saved::nothing());
}

// min along a dimension is max of the negation: the same first position, a NaN still wins, and
// the gradient, negated twice, reaches the smallest element unchanged.
MaxResult min(const Tensor& x, std::int64_t dim, bool keepdim) {
  wrap_dim("min", dim, x.dim());
  if (x.dim() > 0 && x.shape()[wrap_dim("min", dim, x.dim())] == 0)
    throw ValueError("min: cannot reduce over dimension ", dim, " of size 0 (shape ", x.shape(), ")");
  const MaxResult m = max(neg(x), dim, keepdim);
  return {neg(m.values), m.indices};
}

// min of the negation, as min along a dimension: the ties share the gradient as in max().
Tensor min(const Tensor& x) {
  if (x.numel() == 0) throw ValueError("min: cannot reduce an empty tensor of shape ", x.shape());
  return neg(max(neg(x)));
}

Tensor argmax(const Tensor& x, std::int64_t dim, bool keepdim) {
  NoGradGuard no_grad;
  return max(x, dim, keepdim).indices;
}

Tensor argmax(const Tensor& x) {
  if (x.numel() == 0) throw ValueError("argmax: cannot reduce an empty tensor of shape ", x.shape());
  NoGradGuard no_grad;
  return max(reshape(x, {-1}), 0).indices;
}

Tensor argmin(const Tensor& x, std::int64_t dim, bool keepdim) {
  NoGradGuard no_grad;
  return min(x, dim, keepdim).indices;
}

Tensor argmin(const Tensor& x) {
  if (x.numel() == 0) throw ValueError("argmin: cannot reduce an empty tensor of shape ", x.shape());
  NoGradGuard no_grad;
  return min(reshape(x, {-1}), 0).indices;
}

// x: any shape; result: x's shape without (or, keepdim, with size 1 in) the listed dimensions.
// var = sum((x - mean)²) / (N - correction), N the count of elements each result reduces.
Tensor var(const Tensor& x, const std::vector<std::int64_t>& dims, std::int64_t correction, bool keepdim) {
  if (correction < 0) throw ValueError("var: correction must be non-negative, got ", correction);
  const Tensor deviation = x - mean(x, dims, true);
  const Tensor squares = sum(deviation * deviation, dims, keepdim);
  const double n = squares.numel() == 0 ? 0.0 : static_cast<double>(x.numel()) / static_cast<double>(squares.numel());
  return squares / (n - static_cast<double>(correction));
}

// std = sqrt(var), with torch's gradient 0 where var = 0 (a constant row), where sqrt's own,
// g / (2 sqrt var), is g / 0 and makes 0 · inf = NaN of every deviation's gradient. The square
// root is taken of 1 there instead and its result replaced by the 0 it is: the value and the
// gradient elsewhere are sqrt's to the bit, and a NaN or inf variance (too few elements for
// the correction) stays NaN or inf, as torch's.
Tensor std(const Tensor& x, const std::vector<std::int64_t>& dims, std::int64_t correction, bool keepdim) {
  const Tensor v = var(x, dims, correction, keepdim);
  const Tensor spread = ne(v, scalar_tensor(0));
  return where(spread, sqrt(where(spread, v, ones_like(v))), zeros_like(v));
}

// x: any shape; result: as sum(x, dims, keepdim). Forward y = (sum |x|^p)^(1/p) (max |x| for
// p = inf); backward dx = g |x|^(p-1) sign(x) / y^(p-1), which is g x / y for p = 2, and 0 where
// y = 0 (torch's choice at the zero vector). For p = inf the gradient is shared evenly among
// the elements of largest magnitude, as torch shares it.
Tensor norm(const Tensor& x, double p, const std::vector<std::int64_t>& dims, bool keepdim) {
  if (!(p > 0)) throw ValueError("norm: p must be positive, got ", p);
  std::vector<std::int64_t> reduced = dims;  // the dimensions reduced, every one when none is named
  if (reduced.empty())
    for (std::int64_t d = 0; d < x.dim(); ++d) reduced.push_back(d);
  Tensor kept;  // y with the reduced dimensions kept (size 1), to broadcast against x
  {
    NoGradGuard no_grad;
    const Tensor a = abs(x);
    if (std::isinf(p)) {
      kept = a;
      for (std::int64_t d : reduced) kept = max(kept, d, true).values;
    } else {
      kept = p == 2 ? sqrt(sum(a * a, reduced, true)) : pow(sum(pow(a, p), reduced, true), 1 / p);
    }
  }
  const Shape out = sum(zeros_like(x), reduced, keepdim).shape();
  Tensor y = detail::uninitialized_tensor(out);
  kernels::copy(kept.data(), kept.numel(), y.data());
  return detail::record(op::norm, y, {x}, [x, kept, p, reduced](const Tensor& g) -> std::vector<Tensor> {
    const Tensor gk = reshape(g, kept.shape());  // broadcasts against x
    const Tensor sign =
        where(gt(x, scalar_tensor(0)), ones_like(x), where(lt(x, scalar_tensor(0)), -ones_like(x), zeros_like(x)));
    Tensor dx;
    if (std::isinf(p)) {  // shared among the elements whose magnitude is the largest
      const Tensor top = to(eq(abs(x), kept), DType::Float64);
      dx = gk * sign * top / sum(top, reduced, true);
    } else if (p == 2) {
      dx = gk * x / kept;
    } else {
      dx = gk * sign * pow(abs(x), p - 1) / pow(kept, p - 1);
    }
    return {where(gt(kept, scalar_tensor(0)), dx, zeros_like(x))};  // 0 at the zero vector
  });
}

// x: [outer, n, inner] around dim; values and indices: [outer, k, inner]. The positions are
// found without the graph (a stable sort of each slice), the values gathered from x, so the
// gradient goes back through gather to the positions picked.
MaxResult topk(const Tensor& x, std::int64_t k, std::int64_t dim, bool largest, bool sorted) {
  const std::int64_t d = wrap_dim("topk", dim, std::max<std::int64_t>(x.dim(), 1));
  const Shape shape = x.dim() == 0 ? Shape{1} : x.shape();
  const std::int64_t n = shape[d];
  if (k < 0 || k > n)
    throw ValueError("topk: k = ", k, " is out of range for dimension ", d, " of size ", n, " (shape ", x.shape(), ")");
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t i = 0; i < d; ++i) outer *= shape[i];
  for (std::int64_t i = d + 1; i < static_cast<std::int64_t>(shape.size()); ++i) inner *= shape[i];
  Shape out = shape;
  out[d] = k;
  Tensor indices = detail::uninitialized_tensor(out, DType::Int64);
  if (indices.numel() > 0)  // an empty x has no data to point into
    kernels::top_positions(x.data(), outer, n, inner, k, largest, sorted, indices.data());
  const Tensor source = x.dim() == 0 ? reshape(x, {1}) : x;
  Tensor values = gather(source, d, indices);
  if (x.dim() == 0) return {reshape(values, {}), reshape(indices, {})};
  return {values, indices};
}

namespace detail {

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g.shape() == shape) return g;
  const std::int64_t lead = g.dim() - static_cast<std::int64_t>(shape.size());
  std::vector<std::int64_t> dims;
  for (std::int64_t d = 0; d < g.dim(); ++d)
    if (d < lead || shape[static_cast<std::size_t>(d - lead)] == 1) dims.push_back(d);
  return reshape(sum(g, dims, true), shape);
}

}  // namespace detail

}  // namespace litgrad
