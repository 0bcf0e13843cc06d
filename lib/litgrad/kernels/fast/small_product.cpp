// The fast room's small_product (kernels/fast/small_product.hpp): the chain of
// kernels/product.hpp for every element, with SIMD lanes side by side. C's columns in whole
// registers of four go a few rows at a time, each element of a row in its own lane
// (column_strip); the last m % 4 columns go four rows to a register, each row in its own lane
// (row_strip). Either way a register holds independent chains, and each chain adds its terms
// in the one order, so the lanes give the plain room's bits; what the layouts buy is chains to
// run side by side, for a chain's k steps each wait on the step before.

#include "litgrad/kernels/fast/small_product.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#if defined(__FMA__)
#include <immintrin.h>
#endif

namespace litgrad::kernels::fast {

// The SIMD code below needs FMA (which every CPU with it pairs with AVX); fast::Product calls
// small_product only in a build for such a CPU, but without FMA it still adds the same chains,
// one element at a time.

namespace {

// s + a b, rounded once: a fused multiply-add, as the plain room and Eigen's kernels round it.
inline double multiply_add(double a, double b, double s) { return std::fma(a, b, s); }

#if defined(__FMA__)
// The same, four lanes at once.
inline __m256d multiply_add(__m256d a, __m256d b, __m256d s) { return _mm256_fmadd_pd(a, b, s); }
#endif

// Where the operands are: op(A)(i, p) = x[i x_row + p x_step]; op(B)'s row p is y + p y_row,
// its columns contiguous; C's rows are m long.
struct Operands {
  const double* x;
  std::int64_t x_row, x_step;
  const double* y;
  std::int64_t y_row, k, m;
};

#if defined(__FMA__)
// Rows [i, i + R) of columns [j, j + 4 W): R W registers of four chains each. K is k when it is
// 1 or 2, known when compiling, else 0: then op(B)'s K x W packets come in `held`, loaded once
// for all rows (a Linear layer on two features is such a product).
template <int R, int W, int K>
inline void column_rows(double* c, bool overwrite, const Operands& o, std::int64_t i, std::int64_t j,
                        const __m256d (&held)[K > 0 ? K : 1][W]) {
  const std::int64_t k = K > 0 ? K : o.k;
  __m256d s[R][W];
  for (int r = 0; r < R; ++r)
    for (int w = 0; w < W; ++w) s[r][w] = _mm256_setzero_pd();
  for (std::int64_t p = 0; p < k; ++p) {
    __m256d x[R];  // op(A)(i + r, p) in all four lanes
    for (int r = 0; r < R; ++r) x[r] = _mm256_set1_pd(o.x[(i + r) * o.x_row + p * o.x_step]);
    for (int w = 0; w < W; ++w) {
      const __m256d y = K > 0 ? held[p][w] : _mm256_loadu_pd(o.y + p * o.y_row + j + 4 * w);
      for (int r = 0; r < R; ++r) s[r][w] = multiply_add(x[r], y, s[r][w]);
    }
  }
  for (int r = 0; r < R; ++r) {
    double* out = c + (i + r) * o.m + j;
    for (int w = 0; w < W; ++w)
      _mm256_storeu_pd(out + 4 * w, overwrite ? s[r][w] : _mm256_add_pd(_mm256_loadu_pd(out + 4 * w), s[r][w]));
  }
}
#endif

// Columns [j, j + 4 W) of every row. With op(B) held (K > 0), a row at a time (its K steps are
// few); otherwise several rows at a time, so that up to eight registers of chains run side by
// side: a row's W registers alone would each wait on their previous step. Not inlined (nor is
// row_strips): inlined together into small_product, the strips' registers were spilled to the
// stack, and an 8 x 512 x 2 product took twice as long. Both take the Operands by value: a
// SIMD store may alias anything, so through a reference the compiler read o's fields again
// after every row's store to C; of a copy of their own, it knows no store to C changes them.
// (one_column and few_rows_of_transposed store single doubles, which cannot alias o's fields,
// so they keep the reference, which spares them the copy.)
template <int W, int K = 0>
[[gnu::noinline]] void column_strip(double* c, bool overwrite, Operands o, std::int64_t n, std::int64_t j) {
#if defined(__FMA__)
  __m256d held[K > 0 ? K : 1][W];
  if constexpr (K > 0)
    for (int p = 0; p < K; ++p)
      for (int w = 0; w < W; ++w) held[p][w] = _mm256_loadu_pd(o.y + p * o.y_row + j + 4 * w);
  constexpr int kRows = K > 0 ? 1 : W == 4 ? 2 : 4;
  std::int64_t i = 0;
  for (; i + kRows <= n; i += kRows) column_rows<kRows, W, K>(c, overwrite, o, i, j, held);
  for (; i < n; ++i) column_rows<1, W, K>(c, overwrite, o, i, j, held);
#else
  (void)c, (void)overwrite, (void)o, (void)n, (void)j;
#endif
}
// column_strip with op(B) held when k is 1 or 2.
template <int W>
void column_strips(double* c, bool overwrite, const Operands& o, std::int64_t n, std::int64_t j) {
  if (o.k == 1) return column_strip<W, 1>(c, overwrite, o, n, j);
  if (o.k == 2) return column_strip<W, 2>(c, overwrite, o, n, j);
  column_strip<W>(c, overwrite, o, n, j);
}

#if defined(__FMA__)
// s[w] = s[w] + x y(p, j + w), w < W, where yp is op(B)'s row p from column j: the next step of
// the chains of four rows (x holds their terms p) in W columns.
template <int W>
inline void add_terms(__m256d (&s)[W], __m256d x, const double* yp) {
  for (int w = 0; w < W; ++w) s[w] = multiply_add(x, _mm256_set1_pd(yp[w]), s[w]);
}

// Rows [i, i + 4) of C, columns [j, j + W): lane l of s[w] is element (i + l, j + w).
template <int W>
inline void put_lanes(double* c, bool overwrite, std::int64_t m, const __m256d (&s)[W], std::int64_t i,
                      std::int64_t j) {
  for (int w = 0; w < W; ++w) {
    double lane[4];
    _mm256_storeu_pd(lane, s[w]);
    for (int l = 0; l < 4; ++l) {
      double& out = c[(i + l) * m + j + w];
      out = overwrite ? lane[l] : out + lane[l];
    }
  }
}
#endif

// Fewer columns than a register holds (W < 4): four rows to a register, one column's chains in
// its four lanes. A product with few columns and a long sum, such as a Linear layer's weight
// gradient on two features (gᵀ x, summed over the batch), is then no longer one or two chains
// at a time. These fill rows [i, i + 4 R) of columns [j, j + W).
//
// op(A) transposed (A's row p holds op(A)'s column p): four rows' terms p are one load.
template <int R, int W>
void row_strip(double* c, bool overwrite, const Operands& o, std::int64_t i, std::int64_t j) {
#if defined(__FMA__)
  __m256d s[R][W];
  for (int r = 0; r < R; ++r)
    for (int w = 0; w < W; ++w) s[r][w] = _mm256_setzero_pd();
  for (std::int64_t p = 0; p < o.k; ++p) {
    const double* xp = o.x + p * o.x_step + i;  // op(A)(i, p), op(A)(i + 1, p), ...
    for (int r = 0; r < R; ++r) add_terms<W>(s[r], _mm256_loadu_pd(xp + 4 * r), o.y + p * o.y_row + j);
  }
  for (int r = 0; r < R; ++r) put_lanes<W>(c, overwrite, o.m, s[r], i + 4 * r, j);
#else
  (void)c, (void)overwrite, (void)o, (void)i, (void)j;
#endif
}

// op(A) not transposed (its rows contiguous): four rows' terms p .. p + 3 are four loads, turned
// in registers (a 4 x 4 transpose) into four registers of four rows' terms p, p + 1, ...
template <int W>
void row_strip_turned(double* c, bool overwrite, const Operands& o, std::int64_t i, std::int64_t j) {
#if defined(__FMA__)
  const double* x0 = o.x + i * o.x_row;  // op(A)'s rows i .. i + 3 (o.x_step is 1)
  const double *x1 = x0 + o.x_row, *x2 = x1 + o.x_row, *x3 = x2 + o.x_row;
  __m256d s[W];
  for (int w = 0; w < W; ++w) s[w] = _mm256_setzero_pd();
  auto y = [&](std::int64_t p) { return o.y + p * o.y_row + j; };
  std::int64_t p = 0;
  for (; p + 4 <= o.k; p += 4) {
    const __m256d r0 = _mm256_loadu_pd(x0 + p), r1 = _mm256_loadu_pd(x1 + p);
    const __m256d r2 = _mm256_loadu_pd(x2 + p), r3 = _mm256_loadu_pd(x3 + p);
    // (r0[0], r1[0], r0[2], r1[2]) and (r0[1], r1[1], r0[3], r1[3]); likewise rows 2 and 3.
    const __m256d even01 = _mm256_unpacklo_pd(r0, r1), odd01 = _mm256_unpackhi_pd(r0, r1);
    const __m256d even23 = _mm256_unpacklo_pd(r2, r3), odd23 = _mm256_unpackhi_pd(r2, r3);
    add_terms<W>(s, _mm256_permute2f128_pd(even01, even23, 0x20), y(p));  // rows' terms p
    add_terms<W>(s, _mm256_permute2f128_pd(odd01, odd23, 0x20), y(p + 1));
    add_terms<W>(s, _mm256_permute2f128_pd(even01, even23, 0x31), y(p + 2));
    add_terms<W>(s, _mm256_permute2f128_pd(odd01, odd23, 0x31), y(p + 3));
  }
  for (; p < o.k; ++p) add_terms<W>(s, _mm256_setr_pd(x0[p], x1[p], x2[p], x3[p]), y(p));
  put_lanes<W>(c, overwrite, o.m, s, i, j);
#else
  (void)c, (void)overwrite, (void)o, (void)i, (void)j;
#endif
}

// Columns [j, j + W) of rows [0, n - n % 4): eight rows at a time and then four when op(A) is
// transposed, four at a time when it is not.
template <int W>
[[gnu::noinline]] void row_strips(double* c, bool overwrite, Operands o, bool ta, std::int64_t n, std::int64_t j) {
  std::int64_t i = 0;
  if (ta)
    for (; i + 8 <= n; i += 8) row_strip<2, W>(c, overwrite, o, i, j);
  for (; i + 4 <= n; i += 4) ta ? row_strip<1, W>(c, overwrite, o, i, j) : row_strip_turned<W>(c, overwrite, o, i, j);
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

void small_product(double* c, bool overwrite, const Matrix& A, const Matrix& B, std::int64_t n, std::int64_t k,
                   std::int64_t m) {
  if (n == 0 || m == 0) return;
  const double *a = A.data, *b = B.data;
  const std::int64_t ac = A.cols, bc = B.cols;
  const bool ta = A.transposed, tb = B.transposed;
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
#if defined(__FMA__)
  for (; j + 16 <= m; j += 16) column_strips<4>(c, overwrite, o, n, j);
  for (; j + 8 <= m; j += 8) column_strips<2>(c, overwrite, o, n, j);
  for (; j + 4 <= m; j += 4) column_strips<1>(c, overwrite, o, n, j);
  // The last m % 4 columns, fewer than a register holds: four rows to a register (row_strips),
  // then the last n % 4 rows of those columns a column at a time. Not when op(A) is not
  // transposed and k < 4: with no whole 4 x 4 block to turn, gathering each term cost more than
  // one_column (a read-out of two features, say, which has no 4 x 4 block at all).
  if (j < m && n >= 4 && (ta || k >= 4)) {
    if (m - j == 3) row_strips<3>(c, overwrite, o, ta, n, j);
    if (m - j == 2) row_strips<2>(c, overwrite, o, ta, n, j);
    if (m - j == 1) row_strips<1>(c, overwrite, o, ta, n, j);
    const std::int64_t done = n - n % 4;
    Operands rest = o;  // the rows from `done` on
    rest.x += done * o.x_row;
    for (; j < m && done < n; ++j) one_column(c + done * m, overwrite, rest, n - done, j);
    return;
  }
#endif
  for (; j < m; ++j) one_column(c, overwrite, o, n, j);
}

}  // namespace litgrad::kernels::fast
