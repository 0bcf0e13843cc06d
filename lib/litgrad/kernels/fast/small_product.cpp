// The fast room's small_product (kernels/fast/small_product.hpp): each element added in four
// interleaved partial sums, with SIMD along rows or along sums.

#include "litgrad/kernels/fast/small_product.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace litgrad::kernels::fast {

namespace {

// The four sums one element at a time, as the definition reads.
void tiny_product(double* c, bool overwrite, const double* a, std::int64_t ac, bool ta, const double* b,
                  std::int64_t bc, bool tb, std::int64_t n, std::int64_t k, std::int64_t m) {
  // op(A)(i, p) = a[i a_row + p a_step], op(B)(p, j) = b[p b_step + j b_col].
  const std::int64_t a_row = ta ? 1 : ac, a_step = ta ? ac : 1, b_step = tb ? 1 : bc, b_col = tb ? bc : 1;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      const double* x = a + i * a_row;
      const double* y = b + j * b_col;
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      std::int64_t p = 0;
      for (; p + 4 <= k; p += 4) {
        s0 += x[p * a_step] * y[p * b_step];
        s1 += x[(p + 1) * a_step] * y[(p + 1) * b_step];
        s2 += x[(p + 2) * a_step] * y[(p + 2) * b_step];
        s3 += x[(p + 3) * a_step] * y[(p + 3) * b_step];
      }
      if (p < k) s0 += x[p * a_step] * y[p * b_step];
      if (p + 1 < k) s1 += x[(p + 1) * a_step] * y[(p + 1) * b_step];
      if (p + 2 < k) s2 += x[(p + 2) * a_step] * y[(p + 2) * b_step];
      const double total = (s0 + s1) + (s2 + s3);
      c[i * m + j] = overwrite ? total : c[i * m + j] + total;
    }
}

// W doubles in SIMD registers, with arithmetic lane by lane: GCC's (and Clang's) vector types,
// which the compiler keeps in registers (it spills Eigen's fixed-size vectors here to the stack).
template <int W>
struct Simd {
  typedef double type __attribute__((vector_size(W * sizeof(double))));
};
template <int W>
typename Simd<W>::type load(const double* from) {  // unaligned
  typename Simd<W>::type v;
  std::memcpy(&v, from, sizeof v);
  return v;
}

// The four partial sums of term(0), ..., term(k - 1) (k >= 1) and their total (s0 + s1) +
// (s2 + s3), lane by lane. Each sum starts at its first term rather than at +0, and the total
// gets + 0 at the end. That gives the bits of the definition: the values on the way are the
// same but for the sign of a zero (x + 0 is x for any other x), a sum that starts at +0 is
// never -0, and the final + 0 turns a -0 into +0 as the start at +0 would have. Missing sums
// (k < 4) are +0 in the definition, which likewise changes only the sign of a zero.
// K is k when it is 1, 2 or 3, known when compiling; 0 for k >= 4.
template <class V, int K, class Term>
V four_sums(std::int64_t k, Term term) {
  V s0 = term(0);
  if constexpr (K == 1) return s0 + 0.0;
  V s1 = term(1);
  if constexpr (K == 2) return (s0 + s1) + 0.0;
  V s2 = term(2);
  if constexpr (K == 3) return ((s0 + s1) + s2) + 0.0;
  V s3 = term(3);
  std::int64_t p = 4;
  for (; p + 4 <= k; p += 4) {
    s0 += term(p);
    s1 += term(p + 1);
    s2 += term(p + 2);
    s3 += term(p + 3);
  }
  if (p < k) s0 += term(p);
  if (p + 1 < k) s1 += term(p + 1);
  if (p + 2 < k) s2 += term(p + 2);
  return ((s0 + s1) + (s2 + s3)) + 0.0;
}

