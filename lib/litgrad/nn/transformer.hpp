#pragma once
/// \file nn/transformer.hpp
/// \brief `nn::TransformerEncoderLayer`: self-attention and a feed-forward network, each with a
/// residual connection and layer normalisation, as `torch.nn.TransformerEncoderLayer`; and
/// `nn::TransformerEncoder`, a stack of such layers, as `torch.nn.TransformerEncoder`.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "litgrad/nn/activation.hpp"
#include "litgrad/nn/container.hpp"
#include "litgrad/nn/layer_norm.hpp"
#include "litgrad/nn/linear.hpp"
#include "litgrad/nn/module.hpp"
#include "litgrad/nn/multihead_attention.hpp"

namespace litgrad::nn {

/// \brief The options of TransformerEncoderLayer besides d_model and nhead; defaults as torch.
struct TransformerEncoderLayerOptions {
  std::int64_t dim_feedforward = 2048;  ///< the hidden width of the feed-forward network
  double dropout = 0.1;                 ///< dropout after attention, in the network and after it
  std::string activation = "relu";      ///< `"relu"` or `"gelu"`, between the two linear layers
  double layer_norm_eps = 1e-5;         ///< eps of both layer norms
  bool batch_first = false;             ///< `[N, L, E]` instead of torch's default `[L, N, E]`
  bool norm_first = false;              ///< normalise before each part (pre-norm) instead of after
};

/// \brief One block of a Transformer encoder, with the arithmetic, shapes, masks and parameter
/// names of `torch.nn.TransformerEncoderLayer` (Python API, torch 1.13).
///
/// With `norm_first` (pre-norm, as most current models):
/// `x = x + sa(norm1(x)); x = x + ff(norm2(x))`; without it (post-norm, the original
/// Transformer's): `x = norm1(x + sa(x)); x = norm2(x + ff(x))`. Here `sa` is self-attention
/// (nn::MultiheadAttention with the given masks, then dropout) and `ff` is
/// `linear2(dropout(activation(linear1(x))))` followed by dropout.
///
/// **Shapes**: `src` `[L, N, E]` (`[N, L, E]` with batch_first, `[L, E]` unbatched), and the
/// output the same. `src_mask` `[L, L]` or `[N*H, L, L]`, `src_key_padding_mask` `[N, L]`, with
/// MultiheadAttention's meaning (a Bool true forbids, a float is added).
///
/// **Parameters**, in torch's order and names: `self_attn.in_proj_weight`,
/// `self_attn.in_proj_bias`, `self_attn.out_proj.weight`, `self_attn.out_proj.bias`,
/// `linear1.weight` `[F, E]`, `linear1.bias`, `linear2.weight` `[E, F]`, `linear2.bias`,
/// `norm1.weight`, `norm1.bias`, `norm2.weight`, `norm2.bias`.
///
/// \code
/// nn::TransformerEncoderLayerOptions o;
/// o.dim_feedforward = 256, o.dropout = 0, o.norm_first = true, o.batch_first = true;
/// nn::TransformerEncoderLayer block(64, 4, o);
/// Tensor y = block(randn({16, 32, 64}), generate_square_subsequent_mask(32));   // [16, 32, 64]
/// \endcode
class TransformerEncoderLayer : public Module {
 public:
  /// \brief A block over \p d_model features with \p nhead attention heads. \p gen draws the
  /// initial weights and the dropout masks; it must outlive the block.
  /// \throws ValueError when nhead does not divide d_model, a size is below 1, the dropout is
  ///   outside [0, 1) or the activation is neither "relu" nor "gelu".
  TransformerEncoderLayer(std::int64_t d_model, std::int64_t nhead, TransformerEncoderLayerOptions options = {},
                          Generator& gen = default_generator());

  /// \brief The block applied to \p src; see the class description for shapes and masks.
  /// \p is_causal is torch 2's hint that \p src_mask is the causal mask (see
  /// MultiheadAttention::forward(), which checks it).
  Tensor forward(const Tensor& src, const Tensor& src_mask = Tensor(), const Tensor& src_key_padding_mask = Tensor(),
                 bool is_causal = false) const;
  /// \brief forward().
  Tensor operator()(const Tensor& src, const Tensor& src_mask = Tensor(), const Tensor& src_key_padding_mask = Tensor(),
                    bool is_causal = false) const {
    const auto in_scope = scope();
    return forward(src, src_mask, src_key_padding_mask, is_causal);
  }

