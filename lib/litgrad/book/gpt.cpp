// book::GPT: chapter 12's GPT with its sizes as a GPTConfig.

#include "litgrad/book/gpt.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "litgrad/base/error.hpp"
#include "litgrad/nn/init.hpp"
#include "litgrad/nn/transformer.hpp"
#include "litgrad/ops/attention.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/matmul.hpp"

namespace litgrad::book {

namespace {

const GPTConfig& checked(const GPTConfig& c) {
  if (c.vocab_size < 1 || c.block_size < 1 || c.n_layer < 1 || c.n_head < 1 || c.n_embd < 1)
    throw ValueError("GPT: every size must be at least 1, got vocab_size ", c.vocab_size, ", block_size ", c.block_size,
                     ", n_layer ", c.n_layer, ", n_head ", c.n_head, ", n_embd ", c.n_embd);
  if (c.n_embd % c.n_head != 0) throw ValueError("GPT: n_head ", c.n_head, " does not divide n_embd ", c.n_embd);
  return c;
}

}  // namespace

std::int64_t gpt_parameter_count(const GPTConfig& c) {
  const std::int64_t d = c.n_embd;
  return c.vocab_size * d + c.block_size * d + c.n_layer * (12 * d * d + 13 * d) + 2 * d;
}

GPT::GPT(const GPTConfig& config_, Generator& gen)
    : Module("GPT"),
      config(checked(config_)),
      token(config.vocab_size, config.n_embd, std::nullopt, gen),
      position(config.block_size, config.n_embd, std::nullopt, gen),
      norm({config.n_embd}) {
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 4 * config.n_embd, o.dropout = 0, o.activation = "gelu";
  o.batch_first = true, o.norm_first = true;
  register_module("token", token), register_module("position", position);
  for (std::int64_t l = 0; l < config.n_layer; ++l)
    blocks.push_back(nn::TransformerEncoderLayer(config.n_embd, config.n_head, o, gen));
  register_module("blocks", blocks), register_module("norm", norm);
  // GPT-2's start, in the order of named_parameters() (chapter 12 draws in the same order).
  const double residual = 0.02 / std::sqrt(2.0 * static_cast<double>(config.n_layer));
  for (auto& [name, p] : named_parameters()) {
    if (p.dim() == 1) {
      if (name.find("norm") == std::string::npos) nn::init::zeros_(p);  // biases
      continue;
    }
    const bool writes_to_stream =
        name.find("out_proj.weight") != std::string::npos || name.find("linear2.weight") != std::string::npos;
    nn::init::normal_(p, 0.0, writes_to_stream ? residual : 0.02, gen);
  }
}

Tensor GPT::readout(const Tensor& x) const { return matmul(norm(x), token.weight.transpose(0, 1)); }

Tensor GPT::forward(const Tensor& ids) const {
  if (ids.dim() != 2 || ids.size(1) < 1 || ids.size(1) > config.block_size)
    throw ShapeError("GPT: ids ", ids.shape(), " must be [N, n] with 1 <= n <= block_size ", config.block_size);
  const std::int64_t n = ids.size(1);
  Tensor x = token(ids) + position(arange(n));  // [N, n, d]
  const Tensor mask = generate_square_subsequent_mask(n);
  for (std::size_t l = 0; l < blocks.size(); ++l)
    x = blocks.at<nn::TransformerEncoderLayer>(l)(x, mask, Tensor(), true);
  return readout(x);
}

Tensor GPT::forward_cached(const Tensor& ids, std::vector<nn::KVCache>& caches) const {
  caches.resize(blocks.size());
  const std::int64_t seen = caches[0].size(), n = ids.dim() == 2 ? ids.size(1) : 0;
  if (ids.dim() != 2 || n < 1 || seen + n > config.block_size)
    throw ShapeError("GPT::forward_cached: ids ", ids.shape(), " after ", seen,
                     " cached tokens must be [N, n] with 1 <= n and the two together <= block_size ",
                     config.block_size);
  Tensor x = token(ids) + position(arange(seen, seen + n).to(DType::Int64));  // [N, n, d]
  for (std::size_t l = 0; l < blocks.size(); ++l)
    x = blocks.at<nn::TransformerEncoderLayer>(l).forward_cached(x, caches[l]);
  return readout(x);
}

}  // namespace litgrad::book