// `count` rows of a result, each w wide: row i = sum over p of x(i, p) times the row y_p, every
// element of the row at once. x(i, p) = x[i x_row + p x_step]; y_p = y + p y_row, w contiguous;
// row i goes to out + i out_row, its elements out_step apart.
struct RowSums {
  double* out;
  std::int64_t out_row, out_step;
  bool overwrite;
  const double* x;
  std::int64_t x_row, x_step;
  const double* y;
  std::int64_t y_row, count, k, w;
};

// Row i of the result, `total`, into its place.
template <int W, class Row>
void put_row(const RowSums& r, std::int64_t i, Row total) {
  double* out = r.out + i * r.out_row;
  if (r.out_step == 1) {
    if (!r.overwrite) total += load<W>(out);
    std::memcpy(out, &total, sizeof total);
  } else {
    double t[W];
    std::memcpy(t, &total, sizeof t);
    for (int j = 0; j < W; ++j) out[j * r.out_step] = r.overwrite ? t[j] : out[j * r.out_step] + t[j];
  }
}

// W of the w columns, one lane each; K as in four_sums. With fewer than four terms, every row
// uses the same K rows y_p: they are loaded once, into registers (the compiler would load them
// again after each row's store, which might have written them).
template <int W, int K>
void row_sums(const RowSums& r) {
  using Row = typename Simd<W>::type;
  if constexpr (K > 0) {
    Row ys[K];
    for (int p = 0; p < K; ++p) ys[p] = load<W>(r.y + p * r.y_row);
    for (std::int64_t i = 0; i < r.count; ++i) {
      const double* x = r.x + i * r.x_row;
      put_row<W>(r, i, four_sums<Row, K>(K, [&](std::int64_t p) { return x[p * r.x_step] * ys[p]; }));
    }
  } else {
    for (std::int64_t i = 0; i < r.count; ++i) {
      const double* x = r.x + i * r.x_row;
      put_row<W>(r, i, four_sums<Row, K>(r.k, [&](std::int64_t p) { return x[p * r.x_step] * load<W>(r.y + p * r.y_row); }));
    }
  }
}
template <int W>
void row_sums(const RowSums& r) {
  switch (r.k) {
    case 1: return row_sums<W, 1>(r);
    case 2: return row_sums<W, 2>(r);
    case 3: return row_sums<W, 3>(r);
    default: return row_sums<W, 0>(r);
  }
}

// All w columns: strips of 16, then what is left by its binary digits (7 = 4 + 2 + 1), each
// strip with its width fixed.
void row_sums_all(const RowSums& r) {
  constexpr std::int64_t kStrip = 16;
  for (std::int64_t j = 0; j < r.w;) {
    RowSums strip = r;
    strip.out = r.out + j * r.out_step;
    strip.y = r.y + j;
    const std::int64_t left = r.w - j;
    if (left >= kStrip) row_sums<kStrip>(strip), j += kStrip;
    else if (left >= 8) row_sums<8>(strip), j += 8;
    else if (left >= 4) row_sums<4>(strip), j += 4;
    else if (left >= 2) row_sums<2>(strip), j += 2;
    else row_sums<1>(strip), j += 1;
  }
}

