#pragma once
// Attention's weights as one operation. Only the library's own .cpp files include this.

#include "litgrad/tensor.hpp"

namespace litgrad::detail {

/// \brief `softmax(matmul(query / sqrt(E), transpose(key, -2, -1)) + mask, -1)`, fused.
///
/// Shapes: query `[..., L, E]`, key `[..., S, E]` with the same leading dimensions; `mask`
/// undefined or a Float64 tensor that broadcasts to `[..., L, S]` and needs no gradient.
/// Returns the weights `[..., L, S]`, recorded as one operation whose backward gives the
/// gradients of query and key.
///
/// The composition above makes five tensors the size of the weights (the scores, the masked
/// scores, the weights and, backward, two gradients), and walks each of them in full before
/// the next step starts; at long lengths those walks, not the arithmetic, take the time. This
/// computes one `[L, S]` matrix at a time, start to finish, while it is in cache, and keeps
/// only the weights. It does the same arithmetic in the same order as the composition, so the
/// two agree bit for bit (tests/test_attention_weights.cpp checks it; only a zero's sign may
/// differ in a gradient). Where the mask is -inf from some column to the end of a row (causal),
/// the scores there are taken as -inf without computing them, when the products are sure to be
/// finite numbers (which a NaN, an inf or a huge value in query or key would prevent).
Tensor attention_weights(const Tensor& query, const Tensor& key, const Tensor& mask);

/// Whether attention_weights() takes these operands: equal leading dimensions of query and
/// key, and a mask that is undefined or Float64 without gradient. Shapes otherwise valid.
bool attention_weights_fusable(const Tensor& query, const Tensor& key, const Tensor& mask);

}  // namespace litgrad::detail
