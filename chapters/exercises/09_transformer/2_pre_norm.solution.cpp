// Exercise 9.2 · Your pre-norm block, trained: the reference solution.
#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

Tensor pre_norm_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                      const Tensor& mask) {
  // The first residual step: attention on the normalised stream, added to the stream.
  const Tensor n1 = layer.norm1(x);
  const Tensor h = x + multi_head_attention(n1, layer.self_attn, mask);  // [B, L, E]
  // The second: the feed-forward network, z Wᵀ + b twice with GELU between.
  const auto linear = [](const Tensor& z, const nn::Linear& l) {
    return matmul(z, transpose(l.weight, 0, 1)) + l.bias;
  };
  const Tensor hidden = gelu(linear(layer.norm2(h), layer.linear1));  // [B, L, F]
  return h + linear(hidden, layer.linear2);                           // [B, L, E]
}
