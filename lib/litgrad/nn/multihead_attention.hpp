#pragma once
/// \file nn/multihead_attention.hpp
/// \brief `nn::MultiheadAttention`, following the Python API of `torch.nn.MultiheadAttention` (1.13).

#include <cstdint>

#include "litgrad/core/random.hpp"
#include "litgrad/nn/linear.hpp"
#include "litgrad/nn/module.hpp"
#include "litgrad/ops/attention.hpp"

namespace litgrad::nn {

/// \brief The options of MultiheadAttention besides embed_dim and num_heads; defaults as torch.
struct MultiheadAttentionOptions {
  double dropout = 0.0;        ///< dropout on the attention weights, in training mode only
  bool bias = true;            ///< biases in the input and output projections
  bool add_bias_kv = false;    ///< append a learned key and value (bias_k, bias_v) to every sequence
  bool add_zero_attn = false;  ///< append a zero key and value after the projections
  std::int64_t kdim = 0;       ///< features of key; 0 means embed_dim
  std::int64_t vdim = 0;       ///< features of value; 0 means embed_dim
  bool batch_first = false;    ///< inputs and output are `[N, L, E]` instead of torch's default `[L, N, E]`
};

/// \brief The keys and values a self-attention layer has computed for the tokens it has seen:
/// a KV cache. A decoder that writes one token at a time keeps one per layer, so that each new
/// token costs the work of one token (its projections, and one row of scores over the tokens
/// before it) instead of the whole sequence's again. Start with an empty one; see
/// MultiheadAttention::forward_cached().
struct KVCache {
  Tensor keys;    ///< `[N*H, S, E/H]` after S tokens (the heads of sequence b at b*H to b*H+H-1)
  Tensor values;  ///< `[N*H, S, E/H]`
  /// \brief S, the tokens seen (0 for an empty cache).
  std::int64_t size() const { return keys.defined() ? keys.size(1) : 0; }
};

/// \brief Attention with learned input and output projections and several heads side by side,
/// with the arithmetic, shapes, masks, parameter names and initialisation of
/// `torch.nn.MultiheadAttention` (Python API, torch 1.13).
///
/// **Shapes** (L target length, S source length, N batch, E embed_dim, H num_heads):
/// query `[L, N, E]`, key `[S, N, kdim]`, value `[S, N, vdim]` by default (sequence first, as
/// torch); `[N, L, E]` etc. with `batch_first`; or unbatched `[L, E]`, `[S, kdim]`, `[S, vdim]`.
/// The output has the query's layout; the weights are `[N, L, S]` averaged over heads, or
/// `[N, H, L, S]` per head (`[L, S]` or `[H, L, S]` unbatched).
///
/// **Masks**: `attn_mask` `[L, S]` or `[N*H, L, S]` (`[H, L, S]` unbatched), and
/// `key_padding_mask` `[N, S]` (`[S]` unbatched). A Bool mask's true means "may not attend"
/// (the score becomes `-inf`); a Float64 mask is added to the scores. The 3-D mask's first
/// index is `b*H + h` for batch element b and head h. A query row whose every key is masked
/// gets NaN weights and output, as torch 1.13; to avoid it, leave every query at least one key
/// (a causal mask always does: each position sees itself).
///
/// **Arithmetic**: q, k, v are projected with the three `[E, ·]` blocks of `in_proj_weight`
/// (packed in the order q, k, v; separate `q_proj_weight`, `k_proj_weight`, `v_proj_weight` when
/// kdim or vdim differs from E) and `in_proj_bias`; split into H heads of `E/H` features; each
/// head computes `softmax(q kᵀ / sqrt(E/H) + mask) v` (the query scaled first); the heads are
/// concatenated and projected by `out_proj`.
///
/// **Parameters**, in torch's order and names: `in_proj_weight` `[3E, E]` (or the three
/// separate ones), `in_proj_bias` `[3E]`, `bias_k` and `bias_v` `[1, 1, E]`, `out_proj.weight`
/// `[E, E]`, `out_proj.bias` `[E]`. Initialised as torch: Xavier-uniform input projections,
/// zero biases, Xavier-normal bias_k and bias_v, out_proj's weight as a default Linear's.
///
/// **Where libtorch's C++ API differs** (1.13): it has no `batch_first` and no unbatched input,
/// requires kdim == vdim, rejects 3-D masks, and adds a Bool `attn_mask` as +1.0 instead of
/// masking (pytorch/pytorch#80494). litgrad follows the documented Python behaviour in all of
/// these, and its tests compare with Python torch where libtorch is wrong.
///
/// \code
/// nn::MultiheadAttention mha(8, 2);
/// Tensor x = randn({5, 3, 8});                                     // [L, N, E]
/// auto [out, w] = mha(x, x, x, {}, true, generate_square_subsequent_mask(5));
/// // out: [5, 3, 8]; w: [3, 5, 5], zero above the diagonal
/// \endcode
class MultiheadAttention : public Module {
 public:
  /// \brief A layer of \p num_heads heads over \p embed_dim features. The generator draws the
  /// initial weights and, in training with dropout, the dropout masks: it must outlive the layer.
  /// \throws ValueError when num_heads does not divide embed_dim, a size is below 1, or the
  ///   dropout probability is outside [0, 1).
  MultiheadAttention(std::int64_t embed_dim, std::int64_t num_heads, MultiheadAttentionOptions options = {},
                     Generator& gen = default_generator());

