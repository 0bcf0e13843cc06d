#include "litgrad/ops/indexing.hpp"

#include <algorithm>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/ops/detail/scatter.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/registry.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad {

namespace {

// A tensor of shape [..., n, ...] seen as [outer, n, inner] around dimension d.
struct Split {
  std::int64_t outer = 1, n = 1, inner = 1;
};
Split split_at(const Shape& s, std::int64_t d) {
  Split r;
  for (std::int64_t i = 0; i < d; ++i) r.outer *= s[i];
  r.n = s[d];
  for (std::size_t i = d + 1; i < s.size(); ++i) r.inner *= s[i];
  return r;
}

}  // namespace

// x: [..., n, ...] around dim; result: [..., m, ...] with m = the number of picked positions.
Tensor slice(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step) {
  if (x.dim() == 0) throw IndexError("slice: cannot slice a 0-dimensional tensor");
  const std::int64_t d = wrap_dim("slice", dim, x.dim());
  if (step <= 0) throw ValueError("slice: step must be positive, got ", step);
  const Split s = split_at(x.shape(), d);
  auto clip = [&](std::int64_t i) { return std::clamp(i < 0 ? i + s.n : i, std::int64_t{0}, s.n); };
  const std::int64_t b = clip(start), e = std::max(clip(end), b);
  const std::int64_t m = (e - b + step - 1) / step;
  Shape out = x.shape();
  out[d] = m;
  Tensor y = detail::uninitialized_tensor(out, x.dtype());
  kernels::slice(x.data(), s.outer, s.n, s.inner, b, m, step, y.data());
  const Shape in = x.shape();
  return detail::record(
      op::slice, y, {x},
      [in, s, b, m, step](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(in);  // zeros where nothing was picked
        kernels::slice_backward(g.data(), s.outer, s.n, s.inner, b, m, step, gx.data());
        return {gx};
      },
      [in, d, b, step](const Tensor& g, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {detail::unslice(g, in, d, b, step)};
      },
      detail::Saved::nothing());
}

Tensor select(const Tensor& x, std::int64_t dim, std::int64_t index) {
  if (x.dim() == 0) throw IndexError("select: cannot index a 0-dimensional tensor");
  const std::int64_t d = wrap_dim("select", dim, x.dim());
  const std::int64_t n = x.shape()[d];
  if (index < -n || index >= n)
    throw IndexError("select: index ", index, " is out of range for dimension ", d, " of size ", n, " (shape ",
                     x.shape(), ")");
  const std::int64_t i = index < 0 ? index + n : index;
  Shape out = x.shape();
  out.erase(out.begin() + d);
  return reshape(slice(x, d, i, i + 1), out);
}

// x: [..., n, ...]; index: [..., k, ...] (same rank, no larger elsewhere); result: index's shape.
Tensor gather(const Tensor& x, std::int64_t dim, const Tensor& index) {
  if (index.dtype() != DType::Int64) throw ValueError("gather: index must be an Int64 tensor, got ", index.dtype());
  if (x.dim() == 0) throw IndexError("gather: cannot gather from a 0-dimensional tensor");
  const std::int64_t d = wrap_dim("gather", dim, x.dim());
  if (index.dim() != x.dim())
    throw ShapeError("gather: index of shape ", index.shape(), " must have as many dimensions as the input ",
                     x.shape());
  for (std::int64_t i = 0; i < x.dim(); ++i)
    if (i != d && index.shape()[i] > x.shape()[i])
      throw ShapeError("gather: index of shape ", index.shape(), " is larger than the input ", x.shape(),
                       " in dimension ", i);
  const std::int64_t n = x.shape()[d];
  const std::int64_t bad = kernels::first_outside(index.data(), index.numel(), static_cast<double>(n));
  if (bad >= 0)
    throw IndexError("gather: index ", static_cast<std::int64_t>(index.data()[bad]), " is out of range for dimension ",
                     d, " of size ", n);
  // Offsets into x for every element of index: the same position, but along d the index's value.
  const std::vector<std::int64_t> source = kernels::gather_sources(x.shape(), d, index.data(), index.shape());
  Tensor y = detail::uninitialized_tensor(index.shape());
  kernels::take(x.data(), source, y.data());
  const Shape in = x.shape();
  return detail::record(
      op::gather, y, {x},
      [in, source](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(in);
        kernels::take_backward(g.data(), source, gx.data(), gx.numel());  // scatter-add
        return {gx};
      },
      [in, d, index](const Tensor& g, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {detail::scatter_add(g, in, d, index)};
      },
      detail::Saved::nothing(), {{"the index", index}});
}