  /// \brief The block for the tokens \p src that follow those \p cache has seen, under the
  /// causal mask: MultiheadAttention::forward_cached() in place of the self-attention, so that
  /// each new token gets exactly the bits forward() with the causal mask and is_causal gives it
  /// on the whole sequence so far. Shapes as forward()'s. Call eval() first.
  Tensor forward_cached(const Tensor& src, KVCache& cache) const;

  /// \brief The self-attention part, `dropout1(self_attn(x, x, x))`: `[L, N, E]` in and out.
  Tensor self_attention_block(const Tensor& x, const Tensor& src_mask, const Tensor& src_key_padding_mask,
                              bool is_causal = false) const;
  /// \brief The feed-forward part, `dropout2(linear2(dropout(activation(linear1(x)))))`, which
  /// acts on each position alone: `[..., E]` in and out.
  Tensor feed_forward_block(const Tensor& x) const;

  /// \brief The generator the layer was made with, which its dropout draws from.
  Generator& generator() const { return *gen_; }

  TransformerEncoderLayerOptions options;  ///< as given
  MultiheadAttention self_attn;            ///< E to E, nhead heads
  Linear linear1;                          ///< E to dim_feedforward
  Dropout dropout;                         ///< inside the feed-forward network
  Linear linear2;                          ///< dim_feedforward to E
  LayerNorm norm1;                         ///< before (norm_first) or after the attention
  LayerNorm norm2;                         ///< before (norm_first) or after the network
  Dropout dropout1;                        ///< after the attention
  Dropout dropout2;                        ///< after the network

 private:
  Tensor block(const Tensor& src, const std::function<Tensor(const Tensor&)>& attend) const;
  Generator* gen_;
};

/// \brief `num_layers` copies of a TransformerEncoderLayer applied in turn, then an optional
/// layer norm, as `torch.nn.TransformerEncoder`.
///
/// As torch, every layer starts as a copy of \p encoder_layer, with its very weights (torch
/// deep-copies the layer it is given): train them apart, or initialise them again. Parameter
/// names are torch's: `layers.0.self_attn.in_proj_weight`, ..., `norm.weight`, `norm.bias`.
///
/// \code
/// nn::TransformerEncoderLayer layer(64, 4, o);
/// nn::TransformerEncoder encoder(layer, 6, nn::LayerNorm(64));
/// Tensor y = encoder(x, generate_square_subsequent_mask(L), {}, /*is_causal=*/true);
/// \endcode
class TransformerEncoder : public Module {
 public:
  /// \brief \p num_layers copies of \p encoder_layer, and \p norm (if any) after them.
  /// \throws ValueError for num_layers below 1.
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, std::int64_t num_layers,
                     std::unique_ptr<LayerNorm> norm = nullptr);
  /// \brief The same with the norm given as torch's `norm=nn.LayerNorm(d)`: the encoder takes
  /// the module over (reach it as `norm`). A LayerNorm you keep a name for must be moved in,
  /// `std::move(ln)`: torch would share it, and a copy would train apart from it silently.
  /// \throws ValueError for num_layers below 1.
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, std::int64_t num_layers, LayerNorm&& norm)
      : TransformerEncoder(encoder_layer, num_layers, std::make_unique<LayerNorm>(std::move(norm))) {}

  /// \brief Each layer in turn, with the same masks and hint (see TransformerEncoderLayer),
  /// then the norm. Shapes as TransformerEncoderLayer's.
  Tensor forward(const Tensor& src, const Tensor& mask = Tensor(), const Tensor& src_key_padding_mask = Tensor(),
                 bool is_causal = false) const;
  /// \brief forward().
  Tensor operator()(const Tensor& src, const Tensor& mask = Tensor(), const Tensor& src_key_padding_mask = Tensor(),
                    bool is_causal = false) const {
    const auto in_scope = scope();
    return forward(src, mask, src_key_padding_mask, is_causal);
  }

  /// \brief Each layer's TransformerEncoderLayer::forward_cached() in turn, layer i with
  /// `caches[i]` (an empty vector is given one empty cache per layer), then the norm.
  /// \throws ValueError when \p caches is neither empty nor one per layer.
  Tensor forward_cached(const Tensor& src, std::vector<KVCache>& caches) const;

  /// \brief Layer \p i (0 first). \throws IndexError when out of range.
  TransformerEncoderLayer& layer(std::size_t i) const { return layers.at<TransformerEncoderLayer>(i); }

  ModuleList layers;  ///< the layers, named `layers.0`, `layers.1`, ...
  LayerNorm* norm;    ///< the final norm, or null (owned, named `norm`)
};

}  // namespace litgrad::nn
