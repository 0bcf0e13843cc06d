#include "litgrad/ops/reshaping.hpp"

#include <algorithm>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/ops/detail/sum_to.hpp"
#include "litgrad/ops/registry.hpp"

namespace litgrad {

// x: any shape with n elements; result: `shape`, n elements, the same storage.
Tensor reshape(const Tensor& x, const Shape& shape) {
  Shape out = shape;
  std::int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1 && infer < 0)
      infer = static_cast<std::int64_t>(i);
    else if (out[i] < 0)
      throw ShapeError("reshape: invalid shape ", shape, " (one -1 at most, no other negative size)");
    else
      known *= out[i];
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known != 0)
      throw ShapeError("reshape: cannot reshape ", x.shape(), " (", x.numel(), " elements) into ", shape);
    out[infer] = x.numel() / known;
  }
  if (numel(out) != x.numel())
    throw ShapeError("reshape: cannot reshape ", x.shape(), " (", x.numel(), " elements) into ", shape, " (",
                     numel(out), " elements)");
  const Shape in = x.shape();
  return detail::record(
      op::reshape, detail::share_storage(x, out), {x},
      [in](const Tensor& g) -> std::vector<Tensor> { return {reshape(g, in)}; },
      // The input's shape from the input itself: a closure that captures nothing is kept inside
      // the std::function, where one holding a Shape took a heap allocation per reshape.
      [](const Tensor& g, const Tensor&, const std::vector<Tensor>& inputs) -> std::vector<Tensor> {
        return {reshape(g, inputs[0].shape())};
      },
      detail::Saved::nothing());
}

Tensor unsqueeze(const Tensor& x, std::int64_t dim) {
  const std::int64_t d = wrap_dim("unsqueeze", dim, x.dim() + 1);
  Shape s = x.shape();
  s.insert(s.begin() + d, 1);
  return reshape(x, s);
}

Tensor squeeze(const Tensor& x, std::int64_t dim) {
  const std::int64_t d = wrap_dim("squeeze", dim, x.dim());
  if (x.dim() == 0 || x.shape()[d] != 1) return x;
  Shape s = x.shape();
  s.erase(s.begin() + d);
  return reshape(x, s);
}

// x: [s_0, ..., s_{n-1}]; result: [s_{dims[0]}, ..., s_{dims[n-1]}].
Tensor permute(const Tensor& x, const std::vector<std::int64_t>& dims) {
  const std::int64_t n = x.dim();
  std::vector<std::int64_t> p(dims.size());
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  if (static_cast<std::int64_t>(dims.size()) != n)
    throw ShapeError("permute: ", dims.size(), " dimensions given for a tensor of shape ", x.shape());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    p[i] = wrap_dim("permute", dims[i], n);
    if (used[p[i]]) throw ShapeError("permute: dimension ", dims[i], " appears twice in ", dims);
    used[p[i]] = true;
  }
  Shape out(n);
  for (std::int64_t i = 0; i < n; ++i) out[i] = x.shape()[p[i]];
  Tensor y = detail::uninitialized_tensor(out);
  kernels::permute(x.data(), x.shape(), p, y.data());
  std::vector<std::int64_t> inverse(n);
  for (std::int64_t i = 0; i < n; ++i) inverse[p[i]] = i;
  // Undoing the permutation is the permutation by its inverse.
  auto back = [inverse](const Tensor& g) -> std::vector<Tensor> { return {permute(g, inverse)}; };
  return detail::record(
      op::permute, y, {x}, back, [back](const Tensor& g, const Tensor&, const std::vector<Tensor>&) { return back(g); },
      detail::Saved::nothing());
}

Tensor transpose(const Tensor& x, std::int64_t dim0, std::int64_t dim1) {
  const std::int64_t a = wrap_dim("transpose", dim0, x.dim()), b = wrap_dim("transpose", dim1, x.dim());
  std::vector<std::int64_t> dims(x.dim());
  for (std::int64_t i = 0; i < x.dim(); ++i) dims[i] = i;
  if (x.dim() > 0) std::swap(dims[a], dims[b]);
  return permute(x, dims);
}

// x: [d0, ..., dk]; result: [d0, ..., d(start-1), d_start · ... · d_end, d(end+1), ...].
Tensor flatten(const Tensor& x, std::int64_t start_dim, std::int64_t end_dim) {
  if (x.dim() == 0) return reshape(x, {1});
  const std::int64_t a = wrap_dim("flatten", start_dim, x.dim()), b = wrap_dim("flatten", end_dim, x.dim());
  if (a > b) throw ValueError("flatten: start_dim ", start_dim, " comes after end_dim ", end_dim);
  Shape out;
  std::int64_t merged = 1;
  for (std::int64_t i = 0; i < x.dim(); ++i) {
    if (i < a || i > b)
      out.push_back(x.shape()[i]);
    else
      merged *= x.shape()[i];
    if (i == b) out.push_back(merged);
  }
  return reshape(x, out);
}

// x: broadcasts to `sizes`; result: `sizes`. y[i] = x[the element i broadcasts from];
// dx[that element] += g[i].
Tensor expand(const Tensor& x, const Shape& sizes) {
  Shape out = sizes;
  const std::int64_t lead = static_cast<std::int64_t>(out.size()) - x.dim();
  if (lead < 0)
    throw ShapeError("expand: cannot expand shape ", x.shape(), " to ", sizes, ", which has fewer dimensions");
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(out.size()); ++i)
    if (out[i] == -1) {
      if (i < lead) throw ShapeError("expand: -1 in a new leading dimension of ", sizes);
      out[i] = x.shape()[i - lead];
    }
  if (broadcast_shapes("expand", x.shape(), out) != out)
    throw ShapeError("expand: shape ", x.shape(), " does not broadcast to ", sizes);
  Tensor y = detail::uninitialized_tensor(out, x.dtype());
  kernels::expand(x.data(), x.shape(), y.data(), out);
  const Shape in = x.shape();
  return detail::record(
      op::expand, y, {x},
      [in, out](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(in);
        kernels::expand_backward(g.data(), out, gx.data(), in);
        return {gx};
      },
      [in](const Tensor& g, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {detail::sum_to(g, in)};
      },
      detail::Saved::nothing());
}

// x: [d0, ..., dk]; result: [r0·d0, ..., rk·dk] (after leading repeats). y[i] = x[i mod d, per
// dimension]; dx[j] = the sum of g over j's copies.
Tensor repeat(const Tensor& x, const std::vector<std::int64_t>& repeats) {
  const std::int64_t n = static_cast<std::int64_t>(repeats.size());
  if (n < x.dim())
    throw ShapeError("repeat: ", n, " repeats for a tensor of shape ", x.shape(), " (need at least one per dimension)");
  Shape in(static_cast<std::size_t>(n), 1), out(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < x.dim(); ++i) in[n - x.dim() + i] = x.shape()[i];
  for (std::int64_t i = 0; i < n; ++i) {
    if (repeats[i] < 0) throw ValueError("repeat: repeats must be non-negative, got ", repeats[i]);
    out[i] = in[i] * repeats[i];
  }
  const std::vector<std::int64_t> source = kernels::repeat_sources(in, out);  // of every element
  Tensor y = detail::uninitialized_tensor(out, x.dtype());
  kernels::take(x.data(), source, y.data());
  const Shape shape = x.shape();
  return detail::record(
      op::repeat, y, {x},
      [shape, source](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(shape);
        kernels::take_backward(g.data(), source, gx.data(), gx.numel());
        return {gx};
      },
      nullptr, detail::Saved::nothing());
}

}  // namespace litgrad
