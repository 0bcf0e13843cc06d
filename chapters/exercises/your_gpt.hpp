// Your own GPT: the pieces you write in the exercises from chapter 8 on, each used by
// the next. Each exercise defines one of the functions below in its file; an exercise
// whose statement says "Uses your answer to exercise NN.K" calls that earlier piece:
// yours once it passes (`tools/exercise check NN.K`), and until then the reference
// solution, so that every exercise can be taken alone
// (chapters/exercises/CMakeLists.txt links them).
//
// The library's modules only hold the weights here: every computation is yours, and
// each exercise's tests compare it with the library's own.
#pragma once

#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

// One head's three projections, as chapter 8's section 3 writes them: a token x, a row
// of E numbers, becomes the query x W_q + b_q, the key x W_k + b_k and the value
// x W_v + b_v, each of d numbers.
struct HeadProjections {
  litgrad::Tensor W_q, W_k, W_v;  // [E, d]
  litgrad::Tensor b_q, b_k, b_v;  // [d]
};

// Exercise 8.1. One head of self-attention. x: [L, E] or [B, L, E]; mask: [L, L], added
// to the scores before the softmax (0 allows a pair, -inf forbids it), or an undefined
// Tensor for none. Returns [L, d] or [B, L, d].
litgrad::Tensor attention_head(const litgrad::Tensor& x, const HeadProjections& head,
                               const litgrad::Tensor& mask);

// Exercise 8.2. Several heads, with the weights of `layer` (torch's layout). x: [L, E]
// or [B, L, E]; mask as above. Returns what `layer(x, x, x)` gives with that mask:
// [L, E] or [B, L, E].
litgrad::Tensor multi_head_attention(const litgrad::Tensor& x,
                                     const litgrad::nn::MultiheadAttention& layer,
                                     const litgrad::Tensor& mask);

// Exercise 9.2. A pre-norm block with the weights and norms of `layer` (norm_first,
// GELU): x + Attn(LN1(x)), then h + GELU(LN2(h) W1ᵀ + b1) W2ᵀ + b2. x: [B, L, E]; mask
// as above. Returns [B, L, E].
litgrad::Tensor pre_norm_block(const litgrad::nn::TransformerEncoderLayer& layer,
                               const litgrad::Tensor& x, const litgrad::Tensor& mask);

// The weights of chapter 12's GPT, held by the library's modules: the token table,
// which also reads the scores out (tied); the position table, whose rows say how long a
// window may be; the blocks, in order (norm_first, GELU); and the final norm.
struct GPTWeights {
  const litgrad::nn::Embedding& token;     // weight [V, d]
  const litgrad::nn::Embedding& position;  // weight [T, d]: T, the context
  std::vector<const litgrad::nn::TransformerEncoderLayer*> blocks;
  const litgrad::nn::LayerNorm& norm;
};

// Exercise 12.2. One head's cache: the keys and the values of the s tokens it has seen,
// [s, d] each (undefined tensors before the first). decode_step appends the new token's
// key k and value v [d], then returns what its query q [d] gathers from all s + 1: [d].
struct HeadCache {
  litgrad::Tensor keys, values;
};
litgrad::Tensor decode_step(const litgrad::Tensor& q, const litgrad::Tensor& k,
                            const litgrad::Tensor& v, HeadCache& cache);

// Exercise 12.3. Your GPT: ids [N, n] (Int64, n at most T) -> the next token's scores
// at every position, [N, n, V]; and greedy writing: `tokens` followed by `count` more,
// each the most likely next token given (at most) the last T tokens.
litgrad::Tensor gpt_scores(const GPTWeights& gpt, const litgrad::Tensor& ids);
std::vector<std::int64_t> write_greedily(const GPTWeights& gpt,
                                         std::vector<std::int64_t> tokens, int count);

// Exercise 12.4. Your GPT's caches: blocks[l][h] is head h's cache in block l (empty
// before the first token; yours to size). cached_scores feeds one token, at the next
// position, through every block with its caches and returns the next token's scores, [V];
// write_with_cache writes as write_greedily does, feeding each token through once.
struct GPTCache {
  std::vector<std::vector<HeadCache>> blocks;
};
litgrad::Tensor cached_scores(const GPTWeights& gpt, std::int64_t token,
                              GPTCache& cache);
std::vector<std::int64_t> write_with_cache(const GPTWeights& gpt,
                                           std::vector<std::int64_t> tokens, int count);
