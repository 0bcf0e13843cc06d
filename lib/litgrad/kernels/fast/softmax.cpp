// The fast room's softmax (kernels/softmax.hpp): contiguous rows a block at a time, other
// slices with their stride (kernels/fast/softmax.hpp). Runs of slices go to different threads
// (kernels/parallel.hpp): each slice is computed alone, so that changes no bit.

#include "litgrad/kernels/fast/softmax.hpp"

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

}  // namespace litgrad::kernels::fast
