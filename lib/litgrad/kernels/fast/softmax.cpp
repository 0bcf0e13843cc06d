// The fast room's softmax and log_softmax (kernels/softmax.hpp): contiguous rows a block at a
// time, other slices with their stride (kernels/fast/softmax.hpp). Runs of slices go to
// different threads (kernels/parallel.hpp): each slice is computed alone, so that changes no bit.

#include "litgrad/kernels/fast/softmax.hpp"

#include <cmath>

#include "litgrad/kernels/parallel.hpp"
#include "litgrad/kernels/softmax.hpp"

namespace litgrad::kernels::fast {

void softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  if (outer * n * inner == 0) return;  // no elements (and empty data may be null)
  in_ranges(outer, n * inner * kElementWork, [&](std::int64_t begin, std::int64_t end) {
    const std::int64_t skip = begin * n * inner;
    if (inner == 1) return softmax_rows(x + skip, y + skip, end - begin, n);
    for (std::int64_t o = begin; o < end; ++o)
      for (std::int64_t c = 0; c < inner; ++c) softmax_slice(x + o * n * inner + c, y + o * n * inner + c, inner, n);
  });
}

void softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                      std::int64_t inner) {
  in_ranges(outer, n * inner * kElementWork, [&](std::int64_t begin, std::int64_t end) {
    if (inner == 1) {  // contiguous rows: the stride known when compiling, so the loops vectorise
      for (std::int64_t o = begin; o < end; ++o) softmax_backward_slice(y + o * n, g + o * n, dx + o * n, 1, n);
      return;
    }
    for (std::int64_t o = begin; o < end; ++o)
      for (std::int64_t c = 0; c < inner; ++c) {
        const std::int64_t first = o * n * inner + c;
        softmax_backward_slice(y + first, g + first, dx + first, inner, n);
      }
  });
}

// log_softmax along contiguous rows, each row's exponentials summed without being stored; other
// slices (rare: log_softmax over an inner dimension) by the plain room's loops, which give the
// same bits.
void log_softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  if (outer * n * inner == 0) return;
  in_ranges(outer, n * inner * kElementWork, [&](std::int64_t begin, std::int64_t end) {
    const std::int64_t skip = begin * n * inner;
    if (inner != 1) return plain::log_softmax(x + skip, y + skip, end - begin, n, inner);
    for (std::int64_t o = begin; o < end; ++o) {
      const double* row = x + o * n;
      double* out = y + o * n;
      const double m = slice_max(row, 1, n);
      const double lse = std::log(lane_sum(n, [&](std::int64_t j) { return vector_exp(row[j] - m); }));
      for (std::int64_t j = 0; j < n; ++j) out[j] = (row[j] - m) - lse;
    }
  });
}

void log_softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                          std::int64_t inner) {
  if (outer * n * inner == 0) return;
  in_ranges(outer, n * inner * kElementWork, [&](std::int64_t begin, std::int64_t end) {
    const std::int64_t skip = begin * n * inner;
    if (inner != 1) return plain::log_softmax_backward(y + skip, g + skip, dx + skip, end - begin, n, inner);
    for (std::int64_t o = begin; o < end; ++o) {
      const double *yr = y + o * n, *gr = g + o * n;
      double* dr = dx + o * n;
      const double total = lane_sum(n, [&](std::int64_t j) { return gr[j]; });
      for (std::int64_t j = 0; j < n; ++j) dr[j] = gr[j] - vector_exp(yr[j]) * total;
    }
  });
}

}  // namespace litgrad::kernels::fast
