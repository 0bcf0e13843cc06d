#pragma once
// Elementwise loops on raw arrays: one number at a time (map), two broadcast together (zip),
// and a choice between two by a condition (select), with the loops their gradients need.
// The formula of each operation is the caller's (a function of the elements); the loops are
// here, on the room's for_each_broadcast (kernels/broadcast.hpp), which both rooms walk in the
// same order. Loops are cut into ranges for threads (kernels/parallel.hpp) where that changes no
// bit: where each element is computed on its own, and, for broadcasting, by rows of the output
// whose sums into one element stay in one part (for_each_broadcast_in_rows).
// Only the library's own .cpp files include this.

#include <algorithm>
#include <cstdint>

#include "litgrad/kernels/broadcast.hpp"
#include "litgrad/kernels/parallel.hpp"

namespace litgrad::kernels {

/// y[i] = f(x[i]) for i < n.
template <class F>
void map(std::int64_t n, const double* x, double* y, F f) {
  in_ranges(n, kElementWork, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) y[i] = f(x[i]);
  });
}

/// dx[i] = df(x[i], y[i], g[i]) for i < n: a unary operation's backward, from its input x, its
/// output y and the gradient g of its output.
template <class DF>
void map_backward(std::int64_t n, const double* x, const double* y, const double* g, double* dx, DF df) {
  in_ranges(n, kElementWork, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) dx[i] = df(x[i], y[i], g[i]);
  });
}

/// sum[i] += x[i] for i < n: where gradients from several uses of a tensor add up.
inline void add_into(std::int64_t n, const double* x, double* sum) {
  in_ranges(n, kElementWork, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) sum[i] += x[i];
  });
}

/// y = f(a, b) elementwise over `out`, the shapes of a (as) and b (bs) broadcast to it.
template <class F>
void zip(const Shape& out, const double* a, const Shape& as, const double* b, const Shape& bs, double* y, F f) {
  if (as == out && bs == out)  // nothing broadcast: element i of each
    return in_ranges(numel(out), kElementWork, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) y[i] = f(a[i], b[i]);
    });
  for_each_broadcast_in_rows<2>(out, {&as, &bs}, -1,
                                [&](std::int64_t i, const auto& o) { y[i] = f(a[o[0]], b[o[1]]); });
}

/// A binary operation's backward for one operand: grad (shaped like operand `which`, 0 for a,
/// 1 for b; written whole, whatever it held) = for each of its elements, the sum of df(a, b, g)
/// over the elements of `out` it produced, a running total from +0 in out's row-major order.
/// That sum is the un-broadcasting: an operand stretched along a dimension gets the sum of the
/// gradients along it. Threads take rows of out when the operand has rows of its own, and
/// columns when it is one row stretched over all of out's (a layer norm's weight, a bias), each
/// part walking its elements' terms in the same order, so no bit changes.
template <int Which, class DF>
void zip_backward(const Shape& out, const double* a, const Shape& as, const double* b, const Shape& bs, const double* g,
                  double* grad, DF df) {
  if (as == out && bs == out)  // nothing broadcast: each element of grad is a sum of one term, +0 + it
    return in_ranges(numel(out), kElementWork, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) grad[i] = 0.0 + df(a[i], b[i], g[i]);
    });
  const Shape& written = Which == 0 ? as : bs;
  const Shape& other = Which == 0 ? bs : as;
  const std::int64_t columns = out.empty() ? 1 : out.back(), rows = numel(out) / std::max<std::int64_t>(columns, 1);
  // Whether an operand of shape s is one row of out seen as [rows, columns]: [columns], or 1s then it.
  auto one_row = [&](const Shape& s) { return numel(s) == columns && !s.empty() && s.back() == columns; };
  if (rows > 1 && columns > 1 && one_row(written) && (one_row(other) || other == out)) {
    const bool other_whole = other == out;
    return in_ranges(columns, rows * kElementWork, [&](std::int64_t first, std::int64_t last) {
      std::fill(grad + first, grad + last, 0.0);
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = first; c < last; ++c) {
          const std::int64_t i = r * columns + c, o = other_whole ? i : c;
          grad[c] += Which == 0 ? df(a[c], b[o], g[i]) : df(a[o], b[c], g[i]);
        }
    });
  }
  std::fill_n(grad, numel(written), 0.0);
  for_each_broadcast_in_rows<2>(out, {&as, &bs}, Which,
                                [&](std::int64_t i, const auto& o) { grad[o[Which]] += df(a[o[0]], b[o[1]], g[i]); });
}

/// y = c ? a : b elementwise over `out`, the three shapes broadcast to it (c: 0 or 1).
inline void select(const Shape& out, const double* c, const Shape& cs, const double* a, const Shape& as,
                   const double* b, const Shape& bs, double* y) {
  for_each_broadcast_in_rows<3>(out, {&cs, &as, &bs}, -1,
                                [&](std::int64_t i, const auto& o) { y[i] = c[o[0]] != 0.0 ? a[o[1]] : b[o[2]]; });
}

/// select's backward: ga (zeros on entry; null when a needs none) += g where c holds, gb
/// likewise where it does not, each un-broadcast as zip_backward does.
inline void select_backward(const Shape& out, const double* c, const Shape& cs, const Shape& as, const Shape& bs,
                            const double* g, double* ga, double* gb) {
  for_each_broadcast<3>(out, {&cs, &as, &bs}, [&](std::int64_t i, const auto& o) {
    if (c[o[0]] != 0.0) {
      if (ga) ga[o[1]] += g[i];
    } else if (gb) {
      gb[o[2]] += g[i];
    }
  });
}

}  // namespace litgrad::kernels
