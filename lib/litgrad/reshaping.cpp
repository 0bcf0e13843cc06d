#include "litgrad/reshaping.hpp"

#include <algorithm>

#include "litgrad/detail/node.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/error.hpp"

namespace litgrad {

// x: any shape with n elements; result: `shape`, n elements, the same storage.
Tensor reshape(const Tensor& x, const Shape& shape) {
  Shape out = shape;
  std::int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1 && infer < 0) infer = static_cast<std::int64_t>(i);
    else if (out[i] < 0)
      throw ShapeError("reshape: invalid shape " + to_string(shape) + " (one -1 at most, no other negative size)");
    else known *= out[i];
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known != 0)
      throw ShapeError("reshape: cannot reshape " + to_string(x.shape()) + " (" + std::to_string(x.numel()) +
                       " elements) into " + to_string(shape));
    out[infer] = x.numel() / known;
  }
  if (numel(out) != x.numel())
    throw ShapeError("reshape: cannot reshape " + to_string(x.shape()) + " (" + std::to_string(x.numel()) +
                     " elements) into " + to_string(shape) + " (" + std::to_string(numel(out)) + " elements)");
  const Shape in = x.shape();
  return detail::record("reshape", detail::share_storage(x, out), {x},
                        [in](const Tensor& g) -> std::vector<Tensor> { return {reshape(g, in)}; });
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
    throw ShapeError("permute: " + std::to_string(dims.size()) + " dimensions given for a tensor of shape " +
                     to_string(x.shape()));
  for (std::size_t i = 0; i < dims.size(); ++i) {
    p[i] = wrap_dim("permute", dims[i], n);
    if (used[p[i]]) throw ShapeError("permute: dimension " + std::to_string(dims[i]) + " appears twice in " + to_string(dims));
    used[p[i]] = true;
  }
  Shape out(n);
  for (std::int64_t i = 0; i < n; ++i) out[i] = x.shape()[p[i]];
  // Input strides read in the output's order: walking the output row-major visits the input
  // element at sum(index[i] * in_stride[p[i]]).
  std::vector<std::int64_t> in_stride(n, 1), stride(n);
  for (std::int64_t i = n - 1; i > 0; --i) in_stride[i - 1] = in_stride[i] * x.shape()[i];
  for (std::int64_t i = 0; i < n; ++i) stride[i] = in_stride[p[i]];
  Tensor y = detail::uninitialized_tensor(out);
  // When the last dimension stays last, whole rows move together: copy them as blocks. The
  // innermost of the other dimensions is a plain loop (`line` blocks `step` apart in x), and an
  // odometer walks the rest.
  const std::int64_t block = n > 0 && p[n - 1] == n - 1 ? out[n - 1] : 1;
  const std::int64_t outer_dims = block > 1 ? n - 1 : n;
  const std::int64_t line = outer_dims > 0 ? out[outer_dims - 1] : 1, step = outer_dims > 0 ? stride[outer_dims - 1] : 0;
  std::vector<std::int64_t> index(n, 0);
  std::int64_t offset = 0;
  const double* from = x.data();
  double* to = y.data();
  const std::int64_t total = y.numel();
  for (std::int64_t i = 0; i < total; i += block * line) {
    for (std::int64_t r = 0; r < line; ++r) {
      const double* src = from + offset + r * step;
      double* dst = to + i + r * block;
      for (std::int64_t j = 0; j < block; ++j) dst[j] = src[j];  // short rows: no memmove call
    }
    for (std::int64_t d = outer_dims - 2; d >= 0; --d) {
      offset += stride[d];
      if (++index[d] < out[d]) break;
      offset -= stride[d] * out[d];
      index[d] = 0;
    }
  }
  std::vector<std::int64_t> inverse(n);
  for (std::int64_t i = 0; i < n; ++i) inverse[p[i]] = i;
  return detail::record("permute", y, {x}, [inverse](const Tensor& g) -> std::vector<Tensor> {
    return {permute(g, inverse)};  // undoing the permutation is the permutation by its inverse
  });
}

Tensor transpose(const Tensor& x, std::int64_t dim0, std::int64_t dim1) {
  const std::int64_t a = wrap_dim("transpose", dim0, x.dim()), b = wrap_dim("transpose", dim1, x.dim());
  std::vector<std::int64_t> dims(x.dim());
  for (std::int64_t i = 0; i < x.dim(); ++i) dims[i] = i;
  if (x.dim() > 0) std::swap(dims[a], dims[b]);
  return permute(x, dims);
}

}  // namespace litgrad
