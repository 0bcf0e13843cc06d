// The plain room's attention weights (kernels/attention.hpp): the composition, one matrix of
// the batch at a time, in the order the formulas read.

#include "litgrad/kernels/attention.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "litgrad/kernels/plain/broadcast.hpp"
#include "litgrad/kernels/product.hpp"
#include "litgrad/kernels/softmax.hpp"

namespace litgrad::kernels {

AttentionMask attention_mask(const double* mask_data, const Shape& mask_shape, std::int64_t L, std::int64_t S) {
  AttentionMask m;
  if (!mask_data) return m;
  m.data = mask_data;
  const std::int64_t own = std::min<std::int64_t>(static_cast<std::int64_t>(mask_shape.size()), 2);  // among [L, S]
  m.batch = leading_dims(mask_shape, own);
  const Shape matrix(mask_shape.end() - own, mask_shape.end());
  const Strides strides = broadcast_strides(matrix, {L, S});
  m.row_stride = strides[0];
  m.col_stride = strides[1];
  m.matrix_size = numel(matrix);
  return m;
}

namespace plain {

void attention_weights(const double* q, const double* k, const AttentionMask& mask, bool causal,
                       const AttentionShape& shape, double* scaled, double* w) {
  const std::int64_t L = shape.L, E = shape.E, S = shape.S, count = numel(shape.batch);
  const double root = std::sqrt(static_cast<double>(E));
  for (std::int64_t i = 0; i < count * L * E; ++i) scaled[i] = q[i] / root;
  Product scores(L, E, S, /*overwrite=*/true);
  for_each_broadcast<1>(shape.batch, {&mask.batch}, [&](std::int64_t b, const auto& o) {
    double* wb = w + b * L * S;
    scores.add(wb, {scaled + b * L * E, L, E}, {k + b * S * E, S, E, true});
    for (std::int64_t i = 0; i < L; ++i)
      for (std::int64_t j = 0; j < S; ++j) {
        double& score = wb[i * S + j];
        if (mask.data) score = score + mask.data[o[0] * mask.matrix_size + i * mask.row_stride + j * mask.col_stride];
        if (causal && j > i) score = score + -INFINITY;
      }
    softmax(wb, wb, L, S, 1);
  });
}

void attention_weights_backward(const double* g, const double* w, const double* scaled, const double* k,
                                const AttentionShape& shape, double* dq, double* dk) {
  const std::int64_t L = shape.L, E = shape.E, S = shape.S, count = numel(shape.batch);
  std::vector<double> ds(static_cast<std::size_t>(L * S));
  Product to_query(L, S, E, /*overwrite=*/true), to_key(S, L, E, /*overwrite=*/true);
  for (std::int64_t b = 0; b < count; ++b) {
    softmax_backward(w + b * L * S, g + b * L * S, ds.data(), L, S, 1);
    if (dq) to_query.add(dq + b * L * E, {ds.data(), L, S}, {k + b * S * E, S, E});
    if (dk) to_key.add(dk + b * S * E, {ds.data(), L, S, true}, {scaled + b * L * E, L, E});
  }
  const double root = std::sqrt(static_cast<double>(E));
  if (dq)
    for (std::int64_t i = 0; i < count * L * E; ++i) dq[i] /= root;
}

}  // namespace plain
}  // namespace litgrad::kernels
