// The copying kernels of kernels/copy.hpp: one implementation, which both rooms use.

#include "litgrad/kernels/copy.hpp"

#include <algorithm>

#include "litgrad/kernels/broadcast.hpp"
#include "litgrad/kernels/parallel.hpp"

namespace litgrad::kernels {

std::int64_t first_outside(const double* values, std::int64_t n, double limit) {
  for (std::int64_t k = 0; k < n; ++k)
    if (!(values[k] >= 0 && values[k] < limit)) return k;
  return -1;
}

void expand(const double* x, const Shape& xs, double* y, const Shape& out) {
  for_each_broadcast_in_rows<1>(out, {&xs}, -1, [&](std::int64_t i, const auto& o) { y[i] = x[o[0]]; });
}

void expand_backward(const double* g, const Shape& out, double* dx, const Shape& xs) {
  std::fill_n(dx, numel(xs), 0.0);
  for_each_broadcast<1>(out, {&xs}, [&](std::int64_t i, const auto& o) { dx[o[0]] += g[i]; });
}

void take(const double* x, const std::vector<std::int64_t>& source, double* y) {
  for (std::size_t k = 0; k < source.size(); ++k) y[k] = x[source[k]];
}

void take_backward(const double* g, const std::vector<std::int64_t>& source, double* dx, std::int64_t dx_n) {
  fill(dx, dx_n, 0.0);  // most of the work: a gather's gradient is mostly zeros
  for (std::size_t k = 0; k < source.size(); ++k) dx[source[k]] += g[k];
}

std::vector<std::int64_t> gather_sources(const Shape& xs, std::int64_t d, const double* index, const Shape& is) {
  const std::int64_t count = numel(is), rank = static_cast<std::int64_t>(is.size());
  std::vector<std::int64_t> source(static_cast<std::size_t>(count));
  std::vector<std::int64_t> position(static_cast<std::size_t>(rank), 0);  // of element k in index
  for (std::int64_t k = 0; k < count; ++k) {
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < rank; ++i)
      offset = offset * xs[i] + (i == d ? static_cast<std::int64_t>(index[k]) : position[i]);
    source[k] = offset;
    for (std::int64_t i = rank - 1; i >= 0; --i) {
      if (++position[i] < is[i]) break;
      position[i] = 0;
    }
  }
  return source;
}

std::vector<std::int64_t> repeat_sources(const Shape& in, const Shape& out) {
  const std::int64_t rank = static_cast<std::int64_t>(out.size());
  std::vector<std::int64_t> source(static_cast<std::size_t>(numel(out)));
  std::vector<std::int64_t> position(static_cast<std::size_t>(rank), 0);
  for (std::size_t k = 0; k < source.size(); ++k) {
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < rank; ++i) offset = offset * in[i] + position[i] % in[i];
    source[k] = offset;
    for (std::int64_t i = rank - 1; i >= 0; --i) {
      if (++position[i] < out[i]) break;
      position[i] = 0;
    }
  }
  return source;
}

void index_rows(const double* x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                const std::vector<std::int64_t>& rows, double* y) {
  const std::int64_t m = static_cast<std::int64_t>(rows.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < m; ++j) std::copy_n(x + (o * n + rows[j]) * inner, inner, y + (o * m + j) * inner);
}

void index_rows_backward(const double* g, std::int64_t outer, std::int64_t n, std::int64_t inner,
                         const std::vector<std::int64_t>& rows, double* dx, std::int64_t skip) {
  const std::int64_t m = static_cast<std::int64_t>(rows.size());
  std::fill_n(dx, outer * n * inner, 0.0);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < m; ++j) {
      if (rows[j] == skip) continue;
      double* to = dx + (o * n + rows[j]) * inner;
      const double* from = g + (o * m + j) * inner;
      for (std::int64_t c = 0; c < inner; ++c) to[c] += from[c];
    }
}

