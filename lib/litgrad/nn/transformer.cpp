// TransformerEncoderLayer, as torch 1.13's TransformerEncoderLayer.forward computes it on its
// ordinary path (not the fused fast path it may take in evaluation, which rounds differently).

#include "litgrad/nn/transformer.hpp"

#include "litgrad/base/error.hpp"
#include "litgrad/ops/elementwise.hpp"

namespace litgrad::nn {

namespace {
MultiheadAttentionOptions attention_options(const TransformerEncoderLayerOptions& o) {
  if (o.activation != "relu" && o.activation != "gelu")
    throw ValueError("TransformerEncoderLayer: activation must be \"relu\" or \"gelu\", got \"", o.activation, "\"");
  if (o.dim_feedforward < 1)
    throw ValueError("TransformerEncoderLayer: dim_feedforward must be at least 1, got ", o.dim_feedforward);
  MultiheadAttentionOptions a;
  a.dropout = o.dropout;
  a.batch_first = o.batch_first;
  return a;
}
}  // namespace

TransformerEncoderLayer::TransformerEncoderLayer(std::int64_t d_model, std::int64_t nhead,
                                                 TransformerEncoderLayerOptions o, Generator& gen)
    : Module("TransformerEncoderLayer"),
      options(o),
      self_attn(d_model, nhead, attention_options(o), gen),
      linear1(d_model, o.dim_feedforward, true, gen),
      dropout(o.dropout, gen),
      linear2(o.dim_feedforward, d_model, true, gen),
      norm1(d_model, o.layer_norm_eps),
      norm2(d_model, o.layer_norm_eps),
      dropout1(o.dropout, gen),
      dropout2(o.dropout, gen),
      gen_(&gen) {
  register_module("self_attn", self_attn);
  register_module("linear1", linear1);
  register_module("dropout", dropout);
  register_module("linear2", linear2);
  register_module("norm1", norm1);
  register_module("norm2", norm2);
  register_module("dropout1", dropout1);
  register_module("dropout2", dropout2);
}

Tensor TransformerEncoderLayer::self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& padding,
                                                     bool is_causal) const {
  return dropout1(self_attn(x, x, x, padding, /*need_weights=*/false, mask, true, is_causal).output);
}

Tensor TransformerEncoderLayer::feed_forward_block(const Tensor& x) const {
  const Tensor hidden = linear1(x);
  const Tensor activated = options.activation == "gelu" ? gelu(hidden) : relu(hidden);
  return dropout2(linear2(dropout(activated)));
}

// The block's two sub-blocks around `attend`, the self-attention part (which forward() and
// forward_cached() give): x [L, N, E] ([N, L, E] with batch_first, [L, E] unbatched) in and out.
Tensor TransformerEncoderLayer::block(const Tensor& src, const std::function<Tensor(const Tensor&)>& attend) const {
  Tensor x = src;
  if (options.norm_first) {
    x = x + attend(norm1(x));
    x = x + feed_forward_block(norm2(x));
  } else {
    x = norm1(x + attend(x));
    x = norm2(x + feed_forward_block(x));
  }
  return x;
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask,
                                        bool is_causal) const {
  if (src.dim() != 2 && src.dim() != 3)
    throw ShapeError("TransformerEncoderLayer: src of shape ", src.shape(),
                     " should be [L, N, E], [N, L, E] with batch_first, or [L, E] unbatched");
  return block(src,
               [&](const Tensor& x) { return self_attention_block(x, src_mask, src_key_padding_mask, is_causal); });
}

Tensor TransformerEncoderLayer::forward_cached(const Tensor& src, KVCache& cache) const {
  const auto in_scope = scope();  // it has no call operator to open it
  // forward_cached asks for evaluation, where dropout1 is off
  return block(src, [&](const Tensor& x) { return dropout1(self_attn.forward_cached(x, cache)); });
}

// ---------------------------------------------------------------------------------------------

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& encoder_layer, std::int64_t num_layers,
                                       std::unique_ptr<LayerNorm> final_norm)
    : Module("TransformerEncoder"), norm(final_norm.get()) {
  if (num_layers < 1) throw ValueError("TransformerEncoder: num_layers must be at least 1, got ", num_layers);
  const std::int64_t d_model = encoder_layer.self_attn.embed_dim, nhead = encoder_layer.self_attn.num_heads;
  const StateDict weights = encoder_layer.state_dict();
  for (std::int64_t i = 0; i < num_layers; ++i) {
    // A copy, as torch's deepcopy: the same options, generator and weights.
    TransformerEncoderLayer& copy =
        layers.push_back(TransformerEncoderLayer(d_model, nhead, encoder_layer.options, encoder_layer.generator()));
    copy.load_state_dict(weights);
    copy.train(encoder_layer.is_training());
  }
  register_module("layers", layers);
  if (final_norm) add_module("norm", std::move(final_norm));
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask, const Tensor& padding, bool is_causal) const {
  Tensor x = src;
  for (std::size_t i = 0; i < layers.size(); ++i) x = layer(i)(x, mask, padding, is_causal);
  return norm ? (*norm)(x) : x;
}

Tensor TransformerEncoder::forward_cached(const Tensor& src, std::vector<KVCache>& caches) const {
  const auto in_scope = scope();  // it has no call operator to open it
  if (caches.empty()) caches.resize(layers.size());
  if (caches.size() != layers.size())
    throw ValueError("TransformerEncoder.forward_cached: ", caches.size(), " caches for ", layers.size(),
                     " layers; pass one per layer, or none to start");
  Tensor x = src;
  for (std::size_t i = 0; i < layers.size(); ++i) x = layer(i).forward_cached(x, caches[i]);
  return norm ? (*norm)(x) : x;
}

}  // namespace litgrad::nn
