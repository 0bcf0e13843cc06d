#include "litgrad/reduction.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/detail/broadcast.hpp"
#include "litgrad/detail/lane_sum.hpp"
#include "litgrad/detail/node.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/elementwise.hpp"
#include "litgrad/error.hpp"
#include "litgrad/reshaping.hpp"

namespace litgrad {

namespace {

// The shape as [outer, n, inner] with the summed dimensions making up n, when they sit together
// (dimensions of size 1 may be on either side of the boundaries); n = 0 when they do not.
struct Block {
  std::int64_t outer = 1, n = 1, inner = 1;
};
Block summed_block(const Shape& shape, const std::vector<bool>& reduced) {
  Block b;
  int part = 0;  // 0: before the summed dimensions, 1: among them, 2: after them
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (reduced[i] && part == 2) return {1, 0, 1};  // a second run of summed dimensions
    part = reduced[i] ? 1 : (part == 0 ? 0 : 2);
    (part == 0 ? b.outer : part == 1 ? b.n : b.inner) *= shape[i];
  }
  return b;
}

}  // namespace

// x: [s_0, ..., s_{n-1}]; result: x's shape with each summed dimension set to 1 (keepdim) or
// removed. An empty dims list sums over everything, as torch's sum(dim=[]).
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim) {
  Shape kept = x.shape(), out;
  std::vector<bool> reduced(kept.size(), dims.empty());
  for (auto dim : dims) {
    const std::int64_t d = wrap_dim("sum", dim, x.dim());
    if (x.dim() == 0) continue;
    if (reduced[d]) throw ShapeError("sum: dimension " + std::to_string(dim) + " appears twice in the list");
    reduced[d] = true;
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (reduced[i]) kept[i] = 1;
    if (!reduced[i] || keepdim) out.push_back(kept[i]);
  }
  // Every element of x adds into the element of the kept-shape result that broadcasts onto it.
  // When the summed dimensions are the last ones (a full sum, a sum over rows), each result
  // sums one contiguous run, in eight lanes (detail/lane_sum.hpp).
  Tensor y = detail::empty_tensor(kept);
  double* yv = y.data();
  const double* xv = x.data();
  std::size_t first_reduced = reduced.size();
  while (first_reduced > 0 && reduced[first_reduced - 1]) --first_reduced;
  const bool suffix = std::find(reduced.begin(), reduced.begin() + first_reduced, true) == reduced.begin() + first_reduced;
  const Block block = summed_block(x.shape(), reduced);
  if (suffix && x.numel() > 0) {
    const std::int64_t run = x.numel() / y.numel();
    for (std::int64_t o = 0, n = y.numel(); o < n; ++o)
      yv[o] = detail::lane_sum(run, [&](std::int64_t j) { return xv[o * run + j]; });
  } else if (block.n > 0) {  // each result's sum in a register, its terms in the same order
    for (std::int64_t o = 0; o < block.outer; ++o)
      for (std::int64_t k = 0; k < block.inner; ++k) {
        double total = 0.0;
        for (std::int64_t j = 0; j < block.n; ++j) total += xv[(o * block.n + j) * block.inner + k];
        yv[o * block.inner + k] = total;
      }
  } else {
    detail::for_each_broadcast<1>(x.shape(), {&kept}, [&](std::int64_t i, const auto& o) { yv[o[0]] += xv[i]; });
  }
  const Shape in = x.shape();
  return detail::record("sum", detail::share_storage(y, out), {x}, [in, kept, block](const Tensor& g) -> std::vector<Tensor> {
    Tensor gx = detail::uninitialized_tensor(in);  // each element of x receives the gradient of its sum
    double* gxv = gx.data();
    const double* gv = g.data();
    if (block.n > 0)
      detail::with_short_width(block.inner, [&](auto inner) {
        for (std::int64_t o = 0; o < block.outer; ++o)
          for (std::int64_t j = 0; j < block.n; ++j)
            for (std::int64_t k = 0; k < inner; ++k) gxv[(o * block.n + j) * inner + k] = gv[o * inner + k];
      });
    else
      detail::for_each_broadcast<1>(in, {&kept}, [&](std::int64_t i, const auto& o) { gxv[i] = gv[o[0]]; });
    return {gx};
  });
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
  if (n == 0)
    throw ValueError("max: cannot reduce over dimension " + std::to_string(d) + " of size 0 (shape " +
                     to_string(x.shape()) + ")");
  Shape out = kept;
  if (!keepdim && x.dim() > 0) out.erase(out.begin() + d);
  Tensor values = detail::empty_tensor(out), indices = detail::empty_tensor(out, DType::Int64);
  const double* xv = x.data();
  double *vv = values.data(), *iv = indices.data();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t k = 0; k < inner; ++k) {
      const double* row = xv + o * n * inner + k;
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < n && !std::isnan(row[best * inner]); ++j)
        if (row[j * inner] > row[best * inner] || std::isnan(row[j * inner])) best = j;  // NaN wins
      vv[o * inner + k] = row[best * inner];
      iv[o * inner + k] = static_cast<double>(best);
    }
  const Shape in = x.shape();
  Tensor v = detail::record("max", values, {x}, [in, indices, outer, n, inner](const Tensor& g) -> std::vector<Tensor> {
    Tensor gx = detail::empty_tensor(in);  // the gradient goes to the position that won
    const double *iv = indices.data(), *gv = g.data();
    double* gxv = gx.data();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t k = 0; k < inner; ++k) {
        const auto j = static_cast<std::int64_t>(iv[o * inner + k]);
        gxv[(o * n + j) * inner + k] += gv[o * inner + k];
      }
    return {gx};
  });
  return {v, indices};
}

Tensor max(const Tensor& x) {
  if (x.numel() == 0) throw ValueError("max: cannot reduce an empty tensor of shape " + to_string(x.shape()));
  return max(reshape(x, {-1}), 0).values;
}

}  // namespace litgrad