namespace {
// Copies the picked positions between a full [outer, n, inner] array and a sliced one
// [outer, m, inner]; with step 1 each outer index's picked positions are one run.
void copy_picked(const double* from, double* to, bool from_full, std::int64_t outer, std::int64_t n, std::int64_t inner,
                 std::int64_t start, std::int64_t m, std::int64_t step) {
  const std::int64_t run = step == 1 ? m * inner : inner, runs = step == 1 ? 1 : m;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < runs; ++j) {
      const std::int64_t full = (o * n + start + j * step) * inner, sliced = (o * m + j) * inner;
      std::copy_n(from + (from_full ? full : sliced), run, to + (from_full ? sliced : full));
    }
}
}  // namespace

void slice(const double* x, std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t start, std::int64_t m,
           std::int64_t step, double* y) {
  copy_picked(x, y, true, outer, n, inner, start, m, step);
}

void slice_backward(const double* g, std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t start,
                    std::int64_t m, std::int64_t step, double* dx) {
  std::fill_n(dx, outer * n * inner, 0.0);
  copy_picked(g, dx, false, outer, n, inner, start, m, step);
}

void place(const double* piece, std::int64_t outer, std::int64_t piece_n, std::int64_t inner, double* y, std::int64_t n,
           std::int64_t at) {
  for (std::int64_t o = 0; o < outer; ++o)
    std::copy_n(piece + o * piece_n * inner, piece_n * inner, y + (o * n + at) * inner);
}

void permute(const double* x, const Shape& shape, const std::vector<std::int64_t>& p, double* y) {
  const std::int64_t rank = static_cast<std::int64_t>(shape.size());
  Shape out(static_cast<std::size_t>(rank));
  for (std::int64_t i = 0; i < rank; ++i) out[i] = shape[p[i]];
  const std::int64_t total = numel(out);
  if (total == 0) return;
  // Input strides read in the output's order: walking the output row-major visits the input
  // element at sum(index[i] * in_stride[p[i]]).
  std::vector<std::int64_t> in_stride(static_cast<std::size_t>(rank), 1), stride(static_cast<std::size_t>(rank));
  for (std::int64_t i = rank - 1; i > 0; --i) in_stride[i - 1] = in_stride[i] * shape[i];
  for (std::int64_t i = 0; i < rank; ++i) stride[i] = in_stride[p[i]];
  // When the last dimension stays last, whole rows move together: copy them as blocks. The
  // innermost of the other dimensions is a plain loop (`line` blocks `step` apart in x), and an
  // odometer walks the rest.
  const std::int64_t block = rank > 0 && p[rank - 1] == rank - 1 ? out[rank - 1] : 1;
  const std::int64_t outer_dims = block > 1 ? rank - 1 : rank;
  const std::int64_t line = outer_dims > 0 ? out[outer_dims - 1] : 1;
  const std::int64_t step = outer_dims > 0 ? stride[outer_dims - 1] : 0;
  // The walk over out's rows [first, last) of its first dimension; when that dimension is one
  // of the odometer's, parts of it go to different threads (each writes its own rows, a copy:
  // no bit can change). A copied element is counted as a quarter of an exp's work.
  const std::int64_t rows = outer_dims >= 2 ? out[0] : 1, per_row = total / rows;
  in_ranges(rows, per_row * kElementWork / 4, [&](std::int64_t first, std::int64_t last) {
    std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
    std::int64_t offset = 0;
    if (outer_dims >= 2) index[0] = first, offset = first * stride[0];
    for (std::int64_t i = first * per_row; i < last * per_row; i += block * line) {
      for (std::int64_t r = 0; r < line; ++r) {
        const double* src = x + offset + r * step;
        double* dst = y + i + r * block;
        for (std::int64_t j = 0; j < block; ++j) dst[j] = src[j];  // short rows: no memmove call
      }
      for (std::int64_t d = outer_dims - 2; d >= 0; --d) {
        offset += stride[d];
        if (++index[d] < out[d]) break;
        offset -= stride[d] * out[d];
        index[d] = 0;
      }
    }
  });
}

void copy(const double* x, std::int64_t n, double* y) { std::copy_n(x, n, y); }

// Filling is bound by memory, not arithmetic: an element is counted as a sixteenth of an exp,
// so that only fills of a megabyte or more are split.
void fill(double* y, std::int64_t n, double value) {
  in_ranges(n, 1, [&](std::int64_t begin, std::int64_t end) { std::fill(y + begin, y + end, value); });
}

}  // namespace litgrad::kernels