// c(i, j) for op(A)'s rows and op(B)'s columns contiguous (x and y, k long): the four lanes of
// x[p, p + 4) y[p, p + 4), added for p = 0, 4, 8, ..., are the four partial sums. A last
// partial chunk is padded with zeros, whose products (+0) change at most the sign of a zero.
// Four rows at a time, so that their four totals come out of one shuffle-and-add.
void dot_products(double* c, bool overwrite, const double* a, std::int64_t a_row, const double* b,
                  std::int64_t b_col, std::int64_t n, std::int64_t k, std::int64_t m) {
  using Lanes = Simd<4>::type;
  const std::int64_t chunks = (k + 3) / 4, whole = k / 4;
  auto lanes = [&](const double* x, const double* y) {  // the four partial sums of x . y
    auto chunk = [&](std::int64_t q) {
      if (q < whole) return load<4>(x + 4 * q) * load<4>(y + 4 * q);
      Lanes xt = {}, yt = {};
      std::memcpy(&xt, x + 4 * q, sizeof(double) * static_cast<std::size_t>(k - 4 * q));
      std::memcpy(&yt, y + 4 * q, sizeof(double) * static_cast<std::size_t>(k - 4 * q));
      return xt * yt;
    };
    Lanes s = chunk(0);
    for (std::int64_t q = 1; q < chunks; ++q) s += chunk(q);
    return s;
  };
  auto put = [&](std::int64_t i, std::int64_t j, double total) {
    c[i * m + j] = overwrite ? total : c[i * m + j] + total;
  };
  for (std::int64_t j = 0; j < m; ++j) {
    const double* y = b + j * b_col;
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const Lanes s0 = lanes(a + i * a_row, y), s1 = lanes(a + (i + 1) * a_row, y);
      const Lanes s2 = lanes(a + (i + 2) * a_row, y), s3 = lanes(a + (i + 3) * a_row, y);
      // [s0[0] + s0[1], s1[0] + s1[1], s0[2] + s0[3], s1[2] + s1[3]], and likewise for s2, s3;
      // then the first halves plus the second: row r's (s[0] + s[1]) + (s[2] + s[3]) in lane r.
      const Lanes pairs01 = __builtin_shufflevector(s0, s1, 0, 4, 2, 6) + __builtin_shufflevector(s0, s1, 1, 5, 3, 7);
      const Lanes pairs23 = __builtin_shufflevector(s2, s3, 0, 4, 2, 6) + __builtin_shufflevector(s2, s3, 1, 5, 3, 7);
      const Lanes totals = (__builtin_shufflevector(pairs01, pairs23, 0, 1, 4, 5) +
                            __builtin_shufflevector(pairs01, pairs23, 2, 3, 6, 7)) + 0.0;
      for (int r = 0; r < 4; ++r) put(i + r, j, totals[r]);
    }
    for (; i < n; ++i) {
      const Lanes s = lanes(a + i * a_row, y);
      put(i, j, ((s[0] + s[1]) + (s[2] + s[3])) + 0.0);
    }
  }
}

}  // namespace

void small_product(double* c, bool overwrite, const double* a, std::int64_t ac, bool ta, const double* b,
                   std::int64_t bc, bool tb, std::int64_t n, std::int64_t k, std::int64_t m) {
  if (n == 0 || m == 0) return;
  // A few hundred multiply-adds cost less as a plain loop than any setting up.
  if (n * k * m <= 512) return tiny_product(c, overwrite, a, ac, ta, b, bc, tb, n, k, m);
  const bool narrow = m < 8 && n > m;  // C's rows are short: work along its columns instead
  if (narrow && ta) {
    // Cᵀ's rows, written as C's columns: row j = sum_p op(B)(p, j) op(A)ᵀ's row p, which is
    // A's row p (A is stored k x n).
    const std::int64_t x_row = tb ? bc : 1, x_step = tb ? 1 : bc;
    return row_sums_all({c, 1, m, overwrite, b, x_row, x_step, a, ac, m, k, n});
  }
  if (narrow && (tb || m == 1))  // op(A)'s rows (A is not transposed) and op(B)'s columns are contiguous
    return dot_products(c, overwrite, a, ac, b, tb ? bc : 1, n, k, m);
  // C's rows: row i = sum_p op(A)(i, p) op(B)'s row p, which is B's row p, or a copy of
  // B's column p when B is transposed.
  const double* y = b;
  std::int64_t y_row = bc;
  thread_local std::vector<double> transposed;
  if (tb) {
    transposed.resize(static_cast<std::size_t>(k * m));
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t p = 0; p < k; ++p) transposed[static_cast<std::size_t>(p * m + j)] = b[j * bc + p];
    y = transposed.data();
    y_row = m;
  }
  const std::int64_t x_row = ta ? 1 : ac, x_step = ta ? ac : 1;
  row_sums_all({c, m, 1, overwrite, a, x_row, x_step, y, y_row, n, k, m});
}

}  // namespace litgrad::kernels::fast
