// The fast room's small_product (kernels/fast/small_product.hpp): the chain of
// kernels/product.hpp, a row of C at a time, every element of the row in its own SIMD lane.

#include "litgrad/kernels/fast/small_product.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace litgrad::kernels::fast {

namespace {

// s + a b, rounded once with a fused multiply-add where the CPU has FMA, as the plain room and
// Eigen's kernels round it; the compiler turns a loop of these into SIMD instructions.
inline double multiply_add(double a, double b, double s) {
#if defined(__FMA__)
  return std::fma(a, b, s);
#else
  return s + a * b;
#endif
}

}  // namespace

void small_product(double* c, bool overwrite, const double* a, std::int64_t ac, bool ta, const double* b,
                   std::int64_t bc, bool tb, std::int64_t n, std::int64_t k, std::int64_t m) {
  if (n == 0 || m == 0) return;
  // op(A)(i, p) = a[i a_row + p a_step]; op(B)'s row p is y + p y_row, m contiguous: B's row p,
  // or, when B is transposed, a row-major copy of op(B).
  const std::int64_t a_row = ta ? 1 : ac, a_step = ta ? ac : 1;
  const double* y = b;
  std::int64_t y_row = bc;
  thread_local std::vector<double> copy, chain;
  if (tb) {
    copy.resize(static_cast<std::size_t>(k * m));
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t p = 0; p < k; ++p) copy[static_cast<std::size_t>(p * m + j)] = b[j * bc + p];
    y = copy.data();
    y_row = m;
  }
  chain.resize(static_cast<std::size_t>(m));
  double* s = chain.data();
  for (std::int64_t i = 0; i < n; ++i) {  // k <= kDepthBlock here (plan()): one chain per element
    const double* x = a + i * a_row;
    std::fill_n(s, m, 0.0);
    for (std::int64_t p = 0; p < k; ++p) {
      const double xp = x[p * a_step];
      const double* yp = y + p * y_row;
      for (std::int64_t j = 0; j < m; ++j) s[j] = multiply_add(xp, yp[j], s[j]);
    }
    double* row = c + i * m;
    if (overwrite) std::copy_n(s, m, row);
    else
      for (std::int64_t j = 0; j < m; ++j) row[j] = row[j] + s[j];
  }
}

}  // namespace litgrad::kernels::fast
