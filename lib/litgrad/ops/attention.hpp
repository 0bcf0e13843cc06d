#pragma once
/// \file attention.hpp
/// \brief Scaled dot-product attention, and the causal mask.
///
/// Attention is a weighted average: each query scores every key, softmax turns the scores
/// into weights that sum to one, and the output is the weights times the values.

#include "litgrad/core/random.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief What attention returns: the output, and the weights it averaged with.
struct AttentionOutput {
  Tensor output;   ///< the weighted averages of the values
  Tensor weights;  ///< the attention weights (after dropout, as torch); undefined if not asked for
};

/// \brief `softmax(query keyᵀ / sqrt(E) + mask) value`, batched over leading dimensions.
///
/// Shapes: query `[..., L, E]`, key `[..., S, E]`, value `[..., S, Ev]`; the leading dimensions
/// broadcast. Returns output `[..., L, Ev]` and weights `[..., L, S]`. The query is divided by
/// `sqrt(E)` before the product, in the order torch 1.13's MultiheadAttention computes.
///
/// \p attn_mask broadcasts to `[..., L, S]`. A Float64 mask is added to the scores (`-inf`
/// forbids a position). A Bool mask follows `torch.nn.functional.scaled_dot_product_attention`:
/// **true means "may attend"**, false positions get `-inf`. This is the opposite of
/// nn::MultiheadAttention's masks, where true means "may not attend", as in torch. A query
/// whose every key is forbidden gets NaN weights and output, as torch.
///
/// \p is_causal forbids each query the keys after it (query i sees keys 0..i), as
/// generate_square_subsequent_mask(); it cannot be combined with \p attn_mask.
/// \p dropout_p drops weights (see dropout()) with generator \p gen.
///
/// The weights are computed as one fused operation, a `[L, S]` matrix at a time, whenever query
/// and key have the same leading dimensions and the mask needs no gradient; it does the
/// arithmetic of the formula above in the same order, and a test requires the same bits.
/// With \p is_causal it leaves work out without changing a bit: the scores the causal
/// structure hides are not computed (when query and key are finite, so that every hidden score
/// is -inf). A causal float mask passed as \p attn_mask gives the same numbers, computed in
/// full. The products `weights @ value` and those of the gradients leave out the terms whose
/// weight is exactly zero (the kernels' tests compare with the products that add every term).
///
/// \code
/// auto [out, w] = scaled_dot_product_attention(q, k, v);   // [B, L, E] x3 -> [B, L, E], [B, L, L]
/// \endcode
/// \throws ShapeError when E or S disagree, an operand has fewer than 2 dimensions, or the
///   mask does not broadcast; ValueError for an Int64 mask or a mask together with is_causal.
AttentionOutput scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const Tensor& attn_mask = Tensor(), double dropout_p = 0.0,
                                             bool is_causal = false, Generator& gen = default_generator());

/// \brief The float causal mask `[n, n]`: 0 on and below the diagonal, `-inf` above, so that
/// position i attends to positions 0..i only (`torch.nn.Transformer.generate_square_subsequent_mask`).
/// \throws ValueError for negative n.
Tensor generate_square_subsequent_mask(std::int64_t n);

}  // namespace litgrad
