// Exercise 9.2 · The pre-norm block. This is your file: write pre_norm_block below,
// then run `tools/exercise check 09.2`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// x + Attn(LN1(x)), then x + W2 GELU(W1 LN2(x) + b1) + b2.
Tensor pre_norm_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                      const Tensor& mask) {
  // The original Transformer's post-norm order: normalise after adding, not before.
  const Tensor h =
      layer.norm1(x + layer.self_attn(x, x, x, Tensor(), false, mask).output);
  return layer.norm2(h + layer.linear2(gelu(layer.linear1(h))));
}
