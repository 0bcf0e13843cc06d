#pragma once
// Attention's weights, softmax(q kᵀ / sqrt(E) + mask), one [L, S] matrix at a time, forward and
// backward, on raw arrays. Only the library's own .cpp files (and the kernels' tests) include
// this.
//
// The arithmetic, the same in both rooms (kernels/room.hpp): for each matrix b of the batch,
//   scaled = q / sqrt(E), element by element;
//   scores = scaled kᵀ, as kernels::Product(L, E, S) computes it (kernels/product.hpp);
//   score_ij + mask_ij where there is a mask; and where the attention is causal, score_ij +
//   (-inf) for every key j after the query i (j > i), so that a key the query may not see gets
//   weight exactly 0 (and a NaN score stays NaN, as adding a causal mask would leave it);
//   w = softmax of every row (kernels/softmax.hpp).
// Backward, from w and the gradient g of w: ds = softmax's backward of every row; then
// dq = (ds k) / sqrt(E), with Product(L, S, E), and dk = dsᵀ scaled, with Product(S, L, E).
//
// The plain room does just that. The fast room does it one matrix at a time while it is in
// cache, and, when the attention is causal and every score is sure to be finite, leaves out
// the products of the scores that the causal structure hides (it knows which from `causal`, not
// from the mask's values), and the zero terms of the backward's products.

#include <cstdint>

#include "litgrad/base/flop_counter.hpp"
#include "litgrad/base/shape.hpp"
#include "litgrad/kernels/room.hpp"

namespace litgrad::kernels {

/// A Float64 mask to add to every [L, S] matrix of scores, broadcast over the batch: its
/// matrix for batch index b starts at matrix_size * offset(b), where offset(b) is mask_batch's
/// broadcast offset of b (kernels/broadcast.hpp), and its (i, j) is row_stride i + col_stride j
/// into it; a stride is 0 along a dimension the mask broadcasts. `data` null: no mask.
struct AttentionMask {
  const double* data = nullptr;
  Shape batch;  // the mask's own batch dimensions
  std::int64_t matrix_size = 0, row_stride = 0, col_stride = 0;
};

/// The layout of `mask_data` (shape mask_shape, which broadcasts to [batch..., L, S]).
AttentionMask attention_mask(const double* mask_data, const Shape& mask_shape, std::int64_t L, std::int64_t S);

/// The shapes of one call: numel(batch) matrices, query [L, E] and key [S, E] each, contiguous.
struct AttentionShape {
  Shape batch;
  std::int64_t L = 0, E = 0, S = 0;
};

namespace plain {
void attention_weights(const double* q, const double* k, const AttentionMask& mask, bool causal,
                       const AttentionShape& shape, double* scaled, double* w);
void attention_weights_backward(const double* g, const double* w, const double* scaled, const double* k,
                                const AttentionShape& shape, double* dq, double* dk);
}  // namespace plain

namespace fast {
void attention_weights(const double* q, const double* k, const AttentionMask& mask, bool causal,
                       const AttentionShape& shape, double* scaled, double* w);
void attention_weights_backward(const double* g, const double* w, const double* scaled, const double* k,
                                const AttentionShape& shape, double* dq, double* dk);
}  // namespace fast

/// scaled ([batch, L, E]) = q / sqrt(E); w ([batch, L, S]) = the weights, as the top of this
/// file says.
inline void attention_weights(const double* q, const double* k, const AttentionMask& mask, bool causal,
                              const AttentionShape& shape, double* scaled, double* w) {
  detail::count_multiply_adds(numel(shape.batch) * shape.L * shape.S * shape.E);  // the scores q kᵀ
  room::attention_weights(q, k, mask, causal, shape, scaled, w);
}

/// dq (null when not needed) and dk (likewise), in q's and k's layouts, from the gradient g of
/// the weights w, and the scaled query and the key of the forward.
inline void attention_weights_backward(const double* g, const double* w, const double* scaled, const double* k,
                                       const AttentionShape& shape, double* dq, double* dk) {
  // dq = g' k and dk = g'ᵀ q, each L S E multiply-adds, for those asked for
  detail::count_multiply_adds(numel(shape.batch) * shape.L * shape.S * shape.E * ((dq != nullptr) + (dk != nullptr)));
  room::attention_weights_backward(g, w, scaled, k, shape, dq, dk);
}

}  // namespace litgrad::kernels