// tensors: [..., n_t, ...] equal elsewhere; result: [..., sum n_t, ...].
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim) {
  if (tensors.empty()) throw ShapeError("cat: expected at least one tensor");
  const Tensor& first = tensors.front();
  if (first.dim() == 0) throw ShapeError("cat: cannot concatenate 0-dimensional tensors (use stack)");
  const std::int64_t d = wrap_dim("cat", dim, first.dim());
  Shape out = first.shape();
  out[d] = 0;
  for (const Tensor& t : tensors) {
    Shape a = t.shape(), b = first.shape();
    if (a.size() == b.size()) a[d] = b[d] = 0;
    if (a != b) throw ShapeError("cat: shapes ", first.shape(), " and ", t.shape(), " differ outside dimension ", d);
    if (t.dtype() != first.dtype())
      throw ValueError("cat: tensors of different dtypes, ", first.dtype(), " and ", t.dtype());
    out[d] += t.shape()[d];
  }
  const Split so = split_at(out, d);
  Tensor y = detail::uninitialized_tensor(out, first.dtype());
  std::vector<std::int64_t> begin;  // where each input starts along d
  std::int64_t at = 0;
  for (const Tensor& t : tensors) {
    const std::int64_t n = t.shape()[d];
    kernels::place(t.data(), so.outer, n, so.inner, y.data(), so.n, at);
    begin.push_back(at);
    at += n;
  }
  begin.push_back(at);
  // Each input's gradient is its own stretch of g along d: slices, which record themselves
  // when the backward is recorded.
  auto stretches = [d, begin](const Tensor& g) {
    std::vector<Tensor> grads;
    for (std::size_t i = 0; i + 1 < begin.size(); ++i) grads.push_back(slice(g, d, begin[i], begin[i + 1]));
    return grads;
  };
  return detail::record(
      op::cat, y, tensors, stretches,
      [stretches](const Tensor& g, const Tensor&, const std::vector<Tensor>&) { return stretches(g); },
      detail::Saved::nothing());
}

Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim) {
  if (tensors.empty()) throw ShapeError("stack: expected at least one tensor");
  const std::int64_t d = wrap_dim("stack", dim, tensors.front().dim() + 1);
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) {
    if (t.shape() != tensors.front().shape())
      throw ShapeError("stack: all tensors must have one shape, got ", tensors.front().shape(), " and ", t.shape());
    parts.push_back(unsqueeze(t, d));
  }
  return cat(parts, d);
}

