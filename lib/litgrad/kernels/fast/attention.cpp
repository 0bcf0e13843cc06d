// The fast room's attention weights (kernels/attention.hpp): each [L, S] matrix from start to
// finish while it is in cache, keeping only the weights.
//
// The composition makes five tensors the size of the weights (the scores, the masked scores,
// the weights and, backward, two gradients) and walks each of them in full before the next
// step starts; at long lengths those walks, not the arithmetic, take the time.

#include "litgrad/kernels/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "litgrad/kernels/fast/broadcast.hpp"
#include "litgrad/kernels/fast/softmax.hpp"
#include "litgrad/kernels/memory.hpp"
#include "litgrad/kernels/parallel.hpp"
#include "litgrad/kernels/product.hpp"

namespace litgrad::kernels::fast {

namespace {

// The largest magnitude among x[0, n): inf or NaN when there is one. A double's bits without
// the sign, read as an unsigned integer, order magnitudes as the numbers do, with inf above
// every number and NaN above inf; so this is a maximum of integers, in kLanes lanes, which the
// compiler runs as SIMD.
double largest_magnitude(const double* x, std::int64_t n) {
  constexpr std::uint64_t magnitude = 0x7fffffffffffffff;
  std::uint64_t lane[kLanes] = {};
  auto take = [&](int l, const double* v) {
    std::uint64_t u;
    std::memcpy(&u, v, sizeof u);
    lane[l] = std::max(lane[l], u & magnitude);
  };
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) take(l, x + j + l);
  for (int l = 0; j < n; ++j, ++l) take(l, x + j);
  const std::uint64_t most = *std::max_element(lane, lane + kLanes);
  double m;
  std::memcpy(&m, &most, sizeof m);
  return m;
}

// Whether every score (any row of scaled [n, E] with any row of key [s, E]) is finite, and so
// is every partial sum on the way: when both hold only finite numbers whose largest
// magnitudes, times E, multiply to less than DBL_MAX (a NaN or inf among them fails the
// comparison).
bool scores_finite(const double* scaled, std::int64_t n, const double* key, std::int64_t s, std::int64_t E) {
  return largest_magnitude(scaled, n * E) * largest_magnitude(key, s * E) * static_cast<double>(E) < 1e300;
}

}  // namespace

// For each matrix b: its scores as Product computes them, then + mask, then softmax by rows.
// Under a causal structure the score of a key after the query is -inf whatever the product,
// provided the product is finite (scores_finite): those products are left out (Product's
// `columns`), and softmax_slice is told where the -inf begin instead of reading them.
// The matrices share nothing, so runs of them go to different threads (kernels/parallel.hpp).
void attention_weights(const double* q, const double* k, const AttentionMask& mask, bool causal,
                       const AttentionShape& shape, double* scaled, double* w) {
  const std::int64_t L = shape.L, E = shape.E, S = shape.S, count = numel(shape.batch);
  const double root = std::sqrt(static_cast<double>(E));
  for (std::int64_t i = 0, n = count * L * E; i < n; ++i) scaled[i] = q[i] / root;
  if (count == 0) return;
  const bool skip = causal && scores_finite(scaled, count * L, k, count * S, E);
  std::vector<std::int64_t> mask_at;  // each matrix's mask, as an offset in mask.data
  mask_at.reserve(static_cast<std::size_t>(count));
  for_each_broadcast<1>(shape.batch, {&mask.batch}, [&](std::int64_t, const auto& o) { mask_at.push_back(o[0]); });
  const std::int64_t parts = parts_for(count * L * S * E, count);
  parallel_for(parts, [&](std::int64_t part) {
    Product scores(L, E, S, /*overwrite=*/true);
    std::vector<std::int64_t> columns(static_cast<std::size_t>(L), S);
    for (std::int64_t b = count * part / parts; b < count * (part + 1) / parts; ++b) {
      double* wb = w + b * L * S;
      if (skip)  // row i needs keys 0..i
        for (std::int64_t i = 0; i < L; ++i) columns[static_cast<std::size_t>(i)] = std::min(S, i + 1);
      scores.add(wb, {scaled + b * L * E, L, E}, {k + b * S * E, S, E, true}, skip ? columns.data() : nullptr);
      const double* mb = mask.data ? mask.data + mask_at[static_cast<std::size_t>(b)] * mask.matrix_size : nullptr;
      for (std::int64_t i = 0; i < L; ++i) {
        double* row = wb + i * S;
        const std::int64_t computed = columns[static_cast<std::size_t>(i)];  // the rest: -inf, unwritten
        if (mb) {
          const double* mrow = mb + i * mask.row_stride;
          if (mask.col_stride == 1)  // (a loop of its own, which the compiler vectorises)
            for (std::int64_t j = 0; j < computed; ++j) row[j] = row[j] + mrow[j];
          else
            for (std::int64_t j = 0; j < computed; ++j) row[j] = row[j] + mrow[j * mask.col_stride];
        }
        if (causal)
          for (std::int64_t j = i + 1; j < computed; ++j) row[j] = row[j] + -INFINITY;
        softmax_slice(row, row, 1, S, computed);
      }
    }
  });
}

// For each matrix, one [L, S] buffer for ds: ds = softmax's backward (from w and g, a row at a
// time); dq = (ds key) / sqrt(E); dk = dsᵀ scaled. The products leave out ds's zero terms (the
// keys a causal query does not see) where that changes no bit (kernels/fast/product.cpp).
// Runs of matrices go to different threads, each with its own buffer, as in the forward.
void attention_weights_backward(const double* g, const double* w, const double* scaled, const double* k,
                                const AttentionShape& shape, double* dq, double* dk) {
  const std::int64_t L = shape.L, E = shape.E, S = shape.S, count = numel(shape.batch);
  const std::int64_t parts = parts_for(count * L * S * E * ((dq != nullptr) + (dk != nullptr)), count);
  parallel_for(parts, [&](std::int64_t part) {
    std::vector<double, Allocator<double>> ds(static_cast<std::size_t>(L * S));
    Product to_query(L, S, E, /*overwrite=*/true), to_key(S, L, E, /*overwrite=*/true);
    for (std::int64_t b = count * part / parts; b < count * (part + 1) / parts; ++b) {
      for (std::int64_t i = 0; i < L; ++i) {
        const std::int64_t row = b * L * S + i * S;
        softmax_backward_slice(w + row, g + row, ds.data() + i * S, 1, S);
      }
      if (dq) to_query.add(dq + b * L * E, {ds.data(), L, S}, {k + b * S * E, S, E});
      if (dk) to_key.add(dk + b * S * E, {ds.data(), L, S, true}, {scaled + b * L * E, L, E});
    }
  });
  if (dq) {
    const double root = std::sqrt(static_cast<double>(E));
    for (std::int64_t i = 0, n = count * L * E; i < n; ++i) dq[i] /= root;
  }
}

}  // namespace litgrad::kernels::fast
