#include "litgrad/reduction.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/detail/broadcast.hpp"
#include "litgrad/detail/lane_sum.hpp"
#include "litgrad/detail/node.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/autograd.hpp"
#include "litgrad/elementwise.hpp"
#include "litgrad/indexing.hpp"
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

// min along a dimension is max of the negation: the same first position, a NaN still wins, and
// the gradient, negated twice, reaches the smallest element unchanged.
MaxResult min(const Tensor& x, std::int64_t dim, bool keepdim) {
  wrap_dim("min", dim, x.dim());
  if (x.dim() > 0 && x.shape()[wrap_dim("min", dim, x.dim())] == 0)
    throw ValueError("min: cannot reduce over dimension " + std::to_string(dim) + " of size 0 (shape " +
                     to_string(x.shape()) + ")");
  const MaxResult m = max(neg(x), dim, keepdim);
  return {neg(m.values), m.indices};
}

Tensor min(const Tensor& x) {
  if (x.numel() == 0) throw ValueError("min: cannot reduce an empty tensor of shape " + to_string(x.shape()));
  return neg(max(neg(x)));
}

Tensor argmax(const Tensor& x, std::int64_t dim, bool keepdim) {
  NoGradGuard no_grad;
  return max(x, dim, keepdim).indices;
}

Tensor argmax(const Tensor& x) {
  if (x.numel() == 0) throw ValueError("argmax: cannot reduce an empty tensor of shape " + to_string(x.shape()));
  NoGradGuard no_grad;
  return max(reshape(x, {-1}), 0).indices;
}

Tensor argmin(const Tensor& x, std::int64_t dim, bool keepdim) {
  NoGradGuard no_grad;
  return min(x, dim, keepdim).indices;
}

Tensor argmin(const Tensor& x) {
  if (x.numel() == 0) throw ValueError("argmin: cannot reduce an empty tensor of shape " + to_string(x.shape()));
  NoGradGuard no_grad;
  return min(reshape(x, {-1}), 0).indices;
}

// x: any shape; result: x's shape without (or, keepdim, with size 1 in) the listed dimensions.
// var = sum((x - mean)²) / (N - correction), N the count of elements each result reduces.
Tensor var(const Tensor& x, const std::vector<std::int64_t>& dims, std::int64_t correction, bool keepdim) {
  if (correction < 0) throw ValueError("var: correction must be non-negative, got " + std::to_string(correction));
  const Tensor deviation = x - mean(x, dims, true);
  const Tensor squares = sum(deviation * deviation, dims, keepdim);
  const double n = squares.numel() == 0 ? 0.0 : static_cast<double>(x.numel()) / static_cast<double>(squares.numel());
  return squares / (n - static_cast<double>(correction));
}

Tensor std(const Tensor& x, const std::vector<std::int64_t>& dims, std::int64_t correction, bool keepdim) {
  return sqrt(var(x, dims, correction, keepdim));
}

// x: any shape; result: as sum(x, dims, keepdim). Forward y = (sum |x|^p)^(1/p) (max |x| for
// p = inf); backward dx = g |x|^(p-1) sign(x) / y^(p-1), which is g x / y for p = 2, and 0 where
// y = 0 (torch's choice at the zero vector). For p = inf the gradient is shared evenly among
// the elements of largest magnitude, as torch shares it.
Tensor norm(const Tensor& x, double p, const std::vector<std::int64_t>& dims, bool keepdim) {
  if (!(p > 0)) throw ValueError("norm: p must be positive, got " + std::to_string(p));
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
  std::copy_n(kept.data(), kept.numel(), y.data());
  return detail::record("norm", y, {x}, [x, kept, p, reduced](const Tensor& g) -> std::vector<Tensor> {
    const Tensor gk = reshape(g, kept.shape());  // broadcasts against x
    const Tensor sign = where(gt(x, scalar_tensor(0)), ones_like(x),
                              where(lt(x, scalar_tensor(0)), -ones_like(x), zeros_like(x)));
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
    throw ValueError("topk: k = " + std::to_string(k) + " is out of range for dimension " + std::to_string(d) +
                     " of size " + std::to_string(n) + " (shape " + to_string(x.shape()) + ")");
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t i = 0; i < d; ++i) outer *= shape[i];
  for (std::int64_t i = d + 1; i < static_cast<std::int64_t>(shape.size()); ++i) inner *= shape[i];
  Shape out = shape;
  out[d] = k;
  Tensor indices = detail::empty_tensor(out, DType::Int64);
  const double* xv = x.data();
  double* iv = indices.data();
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      const double* slice = xv + o * n * inner + c;
      for (std::int64_t j = 0; j < n; ++j) order[static_cast<std::size_t>(j)] = j;
      // NaN ranks above every number, as in torch; ties keep their order along the dimension.
      const auto before = [&](std::int64_t a, std::int64_t b) {
        const double va = slice[a * inner], vb = slice[b * inner];
        if (std::isnan(va) || std::isnan(vb)) return std::isnan(va) && !std::isnan(vb) ? largest : !std::isnan(va) && std::isnan(vb) ? !largest : false;
        return largest ? va > vb : va < vb;
      };
      std::stable_sort(order.begin(), order.end(), before);
      if (!sorted) std::sort(order.begin(), order.begin() + k);
      for (std::int64_t j = 0; j < k; ++j) iv[(o * k + j) * inner + c] = static_cast<double>(order[static_cast<std::size_t>(j)]);
    }
  const Tensor source = x.dim() == 0 ? reshape(x, {1}) : x;
  Tensor values = gather(source, d, indices);
  if (x.dim() == 0) return {reshape(values, {}), reshape(indices, {})};
  return {values, indices};
}

}  // namespace litgrad