// x: [outer, n, inner] around dim; index: [m] Int64; result: [outer, m, inner].
// y[o, j, :] = x[o, index[j], :];  dx[o, index[j], :] += g[o, j, :].
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index) {
  if (index.dtype() != DType::Int64 || index.dim() > 1)
    throw ValueError("index_select: index must be a 1-D Int64 tensor, got ", index.dtype(), " of shape ",
                     index.shape());
  if (x.dim() == 0) throw IndexError("index_select: cannot index a 0-dimensional tensor");
  const std::int64_t d = wrap_dim("index_select", dim, x.dim());
  const Split s = split_at(x.shape(), d);
  const std::int64_t m = index.numel();
  const std::int64_t bad = kernels::first_outside(index.data(), m, static_cast<double>(s.n));
  if (bad >= 0)
    throw IndexError("index_select: index ", static_cast<std::int64_t>(index.data()[bad]),
                     " is out of range for dimension ", d, " of size ", s.n, " (shape ", x.shape(), ")");
  const std::vector<double> picked = index.to_vector();
  const std::vector<std::int64_t> rows(picked.begin(), picked.end());
  Shape out = x.shape();
  out[d] = m;
  Tensor y = detail::uninitialized_tensor(out, x.dtype());
  kernels::index_rows(x.data(), s.outer, s.n, s.inner, rows, y.data());
  const Shape in = x.shape();
  return detail::record(
      op::index_select, y, {x},
      [in, s, rows](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = detail::uninitialized_tensor(in);  // zeros, then each picked row's gradient added
        kernels::index_rows_backward(g.data(), s.outer, s.n, s.inner, rows, gx.data());
        return {gx};
      },
      [in, d, rows](const Tensor& g, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {detail::index_add(g, in, d, rows)};
      },
      detail::Saved::nothing());
}

std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& sizes, std::int64_t dim) {
  if (x.dim() == 0) throw ShapeError("split: cannot split a 0-dimensional tensor");
  const std::int64_t d = wrap_dim("split", dim, x.dim());
  std::int64_t total = 0;
  for (std::int64_t n : sizes) {
    if (n < 0) throw ValueError("split: sizes must be non-negative, got ", Shape(sizes.begin(), sizes.end()));
    total += n;
  }
  if (total != x.size(d))
    throw ShapeError("split: sizes ", Shape(sizes.begin(), sizes.end()), " add up to ", total, ", not to the size ",
                     x.size(d), " of dimension ", d, " (shape ", x.shape(), ")");
  std::vector<Tensor> pieces;
  std::int64_t start = 0;
  for (std::int64_t n : sizes) {
    pieces.push_back(slice(x, d, start, start + n));
    start += n;
  }
  return pieces;
}

std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim) {
  if (split_size < 1) throw ValueError("split: split_size must be at least 1, got ", split_size);
  if (x.dim() == 0) throw ShapeError("split: cannot split a 0-dimensional tensor");
  const std::int64_t n = x.size(wrap_dim("split", dim, x.dim()));
  std::vector<std::int64_t> sizes;
  for (std::int64_t start = 0; start < n; start += split_size) sizes.push_back(std::min(split_size, n - start));
  if (sizes.empty()) sizes.push_back(0);  // an empty dimension gives one empty piece, as torch
  return split(x, sizes, dim);
}

std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim) {
  if (chunks < 1) throw ValueError("chunk: chunks must be at least 1, got ", chunks);
  if (x.dim() == 0) throw ShapeError("chunk: cannot chunk a 0-dimensional tensor");
  const std::int64_t n = x.size(wrap_dim("chunk", dim, x.dim()));
  return split(x, std::max<std::int64_t>(1, (n + chunks - 1) / chunks), dim);
}

// ---------------------------------------------------------------------------------------------
// The selections undone (ops/detail/scatter.hpp): each the gradient of a selection, and
// differentiable in its turn, its own gradient being that selection.

