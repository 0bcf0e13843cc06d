// The fast room's sums (kernels/reduce.hpp): eight lanes run as SIMD; a block's results each
// kept in a register when they are few, or, when they are many, every row added to them as it
// streams by (the same additions, in the same order, for each result); short rows of the
// gradient unrolled.
//
// Threads (kernels/parallel.hpp) take whole results: a part computes its results' sums with
// the additions and order a run on one thread uses, so no bit changes. A sum of rows into one
// row (a bias's gradient: outer = 1) is cut by columns, each part walking every row.

#include "litgrad/kernels/reduce.hpp"

#include <algorithm>

#include "litgrad/kernels/fast/broadcast.hpp"
#include "litgrad/kernels/fast/lanes.hpp"
#include "litgrad/kernels/parallel.hpp"

namespace litgrad::kernels::fast {

void sum(const double* x, const SumLayout& l, double* y) {
  const std::int64_t results = numel(l.kept);
  if (numel(l.shape) == 0) {  // sums of nothing
    std::fill_n(y, results, 0.0);
  } else if (l.kind == SumLayout::Kind::Rows) {
    in_ranges(results, l.n, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t o = begin; o < end; ++o) y[o] = lane_sum(l.n, [&](std::int64_t j) { return x[o * l.n + j]; });
    });
  } else if (l.kind == SumLayout::Kind::Block && l.inner < 8) {  // each result's sum in a register
    in_ranges(l.outer, l.n * l.inner, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t o = begin; o < end; ++o)
        for (std::int64_t c = 0; c < l.inner; ++c) {
          double total = 0.0;
          for (std::int64_t j = 0; j < l.n; ++j) total += x[(o * l.n + j) * l.inner + c];
          y[o * l.inner + c] = total;
        }
    });
  } else if (l.kind == SumLayout::Kind::Block) {  // long rows: each term added to its result as the row streams by
    // Columns [first, last) of the slices [begin, end): by slices when there are several,
    // by columns when there is one.
    auto block = [&](std::int64_t begin, std::int64_t end, std::int64_t first, std::int64_t last) {
      for (std::int64_t o = begin; o < end; ++o) {
        double* row = y + o * l.inner;
        std::fill(row + first, row + last, 0.0);
        for (std::int64_t j = 0; j < l.n; ++j) {
          const double* terms = x + (o * l.n + j) * l.inner;
          for (std::int64_t c = first; c < last; ++c) row[c] += terms[c];
        }
      }
    };
    if (l.outer > 1)
      in_ranges(l.outer, l.n * l.inner, [&](std::int64_t begin, std::int64_t end) { block(begin, end, 0, l.inner); });
    else
      in_ranges(l.inner, l.n, [&](std::int64_t first, std::int64_t last) { block(0, 1, first, last); });
  } else {
    std::fill_n(y, results, 0.0);
    for_each_broadcast<1>(l.shape, {&l.kept}, [&](std::int64_t i, const auto& o) { y[o[0]] += x[i]; });
  }
}

void sum_backward(const double* g, const SumLayout& l, double* dx) {
  if (l.kind == SumLayout::Kind::Scattered)
    return for_each_broadcast<1>(l.shape, {&l.kept}, [&](std::int64_t i, const auto& o) { dx[i] = g[o[0]]; });
  // A copy: each part writes its own rows of dx. An element is counted as a quarter of an exp.
  in_ranges(l.outer * l.n, l.inner * kElementWork / 4, [&](std::int64_t begin, std::int64_t end) {
    with_short_width(l.inner, [&](auto inner) {
      for (std::int64_t r = begin; r < end; ++r) {
        const double* from = g + (r / l.n) * inner;
        for (std::int64_t c = 0; c < inner; ++c) dx[r * inner + c] = from[c];
      }
    });
  });
}

}  // namespace litgrad::kernels::fast