  /// \brief Attends from \p query to \p key and \p value; see the class description for shapes.
  /// \param query `[L, N, E]` (`[N, L, E]` with batch_first, `[L, E]` unbatched): what attends.
  /// \param key `[S, N, kdim]` (likewise): what the queries are compared with.
  /// \param value `[S, N, vdim]` (likewise): what is averaged.
  /// \param key_padding_mask `[N, S]`: true (or `-inf`) marks keys to ignore, e.g. padding.
  /// \param need_weights also return the attention weights (otherwise `weights` is undefined).
  /// \param attn_mask `[L, S]` or `[N*H, L, S]`: true (or `-inf`) forbids a query-key pair.
  /// \param average_attn_weights average the weights over heads (`[N, L, S]`) or not (`[N, H, L, S]`).
  /// \param is_causal a hint, as torch 2's, that \p attn_mask is the causal mask
  ///   (generate_square_subsequent_mask()): the layer then treats causality as a structure and
  ///   skips the scores it hides, with the same results. Unlike torch, which trusts the hint,
  ///   litgrad checks it and throws ValueError when attn_mask is missing or is not causal.
  /// \throws ShapeError naming the expected and actual shapes when any input or mask does not
  ///   fit; ValueError for a mask that is neither Bool nor Float64, or a wrong is_causal hint.
  AttentionOutput forward(const Tensor& query, const Tensor& key, const Tensor& value,
                          const Tensor& key_padding_mask = Tensor(), bool need_weights = true,
                          const Tensor& attn_mask = Tensor(), bool average_attn_weights = true,
                          bool is_causal = false) const;
  /// \brief forward().
  AttentionOutput operator()(const Tensor& query, const Tensor& key, const Tensor& value,
                             const Tensor& key_padding_mask = Tensor(), bool need_weights = true,
                             const Tensor& attn_mask = Tensor(), bool average_attn_weights = true,
                             bool is_causal = false) const {
    const auto in_scope = scope();
    return forward(query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal);
  }

  /// \brief Causal self-attention for the tokens \p x that follow the `cache.size()` tokens
  /// already seen: each new token attends to every earlier token and to itself, and the new
  /// tokens' keys and values are appended to \p cache. Feeding a sequence in pieces, one token
  /// at a time or several, gives each new token exactly the bits that
  /// `forward(s, s, s, {}, false, generate_square_subsequent_mask(L), true, true)` gives it on the
  /// whole sequence s so far: every sum in litgrad adds its terms in an order that depends on
  /// nothing but their count, and masked keys add zeros.
  /// \param x `[L, N, E]` (`[N, L, E]` with batch_first, `[L, E]` unbatched): the new tokens.
  /// \param cache the keys and values of the tokens seen so far (empty to start); the new
  ///   tokens' are appended.
  /// \returns the attention's output for the new tokens, shaped as \p x.
  /// \throws ShapeError when x's features are not E or the cache holds another batch or head
  ///   size; ValueError for a layer with kdim or vdim != E, add_bias_kv or add_zero_attn, or in
  ///   training with dropout (decoding is done in evaluation: call eval()).
  Tensor forward_cached(const Tensor& x, KVCache& cache) const;

  std::string extra_repr() const override;

  const std::int64_t embed_dim;             ///< E: features of query and output
  const std::int64_t num_heads;             ///< H
  const std::int64_t head_dim;              ///< E / H
  const std::int64_t kdim;                  ///< features of key
  const std::int64_t vdim;                  ///< features of value
  const MultiheadAttentionOptions options;  ///< as given, with kdim and vdim resolved

  Tensor in_proj_weight;  ///< `[3E, E]`, rows q then k then v; undefined when kdim or vdim != E
  Tensor q_proj_weight;   ///< `[E, E]`, only when kdim or vdim != E
  Tensor k_proj_weight;   ///< `[E, kdim]`, only when kdim or vdim != E
  Tensor v_proj_weight;   ///< `[E, vdim]`, only when kdim or vdim != E
  Tensor in_proj_bias;    ///< `[3E]`, undefined without bias
  Tensor bias_k;          ///< `[1, 1, E]`, only with add_bias_kv
  Tensor bias_v;          ///< `[1, 1, E]`, only with add_bias_kv
  Linear out_proj;        ///< E to E

 private:
  Tensor merge_heads(const Tensor& heads, std::int64_t L, std::int64_t N) const;
  Generator* gen_;  // for dropout
};

}  // namespace litgrad::nn