namespace detail {

// g: the slice's shape; result: `shape`.
Tensor unslice(const Tensor& g, const Shape& shape, std::int64_t dim, std::int64_t start, std::int64_t step) {
  const Split s = split_at(shape, dim);
  const std::int64_t m = g.shape()[dim];
  Tensor y = uninitialized_tensor(shape);
  kernels::slice_backward(g.data(), s.outer, s.n, s.inner, start, m, step, y.data());
  return record(
      op::unslice, y, {g},
      [s, start, m, step, out = g.shape()](const Tensor& gy) -> std::vector<Tensor> {
        Tensor gg = uninitialized_tensor(out);
        kernels::slice(gy.data(), s.outer, s.n, s.inner, start, m, step, gg.data());
        return {gg};
      },
      [dim, start, m, step](const Tensor& gy, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {slice(gy, dim, start, start + (m - 1) * step + 1, step)};
      },
      Saved::nothing());
}

// g: index's shape; result: `shape`.
Tensor scatter_add(const Tensor& g, const Shape& shape, std::int64_t dim, const Tensor& index) {
  const std::vector<std::int64_t> source = kernels::gather_sources(shape, dim, index.data(), index.shape());
  Tensor y = uninitialized_tensor(shape);
  kernels::take_backward(g.data(), source, y.data(), y.numel());
  return record(
      op::scatter_add, y, {g},
      [source, out = g.shape()](const Tensor& gy) -> std::vector<Tensor> {
        Tensor gg = uninitialized_tensor(out);
        kernels::take(gy.data(), source, gg.data());
        return {gg};
      },
      [dim, index](const Tensor& gy, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        return {gather(gy, dim, index)};
      },
      Saved::nothing(), {{"the index", index}});
}

// g: [outer, rows.size(), inner] around dim; result: `shape`.
Tensor index_add(const Tensor& g, const Shape& shape, std::int64_t dim, const std::vector<std::int64_t>& rows) {
  const Split s = split_at(shape, dim);
  Tensor y = uninitialized_tensor(shape);
  kernels::index_rows_backward(g.data(), s.outer, s.n, s.inner, rows, y.data());
  return record(
      op::index_add, y, {g},
      [s, rows, out = g.shape()](const Tensor& gy) -> std::vector<Tensor> {
        Tensor gg = uninitialized_tensor(out);
        kernels::index_rows(gy.data(), s.outer, s.n, s.inner, rows, gg.data());
        return {gg};
      },
      [dim, rows](const Tensor& gy, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> {
        const std::vector<double> picked(rows.begin(), rows.end());
        return {index_select(gy, dim, tensor(picked, {static_cast<std::int64_t>(rows.size())}, DType::Int64))};
      },
      Saved::nothing());
}

}  // namespace detail

namespace {
// x with the entries (i, j) of its last two dimensions where keep(j - i) fails set to exactly 0.
template <class Keep>
Tensor triangle(const char* op, const Tensor& x, Keep keep) {
  if (x.dim() < 2) throw ShapeError(op, ": needs at least 2 dimensions, got shape ", x.shape());
  const Tensor i = reshape(arange(x.size(-2)), {-1, 1}), j = arange(x.size(-1));  // [rows, 1], [cols]
  return where(keep(j - i), x, zeros({}));  // j - i: [rows, cols], whole numbers, exact
}
}  // namespace

Tensor tril(const Tensor& x, std::int64_t diagonal) {
  return triangle("tril", x, [diagonal](const Tensor& offset) { return offset <= static_cast<double>(diagonal); });
}

Tensor triu(const Tensor& x, std::int64_t diagonal) {
  return triangle("triu", x, [diagonal](const Tensor& offset) { return offset >= static_cast<double>(diagonal); });
}

// indices: shape S, Int64; result: S + [C], Int64, with result[..., indices[...]] = 1.
Tensor one_hot(const Tensor& indices, std::int64_t num_classes) {
  if (indices.dtype() != DType::Int64)
    throw ValueError("one_hot: indices must be an Int64 tensor, got ", indices.dtype());
  if (num_classes < 0) {
    if (indices.numel() == 0) throw ValueError("one_hot: cannot infer num_classes from an empty tensor");
    num_classes = static_cast<std::int64_t>(max(indices).item()) + 1;
  }
  const std::int64_t bad = kernels::first_outside(indices.data(), indices.numel(), static_cast<double>(num_classes));
  if (bad >= 0)
    throw IndexError("one_hot: index ", static_cast<std::int64_t>(indices.data()[bad]), " is out of range for ",
                     num_classes, " classes");
  // [..., 1] against [C]: 1 where the class is the index.
  return to(eq(unsqueeze(indices, -1), arange(num_classes)), DType::Int64);
}

}  // namespace litgrad
