// The fast room's small_product (kernels/fast/small_product.hpp): the chain of
// kernels/product.hpp, a row of C at a time, every element of the row in its own SIMD lane.

#include "litgrad/kernels/fast/small_product.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace litgrad::kernels::fast {

namespace {

// s + a b, rounded once with a fused multiply-add where the CPU has FMA, as the plain room and
// Eigen's kernels round it; otherwise the product, then the sum.
inline double multiply_add(double a, double b, double s) {
#if defined(__FMA__)
  return std::fma(a, b, s);
#else
  return s + a * b;
#endif
}

#if defined(__AVX__)
// The same, four lanes at once.
inline __m256d multiply_add(__m256d a, __m256d b, __m256d s) {
#if defined(__FMA__)
  return _mm256_fmadd_pd(a, b, s);
#else
  return _mm256_add_pd(s, _mm256_mul_pd(a, b));
#endif
}
#endif

// Where the operands are: op(A)(i, p) = x[i x_row + p x_step]; op(B)'s row p is y + p y_row,
// its columns contiguous; C's rows are m long.
struct Operands {
  const double* x;
  std::int64_t x_row, x_step;
  const double* y;
  std::int64_t y_row, k, m;
};

// Columns [j, j + 4 W) of rows [0, n): W registers of four chains each, for every row.
template <int W>
void column_strip(double* c, bool overwrite, const Operands& o, std::int64_t n, std::int64_t j) {
#if defined(__AVX__)
  for (std::int64_t i = 0; i < n; ++i) {
    const double* x = o.x + i * o.x_row;
    __m256d s[W];
    for (int w = 0; w < W; ++w) s[w] = _mm256_setzero_pd();
    for (std::int64_t p = 0; p < o.k; ++p) {
      const __m256d xp = _mm256_set1_pd(x[p * o.x_step]);
      const double* yp = o.y + p * o.y_row + j;
      for (int w = 0; w < W; ++w) s[w] = multiply_add(xp, _mm256_loadu_pd(yp + 4 * w), s[w]);
    }
    double* out = c + i * o.m + j;
    for (int w = 0; w < W; ++w)
      _mm256_storeu_pd(out + 4 * w, overwrite ? s[w] : _mm256_add_pd(_mm256_loadu_pd(out + 4 * w), s[w]));
  }
#else
  (void)c, (void)overwrite, (void)o, (void)n, (void)j;
#endif
}

// Column j of every row, four rows' chains side by side (each is k dependent steps).
void one_column(double* c, bool overwrite, const Operands& o, std::int64_t n, std::int64_t j) {
  auto put = [&](std::int64_t i, double total) {
    double& out = c[i * o.m + j];
    out = overwrite ? total : out + total;
  };
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const double *x0 = o.x + i * o.x_row, *x1 = x0 + o.x_row, *x2 = x1 + o.x_row, *x3 = x2 + o.x_row;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::int64_t p = 0; p < o.k; ++p) {
      const double yp = o.y[p * o.y_row + j];
      s0 = multiply_add(x0[p * o.x_step], yp, s0);
      s1 = multiply_add(x1[p * o.x_step], yp, s1);
      s2 = multiply_add(x2[p * o.x_step], yp, s2);
      s3 = multiply_add(x3[p * o.x_step], yp, s3);
    }
    put(i, s0), put(i + 1, s1), put(i + 2, s2), put(i + 3, s3);
  }
  for (; i < n; ++i) {
    const double* x = o.x + i * o.x_row;
    double s = 0;
    for (std::int64_t p = 0; p < o.k; ++p) s = multiply_add(x[p * o.x_step], o.y[p * o.y_row + j], s);
    put(i, s);
  }
}

// op(B) transposed (B's row j is op(B)'s column j, contiguous) and few rows of C: each element
// (i, j) is its chain along B's row j, eight columns' chains side by side, reading B where it is
// rather than copying it first (the copy costs k m; the products, with few rows, not much more).
void few_rows_of_transposed(double* c, bool overwrite, const Operands& o, const double* b, std::int64_t bc,
                            std::int64_t n) {
  constexpr int kSide = 8;
  for (std::int64_t i = 0; i < n; ++i) {
    const double* x = o.x + i * o.x_row;
    double* out = c + i * o.m;
    std::int64_t j = 0;
    for (; j + kSide <= o.m; j += kSide) {
      double s[kSide] = {};
      const double* row = b + j * bc;
      for (std::int64_t p = 0; p < o.k; ++p) {
        const double xp = x[p * o.x_step];
        for (int w = 0; w < kSide; ++w) s[w] = multiply_add(xp, row[w * bc + p], s[w]);
      }
      for (int w = 0; w < kSide; ++w) out[j + w] = overwrite ? s[w] : out[j + w] + s[w];
    }
    for (; j < o.m; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < o.k; ++p) s = multiply_add(x[p * o.x_step], b[j * bc + p], s);
      out[j] = overwrite ? s : out[j] + s;
    }
  }
}

}  // namespace

void small_product(double* c, bool overwrite, const double* a, std::int64_t ac, bool ta, const double* b,
                   std::int64_t bc, bool tb, std::int64_t n, std::int64_t k, std::int64_t m) {
  if (n == 0 || m == 0) return;
  if (tb && n < 8)
    return few_rows_of_transposed(c, overwrite, {a, ta ? 1 : ac, ta ? ac : 1, nullptr, 0, k, m}, b, bc, n);
  // op(B)'s rows: B's rows, or, when B is transposed, the rows of a row-major copy of op(B).
  const double* y = b;
  std::int64_t y_row = bc;
  thread_local std::vector<double> copy;
  if (tb && m > 1) {
    // In square tiles, so that the reads along B's rows and the writes along the copy's rows
    // each stay within a few cache lines and pages (a transposed read-out of a 1,024-token
    // embedding, one new token at a time, spent most of its time here copying column by column).
    constexpr std::int64_t kTile = 32;
    copy.resize(static_cast<std::size_t>(k * m));
    for (std::int64_t j0 = 0; j0 < m; j0 += kTile)
      for (std::int64_t p0 = 0; p0 < k; p0 += kTile)
        for (std::int64_t j = j0; j < std::min(m, j0 + kTile); ++j)
          for (std::int64_t p = p0; p < std::min(k, p0 + kTile); ++p)
            copy[static_cast<std::size_t>(p * m + j)] = b[j * bc + p];
    y = copy.data();
    y_row = m;
  } else if (tb) {
    y_row = 1;  // one column: B's one row, read along
  }
  const Operands o{a, ta ? 1 : ac, ta ? ac : 1, y, y_row, k, m};
  std::int64_t j = 0;
#if defined(__AVX__)
  for (; j + 16 <= m; j += 16) column_strip<4>(c, overwrite, o, n, j);
  for (; j + 8 <= m; j += 8) column_strip<2>(c, overwrite, o, n, j);
  for (; j + 4 <= m; j += 4) column_strip<1>(c, overwrite, o, n, j);
#endif
  for (; j < m; ++j) one_column(c, overwrite, o, n, j);
}

}  // namespace litgrad::kernels::fast
