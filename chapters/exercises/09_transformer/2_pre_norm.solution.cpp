// Exercise 9.2 · The pre-norm block: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor pre_norm_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                      const Tensor& mask) {
  const Tensor n1 = layer.norm1(x);
  const Tensor h = x + layer.self_attn(n1, n1, n1, Tensor(), false, mask).output;
  return h + layer.linear2(gelu(layer.linear1(layer.norm2(h))));
}
