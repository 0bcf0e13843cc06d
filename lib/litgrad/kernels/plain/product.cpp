// The plain room's matrix products (kernels/product.hpp): every element's sum in the order the
// plan gives, written as it reads. Row by row: a row of C is built up term by term, each of
// its elements keeping its own running sums, so the loops run along contiguous rows of B (and
// a compiler vectorises them) while every element is still summed in its own order.

#include <cmath>
#include <vector>

#include "litgrad/kernels/product.hpp"

namespace litgrad::kernels::plain {

namespace {

// Adds x y[j] to chain[j] for j < m, each a fused multiply-add (std::fma: rounded once).
// Where the build targets a CPU with FMA (-march=native on one), std::fma is one instruction and
// the loop runs in SIMD. In a build for any x86-64 (LITGRAD_NATIVE=OFF) it would be a call to
// the C library's fma per term, which runs the instruction on a CPU that has it and exact
// software on one that has not: the same bits, much slower. So such a build compiles this loop
// twice, for x86-64-v3 (AVX2 and FMA) and for any x86-64, and runs the first on a CPU that can.
#if defined(__x86_64__) && !defined(__FMA__)
[[gnu::target_clones("arch=x86-64-v3", "default")]]
#endif
void add_terms(double* chain, double x, const double* y, std::int64_t m) {
  for (std::int64_t j = 0; j < m; ++j) chain[j] = std::fma(x, y[j], chain[j]);
}

}  // namespace

Product::Product(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite, bool /*skip_zero_terms*/)
    : n_(n), k_(k), m_(m), overwrite_(overwrite), plan_(plan(n, k, m)) {}

void Product::add(double* c, const Matrix& A, const Matrix& B, std::int64_t* columns) {
  if (columns)  // every column is written
    for (std::int64_t i = 0; i < n_; ++i) columns[i] = m_;
  if (n_ == 0 || m_ == 0) return;
  if (k_ == 0) {  // a sum of no products: +0, and C left as it is when adding
    if (overwrite_)
      for (std::int64_t e = 0; e < n_ * m_; ++e) c[e] = 0.0;
    return;
  }
  const double *a = A.data, *b = B.data;
  const std::int64_t ac = A.cols, bc = B.cols;
  const bool tb = B.transposed;
  // op(A)(i, p) = a[i a_row + p a_step]; op(B)(p, j) = y[p m + j], a row-major copy of op(B).
  const std::int64_t a_row = A.transposed ? 1 : ac, a_step = A.transposed ? ac : 1;
  std::vector<double> y(static_cast<std::size_t>(k_ * m_));
  for (std::int64_t p = 0; p < k_; ++p)
    for (std::int64_t j = 0; j < m_; ++j) y[p * m_ + j] = tb ? b[j * bc + p] : b[p * bc + j];
  std::vector<double> total(m_), chain(m_);
  for (std::int64_t i = 0; i < n_; ++i) {
    const double* x = a + i * a_row;  // op(A)'s row i, x[p a_step]
    // One chain per block of terms (each from +0), the blocks' chains added in turn.
    std::fill(total.begin(), total.end(), 0.0);
    for (std::int64_t p0 = 0; p0 < k_; p0 += plan_.block) {
      std::fill(chain.begin(), chain.end(), 0.0);
      for (std::int64_t p = p0; p < std::min(k_, p0 + plan_.block); ++p)
        add_terms(chain.data(), x[p * a_step], y.data() + p * m_, m_);
      for (std::int64_t j = 0; j < m_; ++j) total[j] = total[j] + chain[j];
    }
    double* row = c + i * m_;
    for (std::int64_t j = 0; j < m_; ++j) row[j] = overwrite_ ? total[j] : row[j] + total[j];
  }
}

}  // namespace litgrad::kernels::plain
