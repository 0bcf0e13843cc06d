// Exercise 8.2 · Several heads, and the layer torch calls MultiheadAttention: the
// reference solution.
#include <vector>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

Tensor multi_head_attention(const Tensor& x, const nn::MultiheadAttention& layer,
                            const Tensor& mask) {
  const std::int64_t E = layer.embed_dim, H = layer.num_heads, d = E / H;
  // Head h's d rows of block b (0 queries, 1 keys, 2 values) of a [3E, ...] tensor.
  const auto rows = [&](const Tensor& t, std::int64_t b, std::int64_t h) {
    return slice(t, 0, b * E + h * d, b * E + (h + 1) * d);
  };
  const auto weight = [&](std::int64_t b,
                          std::int64_t h) {  // stored [d, E]; x W needs [E, d]
    return transpose(rows(layer.in_proj_weight, b, h), 0, 1);
  };
  const auto bias = [&](std::int64_t b, std::int64_t h) {  // [d]
    return rows(layer.in_proj_bias, b, h);
  };
  std::vector<Tensor> heads;
  for (std::int64_t h = 0; h < H; ++h) {
    const HeadProjections p{weight(0, h), weight(1, h), weight(2, h),
                            bias(0, h),   bias(1, h),   bias(2, h)};
    heads.push_back(attention_head(x, p, mask));  // [.., L, d]
  }
  const Tensor joined = cat(heads, -1);  // [.., L, E]: head h at features h·d on
  const Tensor W_o = transpose(layer.out_proj.weight, 0, 1);  // stored as W_oᵀ
  return matmul(joined, W_o) + layer.out_proj.bias;           // [.., L, E]
}
