// Exercise 9.2 · The pre-norm block
// =================================
//
// Write the forward pass of a pre-norm block from the parts of a
// ``nn::TransformerEncoderLayer``: its ``norm1``, ``self_attn``, ``norm2``, ``linear1``
// and ``linear2``, with GELU between the linear layers, as section 2 wrote it: :math:`x
// \leftarrow x + \mathrm{Attn}(\mathrm{LN}_1(x))`, then :math:`x \leftarrow x +
// W_2\,\mathrm{GELU}(W_1 \mathrm{LN}_2(x) + b_1) + b_2`. The tests compare your block
// with the layer itself (built with ``norm_first``, GELU and no dropout), with and
// without the causal mask, and check the residual wiring directly: with the attention's
// output projection and the second linear layer set to zero, the block must return its
// input exactly.

// %% hint
// ``layer.self_attn(q, k, v, Tensor(), false, mask).output`` is the attention; pass the
// normalised x as all three. Add each part's output to the stream, not to its
// normalised copy.

// %% fold: includes, and the layer the tests use
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
nn::TransformerEncoderLayerOptions pre_norm_options() {
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 32, o.dropout = 0, o.activation = "gelu", o.batch_first = true,
  o.norm_first = true;
  return o;
}
}  // namespace

// %%
// The function to write, in ``exercises/09_transformer/2_pre_norm.cpp``:

Tensor pre_norm_block(const nn::TransformerEncoderLayer& layer, const Tensor& x,
                      const Tensor& mask);

// %%
// The tests.

TEST_CASE("it equals the layer's own forward to 1e-14, with and without the mask") {
  Generator gen(9);
  nn::TransformerEncoderLayer layer(8, 2, pre_norm_options(), gen);
  const Tensor x = randn({2, 5, 8}, gen);
  const Tensor mask = generate_square_subsequent_mask(5);
  CHECK(max(abs(pre_norm_block(layer, x, Tensor()) - layer(x))).item() < 1e-14);
  CHECK(max(abs(pre_norm_block(layer, x, mask) - layer(x, mask))).item() < 1e-14);
}

TEST_CASE("with both parts' last layers zeroed, the block returns its input exactly") {
  Generator gen(10);
  nn::TransformerEncoderLayer layer(8, 2, pre_norm_options(), gen);
  {
    NoGradGuard no_grad;
    for (Tensor t : {layer.self_attn.out_proj.weight, layer.self_attn.out_proj.bias,
                     layer.linear2.weight, layer.linear2.bias})
      t.copy_(zeros(t.shape()));
  }
  const Tensor x = randn({2, 5, 8}, gen);
  CHECK(max(abs(pre_norm_block(layer, x, Tensor()) - x)).item() == 0.0);
}
