#pragma once
// Attention's weights as one operation, and attention as the library's layers call it. Only
// the library's own .cpp files include this.

#include "litgrad/core/tensor.hpp"
#include "litgrad/ops/attention.hpp"

namespace litgrad::detail {

/// \brief `softmax(matmul(query / sqrt(E), transpose(key, -2, -1)) + mask, -1)`, fused, with keys
/// after each query's position hidden when \p causal.
///
/// Shapes: query `[..., L, E]`, key `[..., S, E]` with the same leading dimensions; `mask`
/// undefined or a Float64 tensor that broadcasts to `[..., L, S]` and needs no gradient.
/// Returns the weights `[..., L, S]`, recorded as one operation whose backward gives the
/// gradients of query and key. The arithmetic is the composition's, step for step
/// (kernels/attention.hpp), so the two agree bit for bit (tests/test_attention_weights.cpp
/// checks it; only a zero's sign may differ in a gradient); the fast kernels do it with a
/// fraction of the memory traffic, and skip the scores that \p causal hides.
Tensor attention_weights(const Tensor& query, const Tensor& key, const Tensor& mask, bool causal = false);

/// scaled_dot_product_attention without its checks, for the library's own layers: \p mask is
/// undefined or Float64 and broadcasts to `[..., L, S]`; \p causal hides the keys after each
/// query as a structure, which the fused weights use to skip work. \p mask and \p causal may
/// be combined (a causal self-attention with a padding mask, say).
AttentionOutput attention(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& mask, bool causal,
                          double dropout_p, Generator& gen);

/// Whether \p additive_mask (`[..., L, S]`, Float64) is the causal mask in every matrix: 0 where
/// key j <= query i, -inf after.
bool is_causal_mask(const Tensor& additive_mask);

/// Whether attention_weights() takes these operands: equal leading dimensions of query and
/// key, and a mask that is undefined or Float64 without gradient. Shapes otherwise valid.
bool attention_weights_fusable(const Tensor& query, const Tensor& key, const Tensor& mask);

}  // namespace litgrad::detail
