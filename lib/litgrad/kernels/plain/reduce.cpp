// The plain room's sums (kernels/reduce.hpp), as the layouts read; and max_along, whose only
// implementation this is.

#include <algorithm>
#include <cmath>

#include "litgrad/kernels/plain/broadcast.hpp"
#include "litgrad/kernels/plain/lanes.hpp"
#include "litgrad/kernels/reduce.hpp"

namespace litgrad::kernels::plain {

void sum(const double* x, const SumLayout& l, double* y) {
  const std::int64_t results = numel(l.kept);
  for (std::int64_t r = 0; r < results; ++r) y[r] = 0.0;
  if (numel(l.shape) == 0) return;  // sums of nothing
  switch (l.kind) {
    case SumLayout::Kind::Rows:  // result o: the run x[o n, (o + 1) n), in eight lanes
      for (std::int64_t o = 0; o < results; ++o) y[o] = lane_sum(l.n, [&](std::int64_t j) { return x[o * l.n + j]; });
      return;
    case SumLayout::Kind::Block:  // result (o, c): x[o, j, c] for j = 0, 1, ..., n - 1
      for (std::int64_t o = 0; o < l.outer; ++o)
        for (std::int64_t c = 0; c < l.inner; ++c) {
          double total = 0.0;
          for (std::int64_t j = 0; j < l.n; ++j) total += x[(o * l.n + j) * l.inner + c];
          y[o * l.inner + c] = total;
        }
      return;
    case SumLayout::Kind::Scattered:  // each element into its result, in x's order
      for_each_broadcast<1>(l.shape, {&l.kept}, [&](std::int64_t i, const auto& o) { y[o[0]] += x[i]; });
      return;
  }
}

void sum_backward(const double* g, const SumLayout& l, double* dx) {
  for_each_broadcast<1>(l.shape, {&l.kept}, [&](std::int64_t i, const auto& o) { dx[i] = g[o[0]]; });
}

void max_along(const double* x, std::int64_t outer, std::int64_t n, std::int64_t inner, double* values,
               double* indices) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      const double* slice = x + o * n * inner + c;
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < n && !std::isnan(slice[best * inner]); ++j)
        if (slice[j * inner] > slice[best * inner] || std::isnan(slice[j * inner])) best = j;  // NaN wins
      values[o * inner + c] = slice[best * inner];
      indices[o * inner + c] = static_cast<double>(best);
    }
}

void max_along_backward(const double* g, const double* indices, std::int64_t outer, std::int64_t n, std::int64_t inner,
                        double* dx) {
  std::fill_n(dx, outer * n * inner, 0.0);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      const auto j = static_cast<std::int64_t>(indices[o * inner + c]);
      dx[(o * n + j) * inner + c] += g[o * inner + c];
    }
}

void top_positions(const double* x, std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
                   bool largest, bool sorted, double* indices) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      const double* slice = x + o * n * inner + c;
      for (std::int64_t j = 0; j < n; ++j) order[static_cast<std::size_t>(j)] = j;
      const auto before = [&](std::int64_t a, std::int64_t b) {
        const double va = slice[a * inner], vb = slice[b * inner];
        if (std::isnan(va) || std::isnan(vb))
          return std::isnan(va) && !std::isnan(vb) ? largest : !std::isnan(va) && std::isnan(vb) ? !largest : false;
        return largest ? va > vb : va < vb;
      };
      std::stable_sort(order.begin(), order.end(), before);
      if (!sorted) std::sort(order.begin(), order.begin() + k);
      for (std::int64_t j = 0; j < k; ++j)
        indices[(o * k + j) * inner + c] = static_cast<double>(order[static_cast<std::size_t>(j)]);
    }
}

}  // namespace litgrad::kernels::plain
