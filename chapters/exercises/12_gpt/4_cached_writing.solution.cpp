// Exercise 12.4 · Your GPT writes with a cache: the reference solution.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

Tensor cached_scores(const GPTWeights& gpt, std::int64_t token, GPTCache& cache) {
  if (cache.blocks
          .empty())  // the first token: one empty cache for each head of each block
    for (const nn::TransformerEncoderLayer* block : gpt.blocks)
      cache.blocks.emplace_back(block->self_attn.num_heads);
  const Tensor& seen = cache.blocks[0][0].keys;  // [s, d]: s tokens seen so far
  const std::int64_t position = seen.defined() ? seen.size(0) : 0;
  Tensor x = select(gpt.token.weight, 0, token) +
             select(gpt.position.weight, 0, position);  // [E]
  for (std::size_t l = 0; l < gpt.blocks.size(); ++l) {
    const nn::TransformerEncoderLayer& block = *gpt.blocks[l];
    const nn::MultiheadAttention& attention = block.self_attn;
    const std::int64_t E = attention.embed_dim, H = attention.num_heads, d = E / H;
    // in_proj_weight is stored [3E, E]: W x gives the query, key and value, one after
    // the other, [3E].
    const Tensor qkv =
        matmul(attention.in_proj_weight, block.norm1(x)) + attention.in_proj_bias;
    std::vector<Tensor> heads;
    for (std::int64_t h = 0; h < H; ++h) {
      const auto part = [&](std::int64_t b) {  // head h's d numbers of block b (0: q)
        return slice(qkv, 0, b * E + h * d, b * E + (h + 1) * d);
      };
      heads.push_back(decode_step(part(0), part(1), part(2), cache.blocks[l][h]));
    }
    const Tensor joined = cat(heads, 0);  // [E]
    x = x + matmul(attention.out_proj.weight, joined) + attention.out_proj.bias;
    const Tensor hidden =
        gelu(matmul(block.linear1.weight, block.norm2(x)) + block.linear1.bias);  // [F]
    x = x + matmul(block.linear2.weight, hidden) + block.linear2.bias;            // [E]
  }
  return matmul(gpt.token.weight, gpt.norm(x));  // [V]: the tied read-out
}

std::vector<std::int64_t> write_with_cache(const GPTWeights& gpt,
                                           std::vector<std::int64_t> tokens,
                                           int count) {
  NoGradGuard no_grad;                                       // writing learns nothing
  const std::int64_t context = gpt.position.weight.size(0);  // T
  GPTCache cache;
  Tensor scores;  // [V]: after the last token fed
  // A fresh cache filled with the newest n tokens, at positions 0 to n - 1.
  const auto fill = [&](std::int64_t n) {
    cache = GPTCache();
    for (auto token = tokens.end() - n; token != tokens.end(); ++token)
      scores = cached_scores(gpt, *token, cache);
  };
  fill(std::min<std::int64_t>(tokens.size(), context));
  for (int i = 0; i < count; ++i) {
    tokens.push_back(static_cast<std::int64_t>(argmax(scores).item()));
    if (i + 1 == count) break;  // the last token written predicts nothing needed
    if (cache.blocks[0][0].keys.size(0) < context)
      scores = cached_scores(gpt, tokens.back(), cache);
    else  // full: every key holds its position, so the window starts again at 0
      fill(context);
  }
  return tokens;
}
