// The fast room's sums (kernels/reduce.hpp): eight lanes run as SIMD; a block's results each
// kept in a register when they are few, or, when they are many, every row added to them as it
// streams by (the same additions, in the same order, for each result); short rows of the
// gradient unrolled.

#include "litgrad/kernels/reduce.hpp"
#include "litgrad/kernels/fast/broadcast.hpp"
#include "litgrad/kernels/fast/lanes.hpp"

#include <algorithm>

namespace litgrad::kernels::fast {

void sum(const double* x, const SumLayout& l, double* y) {
  const std::int64_t results = numel(l.kept);
  if (numel(l.shape) == 0) {  // sums of nothing
    std::fill_n(y, results, 0.0);
  } else if (l.kind == SumLayout::Kind::Rows) {
    for (std::int64_t o = 0; o < results; ++o) y[o] = lane_sum(l.n, [&](std::int64_t j) { return x[o * l.n + j]; });
  } else if (l.kind == SumLayout::Kind::Block && l.inner < 8) {  // each result's sum in a register
    for (std::int64_t o = 0; o < l.outer; ++o)
      for (std::int64_t c = 0; c < l.inner; ++c) {
        double total = 0.0;
        for (std::int64_t j = 0; j < l.n; ++j) total += x[(o * l.n + j) * l.inner + c];
        y[o * l.inner + c] = total;
      }
  } else if (l.kind == SumLayout::Kind::Block) {  // long rows: each term added to its result as the row streams by
    for (std::int64_t o = 0; o < l.outer; ++o) {
      double* row = y + o * l.inner;
      std::fill_n(row, l.inner, 0.0);
      for (std::int64_t j = 0; j < l.n; ++j) {
        const double* terms = x + (o * l.n + j) * l.inner;
        for (std::int64_t c = 0; c < l.inner; ++c) row[c] += terms[c];
      }
    }
  } else {
    std::fill_n(y, results, 0.0);
    for_each_broadcast<1>(l.shape, {&l.kept}, [&](std::int64_t i, const auto& o) { y[o[0]] += x[i]; });
  }
}

void sum_backward(const double* g, const SumLayout& l, double* dx) {
  if (l.kind == SumLayout::Kind::Scattered)
    return for_each_broadcast<1>(l.shape, {&l.kept}, [&](std::int64_t i, const auto& o) { dx[i] = g[o[0]]; });
  with_short_width(l.inner, [&](auto inner) {
    for (std::int64_t o = 0; o < l.outer; ++o)
      for (std::int64_t j = 0; j < l.n; ++j)
        for (std::int64_t c = 0; c < inner; ++c) dx[(o * l.n + j) * inner + c] = g[o * inner + c];
  });
}

}  // namespace litgrad::kernels::fast
