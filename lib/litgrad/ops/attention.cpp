#include "litgrad/ops/attention.hpp"

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/kernels/broadcast.hpp"
#include "litgrad/ops/detail/attention_weights.hpp"
#include "litgrad/ops/detail/matmul_transposed.hpp"
#include "litgrad/ops/dropout.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/matmul.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/reshaping.hpp"
#include "litgrad/ops/softmax.hpp"

namespace litgrad {

namespace {
// [L, S]: 0 where key j <= query i, -inf after (query i sees keys 0..i).
Tensor causal_mask(std::int64_t L, std::int64_t S) {
  const Tensor later = arange(S) - reshape(arange(L), {L, 1}) > 0.0;  // j - i > 0: [L, S]
  return masked_fill(zeros({L, S}), later, -INFINITY);
}
}  // namespace

Tensor generate_square_subsequent_mask(std::int64_t n) {
  if (n < 0) throw ValueError("generate_square_subsequent_mask: size must be non-negative, got ", n);
  return causal_mask(n, n);
}

// query: [..., L, E]; key: [..., S, E]; value: [..., S, Ev]; mask: broadcasts to [..., L, S].
// output: [..., L, Ev]; weights: [..., L, S].
AttentionOutput scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const Tensor& attn_mask, double dropout_p, bool is_causal,
                                             Generator& gen) {
  const char* op = "scaled_dot_product_attention";
  if (query.dim() < 2 || key.dim() < 2 || value.dim() < 2)
    throw ShapeError(op, ": query, key and value need at least 2 dimensions, got ", query.shape(), ", ", key.shape(),
                     ", ", value.shape());
  if (query.size(-1) != key.size(-1))
    throw ShapeError(op, ": query of shape ", query.shape(), " and key of shape ", key.shape(),
                     " differ in their last (embedding) dimension");
  if (key.size(-2) != value.size(-2))
    throw ShapeError(op, ": key of shape ", key.shape(), " and value of shape ", value.shape(), " differ in length");
  if (is_causal && attn_mask.defined()) throw ValueError(op, ": pass either attn_mask or is_causal, not both");
  if (attn_mask.defined() && attn_mask.dtype() == DType::Int64)
    throw ValueError(op, ": attn_mask must be Bool or Float64, got Int64");

  // The mask as numbers to add: Bool true ("may attend") -> 0, false -> -inf. A causal
  // attention stays a structure, which the weights' kernels know how to use.
  Tensor additive;
  if (attn_mask.defined())
    additive = attn_mask.dtype() == DType::Bool
                   ? masked_fill(zeros(attn_mask.shape()), logical_not(attn_mask), -INFINITY)
                   : attn_mask;
  // The scores are [..., L, S], the leading dimensions those of query and key broadcast.
  Shape scores_shape;
  try {
    scores_shape = broadcast_shapes(op, kernels::leading_dims(query.shape(), 2), kernels::leading_dims(key.shape(), 2));
  } catch (const ShapeError&) {
    throw ShapeError(op, ": the leading dimensions of query ", query.shape(), " and key ", key.shape(),
                     " do not broadcast");
  }
  scores_shape.push_back(query.size(-2));
  scores_shape.push_back(key.size(-2));
  if (additive.defined()) {  // (is_causal's mask fits by construction)
    bool fits;
    try {
      fits = broadcast_shapes(op, scores_shape, additive.shape()) == scores_shape;
    } catch (const ShapeError&) {
      fits = false;
    }
    if (!fits)
      throw ShapeError(op, ": attn_mask of shape ", additive.shape(), " does not broadcast to the scores' shape ",
                       scores_shape);
  }
  return detail::attention(query, key, value, additive, is_causal, dropout_p, gen);
}

namespace detail {

// query: [..., L, E]; key: [..., S, E]; value: [..., S, Ev]; mask: undefined or Float64, checked
// to broadcast to [..., L, S]. output: [..., L, Ev]; weights: [..., L, S].
AttentionOutput attention(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& mask, bool causal,
                          double dropout_p, Generator& gen) {
  // softmax(query / sqrt(E) keyᵀ + mask): as one operation where it applies (the same numbers,
  // with a fraction of the memory traffic; see kernels/attention.hpp), otherwise as it reads.
  Tensor attention;
  if (attention_weights_fusable(query, key, mask)) {
    attention = attention_weights(query, key, mask, causal);
  } else {  // keyᵀ is read in place, not copied
    const Tensor scores = matmul_transposed(query / std::sqrt(static_cast<double>(query.size(-1))), key);
    Tensor masked = mask.defined() ? scores + mask : scores;
    if (causal) masked = masked + causal_mask(query.size(-2), key.size(-2));
    attention = softmax(masked, -1);
  }
  const Tensor weights = dropout(attention, dropout_p, dropout_p > 0, gen);
  return {matmul(weights, value), weights};
}

bool is_causal_mask(const Tensor& additive_mask) {
  const std::int64_t L = additive_mask.size(-2), S = additive_mask.size(-1);
  return sum(ne(additive_mask, causal_mask(L, S))).item() == 0.0;
}

}  // namespace detail

}  // namespace litgrad
