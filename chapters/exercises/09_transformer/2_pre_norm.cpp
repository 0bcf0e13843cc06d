// Exercise 9.2 · The pre-norm block
// =================================
//
// Write the forward pass of a pre-norm block from the parts of a
// ``nn::TransformerEncoderLayer``: its ``norm1``, ``self_attn``, ``norm2``, ``linear1``
// and ``linear2``, with GELU between the linear layers, as section 2 wrote it: :math:`x
// \leftarrow x + \mathrm{Attn}(\mathrm{LN}_1(x))`, then :math:`x \leftarrow x +
// W_2\,\mathrm{GELU}(W_1 \mathrm{LN}_2(x) + b_1) + b_2`. The tests compare your block
// with the layer itself (built with ``norm_first``, GELU and no dropout, its norms'
// scales and shifts set as training would leave them), with and without the causal
// mask, and check the residual wiring directly: with the attention's output projection
// and the second linear layer set to zero, the block must return its input exactly.

// %% hint
// ``layer.self_attn(q, k, v, Tensor(), false, mask).output`` is the attention; pass the
// normalised x as all three. Add each part's output to the stream, not to its
// normalised copy.

// %% fold: includes, and the layer the tests use
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
nn::TransformerEncoderLayerOptions pre_norm_options() {
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 32, o.dropout = 0, o.activation = "gelu", o.batch_first = true,
  o.norm_first = true;
  return o;
}

// A layer as training leaves it: its two norms' scales and shifts no longer the ones
// and zeros they start from, and different from each other.
nn::TransformerEncoderLayer trained_looking_layer(Generator& gen) {
  nn::TransformerEncoderLayer layer(8, 2, pre_norm_options(), gen);
  NoGradGuard no_grad;
  for (Tensor t : {layer.norm1.weight, layer.norm2.weight})
    t.copy_(1 + 0.5 * randn(t.shape(), gen));
  for (Tensor t : {layer.norm1.bias, layer.norm2.bias})
    t.copy_(0.5 * randn(t.shape(), gen));
  return layer;
}
}  // namespace

// %%
// The function to write, in ``exercises/09_transformer/2_pre_norm.cpp``:

Tensor pre_norm_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                      const Tensor& mask);

// %% fold: what your block points to, part by part
namespace {
// Your block against the layer's on one sequence, with parts of the layer switched off
// or changed, and the mistake the first difference points to.
std::string block_problem() {
  const Tensor mask = generate_square_subsequent_mask(4);
  const auto layer_from = [](std::uint64_t seed) {
    Generator gen(seed);
    return trained_looking_layer(gen);
  };
  Generator gen(13);
  const Tensor x = randn({1, 4, 8}, gen);
  const auto agrees = [&](const nn::TransformerEncoderLayer& layer, const Tensor& m) {
    return bool(exercise::agrees(pre_norm_block(layer, x, m), layer(x, m), 1e-12));
  };
  NoGradGuard no_grad;
  nn::TransformerEncoderLayer whole = layer_from(12);
  if (agrees(whole, Tensor()) && !agrees(whole, mask))
    return "without the mask yours agrees with the layer, with it it does not: this "
           "points to the mask not passed to the attention";
  nn::TransformerEncoderLayer attention_half = layer_from(12);
  for (Tensor t : {attention_half.linear2.weight, attention_half.linear2.bias})
    t.copy_(zeros(t.shape()));
  if (!agrees(attention_half, Tensor()) &&
      exercise::agrees(pre_norm_block(attention_half, x, Tensor()), x))
    return "with the feed-forward's last layer zeroed yours returns x exactly, while "
           "the layer adds its attention: this points to the attention's output "
           "dropped "
           "from the second residual";
  nn::TransformerEncoderLayer ff_half = layer_from(12);
  for (Tensor t : {ff_half.self_attn.out_proj.weight, ff_half.self_attn.out_proj.bias})
    t.copy_(zeros(t.shape()));
  if (!agrees(ff_half, Tensor())) {
    ff_half.norm2.weight.copy_(ff_half.norm1.weight);
    ff_half.norm2.bias.copy_(ff_half.norm1.bias);
    if (agrees(ff_half, Tensor()))
      return "the feed-forward half agrees only once norm2 is made a copy of norm1: "
             "this points to norm1 used where norm2 belongs";
    ff_half.linear1.bias.copy_(full(ff_half.linear1.bias.shape(), 50.0));
    if (agrees(ff_half, Tensor()))
      return "the feed-forward half agrees once every input to the activation is far "
             "above 0, where GELU(z) = z, and not near 0: this points to relu where "
             "the layer uses GELU";
  }
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE("it equals the layer's own forward to 1e-14, with and without the mask") {
  const std::string why = exercise::quietly(block_problem);
  INFO(why);
  Generator gen(9);
  const nn::TransformerEncoderLayer layer = trained_looking_layer(gen);
  const Tensor x = randn({2, 5, 8}, gen);
  const Tensor mask = generate_square_subsequent_mask(5);
  CHECK_MESSAGE(exercise::agrees(pre_norm_block(layer, x, Tensor()), layer(x), 1e-14),
                "without the mask");
  CHECK_MESSAGE(exercise::agrees(pre_norm_block(layer, x, mask), layer(x, mask), 1e-14),
                "with the causal mask");
}

TEST_CASE("with both parts' last layers zeroed, the block returns its input exactly") {
  const std::string why = exercise::quietly(block_problem);
  INFO(why);
  Generator gen(10);
  nn::TransformerEncoderLayer layer = trained_looking_layer(gen);
  {
    NoGradGuard no_grad;
    for (Tensor t : {layer.self_attn.out_proj.weight, layer.self_attn.out_proj.bias,
                     layer.linear2.weight, layer.linear2.bias})
      t.copy_(zeros(t.shape()));
  }
  const Tensor x = randn({2, 5, 8}, gen);
  CHECK(exercise::agrees(pre_norm_block(layer, x, Tensor()), x));
}
