// detail::attention_weights: softmax(q kᵀ / sqrt(E) + mask) computed one [L, S] matrix at a
// time, forward and backward, with the arithmetic of the composition it replaces.

#include "litgrad/detail/attention_weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "litgrad/detail/broadcast.hpp"
#include "litgrad/detail/lane_sum.hpp"
#include "litgrad/detail/matrix_product.hpp"
#include "litgrad/detail/node.hpp"
#include "litgrad/detail/softmax_slice.hpp"
#include "litgrad/detail/storage.hpp"
#include "litgrad/detail/tensor_impl.hpp"

namespace litgrad::detail {

namespace {

// Where a mask that broadcasts to [batch..., L, S] keeps element (b, i, j): its matrix for
// batch index b starts at matrix_size * offset(b) (offsets from for_each_broadcast over its
// leading dimensions), and (i, j) is row_stride * i + col_stride * j into it; a stride is 0
// along a dimension the mask broadcasts. No mask: one empty matrix, never read.
struct MaskLayout {
  Shape batch;
  std::int64_t matrix_size = 0, row_stride = 0, col_stride = 0;
  MaskLayout(const Tensor& mask, std::int64_t L, std::int64_t S) {
    if (!mask.defined()) return;
    const std::int64_t own = std::min<std::int64_t>(mask.dim(), 2);  // the mask's dimensions among [L, S]
    batch = leading_dims(mask.shape(), own);
    const Shape matrix(mask.shape().end() - own, mask.shape().end());
    const Strides strides = broadcast_strides(matrix, {L, S});
    row_stride = strides[0];
    col_stride = strides[1];
    matrix_size = numel(matrix);
  }
};

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

// Whether every score scaled · key (any row of scaled [..., L, E] with any row of key
// [..., S, E]) is finite, and so is every partial sum on the way: when both hold only finite
// numbers whose largest magnitudes, times E, multiply to less than DBL_MAX (a NaN or inf among
// them fails the comparison).
bool scores_finite(const Tensor& scaled, const Tensor& key) {
  return largest_magnitude(scaled.data(), scaled.numel()) * largest_magnitude(key.data(), key.numel()) *
             static_cast<double>(scaled.size(-1)) < 1e300;
}

// For each row i of one [L, S] mask matrix (mask_matrix, laid out as `m` says): one past its
// last element that is not -inf, 0 when all are. Scores past it are -inf whatever the product.
std::vector<std::int64_t> columns_before_masked_tail(const double* mask_matrix, const MaskLayout& m, std::int64_t L,
                                                     std::int64_t S) {
  std::vector<std::int64_t> needed(static_cast<std::size_t>(L));
  for (std::int64_t i = 0; i < L; ++i) {
    const double* mrow = mask_matrix + i * m.row_stride;
    std::int64_t j = S;
    while (j > 0 && mrow[(j - 1) * m.col_stride] == -INFINITY) --j;
    needed[static_cast<std::size_t>(i)] = j;
  }
  return needed;
}

// g, w: [..., L, S]; scaled (query / sqrt(E)): [..., L, E]; key: [..., S, E]; returns the
// gradients of query and key, in their shapes. Forward: w = softmax(scaled keyᵀ + mask). With
// dS the softmax's gradient (from w and g, a row at a time): d(scaled) = dS key, so
// dq = (dS key) / sqrt(E); and dk = dSᵀ scaled. One [L, S] buffer for dS serves every matrix.
std::vector<Tensor> gradients(const Tensor& g, const Tensor& w, const Tensor& scaled, const Tensor& key, bool need_q,
                              bool need_k) {
  const std::int64_t L = scaled.size(-2), E = scaled.size(-1), S = key.size(-2), count = numel(leading_dims(w.shape(), 2));
  Tensor gq = need_q ? uninitialized_tensor(scaled.shape()) : Tensor();
  Tensor gk = need_k ? uninitialized_tensor(key.shape()) : Tensor();
  const double *wv = w.data(), *gv = g.data(), *kv = key.data(), *qs = scaled.data();
  Storage ds(static_cast<std::size_t>(L * S));
  MatrixProduct to_query(L, S, E, /*overwrite=*/true), to_key(S, L, E, /*overwrite=*/true);
  for (std::int64_t b = 0; b < count; ++b) {
    for (std::int64_t i = 0; i < L; ++i) {
      const std::int64_t row = b * L * S + i * S;
      softmax_backward_slice(wv + row, gv + row, ds.data() + i * S, 1, S);
    }
    if (need_q) to_query.add(gq.data() + b * L * E, ds.data(), L, S, false, kv + b * S * E, S, E, false);
    if (need_k) to_key.add(gk.data() + b * S * E, ds.data(), L, S, true, qs + b * L * E, L, E, false);
  }
  if (need_q) {
    const double scale = std::sqrt(static_cast<double>(E));
    double* dq = gq.data();
    for (std::int64_t i = 0, n = gq.numel(); i < n; ++i) dq[i] /= scale;
  }
  return {gq, gk};
}

}  // namespace

bool attention_weights_fusable(const Tensor& query, const Tensor& key, const Tensor& mask) {
  return leading_dims(query.shape(), 2) == leading_dims(key.shape(), 2) &&
         (!mask.defined() || (mask.dtype() == DType::Float64 && !mask.requires_grad()));
}

// query: [..., L, E], key: [..., S, E], mask: broadcasts to [..., L, S]; result w: [..., L, S].
// w = softmax(query / sqrt(E) keyᵀ + mask) by rows; its backward is gradients() above.
Tensor attention_weights(const Tensor& query, const Tensor& key, const Tensor& mask) {
  const std::int64_t L = query.size(-2), E = query.size(-1), S = key.size(-2);
  const Shape batch = leading_dims(query.shape(), 2);
  const std::int64_t count = numel(batch);
  const double scale = std::sqrt(static_cast<double>(E));

  // query / sqrt(E), as div() computes it; the backward needs it for key's gradient.
  Tensor scaled = uninitialized_tensor(query.shape());
  const double* q = query.data();
  double* qs = scaled.data();
  for (std::int64_t i = 0, n = query.numel(); i < n; ++i) qs[i] = q[i] / scale;

  Shape out = batch;
  out.push_back(L);
  out.push_back(S);
  Tensor w = uninitialized_tensor(out);
  if (count > 0) {
    // For each matrix b: its scores as matmul computes them, then + mask, then softmax by rows.
    // Where the mask is -inf from some column to the end of a row (a causal mask), the score
    // there is -inf whatever the product, provided the product is finite (scores_finite): those
    // products are left out (MatrixProduct's `columns`), and softmax_slice is told where the
    // -inf begin instead of reading them.
    MatrixProduct scores(L, E, S, /*overwrite=*/true);
    const MaskLayout m(mask, L, S);
    const double* mask_data = mask.defined() ? mask.data() : nullptr;
    const bool skip = mask_data && scores_finite(scaled, key);
    std::vector<std::int64_t> needed, columns(static_cast<std::size_t>(L), S);
    std::int64_t needed_for = -1;  // the mask matrix that `needed` was found for
    for_each_broadcast<1>(batch, {&m.batch}, [&](std::int64_t b, const auto& o) {
      double* wb = w.data() + b * L * S;
      const double* mb = mask_data ? mask_data + o[0] * m.matrix_size : nullptr;
      if (skip && needed_for != o[0]) {
        needed = columns_before_masked_tail(mb, m, L, S);
        needed_for = o[0];
      }
      if (skip) columns = needed;
      scores.add(wb, scaled.data() + b * L * E, L, E, false, key.data() + b * S * E, S, E, true,
                 skip ? columns.data() : nullptr);
      for (std::int64_t i = 0; i < L; ++i) {
        double* row = wb + i * S;
        const std::int64_t computed = columns[static_cast<std::size_t>(i)];  // the rest: -inf, unwritten
        if (mb) {
          const double* mrow = mb + i * m.row_stride;
          if (m.col_stride == 1)  // (a loop of its own, which the compiler vectorises)
            for (std::int64_t j = 0; j < computed; ++j) row[j] = row[j] + mrow[j];
          else
            for (std::int64_t j = 0; j < computed; ++j) row[j] = row[j] + mrow[j * m.col_stride];
        }
        softmax_slice(row, row, 1, S, computed);
      }
    });
  }

  const bool need_q = query.requires_grad(), need_k = key.requires_grad();
  return record("attention_weights", w, {query, key}, [w, scaled, key, need_q, need_k](const Tensor& g) {
    return gradients(g, w, scaled, key, need_q, need_k);
  });
}

}  // namespace litgrad::detail
