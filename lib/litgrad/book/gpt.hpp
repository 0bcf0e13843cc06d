#pragma once
/// \file book/gpt.hpp
/// \brief Chapter 12's GPT at any size: the model of the book's long run (book/payoff.hpp).
///
/// The same model chapter 12 builds on its page, with its sizes as a GPTConfig (nanoGPT's
/// names): a token and a position embedding, `n_layer` pre-norm blocks
/// (nn::TransformerEncoderLayer with GELU, feed-forward width 4·n_embd, no dropout) under the
/// causal mask, a final layer norm, and a read-out tied to the token embedding. It starts as
/// GPT-2 does: matrices normal with standard deviation 0.02, those that write into the residual
/// stream (each block's `out_proj` and `linear2`) 0.02/√(2·n_layer), biases 0, norms 1 and 0.
/// Built with chapter 12's sizes and generator, it has the chapter's parameters bit for bit.

#include <cstdint>
#include <vector>

#include "litgrad/core/random.hpp"
#include "litgrad/core/tensor.hpp"
#include "litgrad/nn/container.hpp"
#include "litgrad/nn/embedding.hpp"
#include "litgrad/nn/layer_norm.hpp"
#include "litgrad/nn/module.hpp"
#include "litgrad/nn/multihead_attention.hpp"

namespace litgrad::book {

/// \brief A GPT's sizes, with nanoGPT's names; the defaults are chapter 12's.
struct GPTConfig {
  std::int64_t vocab_size = 1024;  ///< V, the tokens it reads and scores
  std::int64_t block_size = 32;    ///< T, the longest context: the position embedding's rows
  std::int64_t n_layer = 2;        ///< L, the blocks
  std::int64_t n_head = 4;         ///< the heads of each block's attention; divides n_embd
  std::int64_t n_embd = 64;        ///< d, the width of the residual stream
};

/// \brief The parameters a GPT of \p config has: V·d + T·d + L(12d² + 13d) + 2d.
std::int64_t gpt_parameter_count(const GPTConfig& config);

/// \brief Token ids [N, n] → scores for the next token [N, n, V], for n ≤ block_size.
struct GPT : nn::Module {
  GPTConfig config;        ///< its sizes
  nn::Embedding token;     ///< [V, d]: each token's vector, and the tied read-out's matrix
  nn::Embedding position;  ///< [T, d]: each position's vector
  nn::ModuleList blocks;   ///< n_layer nn::TransformerEncoderLayer, pre-norm
  nn::LayerNorm norm;      ///< the final layer norm, before the read-out

  /// \brief A GPT of \p config started as GPT-2 is (the file says how), drawing from \p gen.
  /// \throws ValueError for a size below 1, or n_head not dividing n_embd.
  GPT(const GPTConfig& config, Generator& gen);

  /// \brief The tied read-out: the final layer norm of \p x [N, n, d], times the token
  /// embedding transposed: [N, n, V].
  Tensor readout(const Tensor& x) const;
  /// \brief Scores [N, n, V] for token ids \p ids [N, n] (Int64).
  /// \throws ShapeError unless \p ids is 2-D with 1 ≤ n ≤ block_size; IndexError for an id
  ///   outside [0, V) (from the embedding).
  Tensor forward(const Tensor& ids) const;
  Tensor operator()(const Tensor& ids) const { return forward(ids); }  ///< \brief forward()
  /// \brief Scores [N, n, V] for the ids [N, n] that follow the tokens \p caches have seen
  /// (one nn::KVCache a block; an empty vector is given one empty cache a block), exactly the
  /// bits forward() gives those positions on the whole sequence. Call eval() first.
  /// \throws ShapeError when the caches and \p ids together pass block_size.
  Tensor forward_cached(const Tensor& ids, std::vector<nn::KVCache>& caches) const;
};

}  // namespace litgrad::book
