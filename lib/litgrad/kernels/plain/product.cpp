// The plain room's matrix products (kernels/product.hpp): every element's sum in the order the
// plan gives, written as it reads. Row by row: a row of C is built up term by term, each of
// its elements keeping its own running sums, so the loops run along contiguous rows of B (and
// a compiler vectorises them) while every element is still summed in its own order.

#include <cmath>
#include <vector>

#include "litgrad/kernels/product.hpp"

namespace litgrad::kernels::plain {

namespace {

// s + a b, rounded as the fast room's kernels round it: once, with a fused multiply-add, where
// the CPU has FMA; otherwise the product, then the sum.
inline double multiply_add(double a, double b, double s) {
#if defined(__FMA__)
  return std::fma(a, b, s);
#else
  return s + a * b;
#endif
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
        for (std::int64_t j = 0; j < m_; ++j) chain[j] = multiply_add(x[p * a_step], y[p * m_ + j], chain[j]);
      for (std::int64_t j = 0; j < m_; ++j) total[j] = total[j] + chain[j];
    }
    double* row = c + i * m_;
    for (std::int64_t j = 0; j < m_; ++j) row[j] = overwrite_ ? total[j] : row[j] + total[j];
  }
}

}  // namespace litgrad::kernels::plain
