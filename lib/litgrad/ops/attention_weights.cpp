// detail::attention_weights: softmax(q kᵀ / sqrt(E) + mask) as one operation, forward and
// backward; the loops are the kernels' (kernels/attention.hpp).

#include "litgrad/ops/detail/attention_weights.hpp"

#include <cmath>

#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/matmul.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/reshaping.hpp"

#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/attention.hpp"
#include "litgrad/kernels/broadcast.hpp"
#include "litgrad/ops/registry.hpp"

namespace litgrad::detail {

bool attention_weights_fusable(const Tensor& query, const Tensor& key, const Tensor& mask) {
  return kernels::leading_dims(query.shape(), 2) == kernels::leading_dims(key.shape(), 2) &&
         (!mask.defined() || (mask.dtype() == DType::Float64 && !mask.requires_grad()));
}

// query: [..., L, E], key: [..., S, E], mask: broadcasts to [..., L, S]; result w: [..., L, S].
// w = softmax(query / sqrt(E) keyᵀ + mask, causal) by rows.
// Backward: with ds the softmax's gradient, dq = (ds key) / sqrt(E) and dk = dsᵀ (query / sqrt(E)).
Tensor attention_weights(const Tensor& query, const Tensor& key, const Tensor& mask, bool causal) {
  kernels::AttentionShape shape;
  shape.batch = kernels::leading_dims(query.shape(), 2);
  shape.L = query.size(-2);
  shape.E = query.size(-1);
  shape.S = key.size(-2);
  Shape out = shape.batch;
  out.push_back(shape.L);
  out.push_back(shape.S);
  Tensor w = uninitialized_tensor(out);
  Tensor scaled = uninitialized_tensor(query.shape());  // query / sqrt(E): key's gradient needs it
  const kernels::AttentionMask m = kernels::attention_mask(mask.defined() ? mask.data() : nullptr,
                                                           mask.defined() ? mask.shape() : Shape(), shape.L, shape.S);
  kernels::attention_weights(query.data(), key.data(), m, causal, shape, scaled.data(), w.data());
  const bool need_q = query.requires_grad(), need_k = key.requires_grad();
  return record(
      op::attention_weights, w, {query, key},
      [w, scaled, key, shape, need_q, need_k](const Tensor& g) {
        Tensor gq = need_q ? uninitialized_tensor(scaled.shape()) : Tensor();
        Tensor gk = need_k ? uninitialized_tensor(key.shape()) : Tensor();
        kernels::attention_weights_backward(g.data(), w.data(), scaled.data(), key.data(), shape,
                                            need_q ? gq.data() : nullptr, need_k ? gk.data() : nullptr);
        return std::vector<Tensor>{gq, gk};
      },
      // The same, as operations: ds the softmax's gradient, dq = (ds k) / sqrt(E), dk = dsᵀ q / sqrt(E).
      [root = std::sqrt(static_cast<double>(shape.E))](const Tensor& g, const Tensor& w,
                                                       const std::vector<Tensor>& in) {
        const Tensor &q = in[0], &k = in[1];
        const Tensor ds = w * (g - sum(g * w, {-1}, true));
        return std::vector<Tensor>{q.requires_grad() ? matmul(ds, k) / root : Tensor(),
                                   k.requires_grad() ? matmul(transpose(ds, -2, -1), q / root) : Tensor()};
      });
}

}  // namespace litgrad::detail
