#pragma once
// The benchmark's workloads, each written once for litgrad and once for libtorch, as alike as
// the two APIs allow: same model, same sizes, double precision, one thread.

#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "flag_step.hpp"

namespace bench {

// Workloads 2 and 3: MultiheadAttention forward and backward, self-attention with the causal
// float mask, sequence first [L, N, E]; the loss is sum(output * R) for a fixed random R.
struct LitgradAttention {
  litgrad::Generator gen{2};
  litgrad::nn::MultiheadAttention mha;
  litgrad::Tensor x, r, mask;
  LitgradAttention(std::int64_t L, std::int64_t N, std::int64_t E, std::int64_t H)
      : mha(E, H, {}, gen),
        x(litgrad::randn({L, N, E}, gen).requires_grad_()),
        r(litgrad::randn({L, N, E}, gen)),
        mask(litgrad::generate_square_subsequent_mask(L)) {}
  void step() {
    using namespace litgrad;
    mha.zero_grad();
    x.zero_grad();
    sum(mha(x, x, x, {}, false, mask, true, /*is_causal=*/true).output * r).backward();
  }
};

// Multiply-adds counted twice (as FLOPs) in one forward and backward of the layer: the four
// projections 2·L·N·E² each and the two attention products 2·N·L²·E each, forward; the
// backward computes two products for each forward one, so the total is three times forward.
inline double attention_flops(double L, double N, double E) {
  const double forward = 4 * 2 * L * N * E * E + 2 * 2 * N * L * L * E;
  return 3 * forward;
}

// Workload 6: a pre-norm Transformer block forward and backward, causal, batch first
// [N, L, E]; the loss is sum(output * R) for a fixed random R.
struct LitgradBlock {
  litgrad::Generator gen{3};
  litgrad::nn::TransformerEncoderLayer block;
  litgrad::Tensor x, r, mask;
  static litgrad::nn::TransformerEncoderLayerOptions options(std::int64_t F) {
    litgrad::nn::TransformerEncoderLayerOptions o;
    o.dim_feedforward = F, o.dropout = 0, o.activation = "gelu", o.norm_first = true, o.batch_first = true;
    return o;
  }
  LitgradBlock(std::int64_t L, std::int64_t N, std::int64_t E, std::int64_t H, std::int64_t F)
      : block(E, H, options(F), gen),
        x(litgrad::randn({N, L, E}, gen).requires_grad_()),
        r(litgrad::randn({N, L, E}, gen)),
        mask(litgrad::generate_square_subsequent_mask(L)) {}
  void step() {
    using namespace litgrad;
    block.zero_grad();
    x.zero_grad();
    sum(block(x, mask, {}, /*is_causal=*/true) * r).backward();
  }
};

}  // namespace bench
