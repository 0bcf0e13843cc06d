// Exercise 8.2 · Several heads, and the layer torch calls MultiheadAttention. This is
// your file: write multi_head_attention below, calling your attention_head of exercise
// 8.1, then run `tools/exercise check 08.2`.
#include <vector>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

// x: [L, E] or [B, L, E]; layer: its weights as torch keeps them (in_proj_weight
// [3E, E], in_proj_bias [3E], out_proj.weight [E, E], out_proj.bias [E]), and
// layer.num_heads heads; mask: [L, L] to add to the scores, or undefined.
// Returns [L, E] or [B, L, E].
Tensor multi_head_attention(const Tensor& x, const nn::MultiheadAttention& layer,
                            const Tensor& mask) {
  (void)x, (void)layer, (void)mask;
  return Tensor();  // your layer here
}
