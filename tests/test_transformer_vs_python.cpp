// nn::TransformerEncoderLayer against Python torch 1.13's TransformerEncoderLayer over 32
// random configurations (reference/make_transformer_reference.py wrote transformer_python.txt
// with torch's own weights): post-norm and pre-norm, relu and gelu, sequence-first,
// batch-first and unbatched input, no mask, float and Bool causal masks, 3-D masks and key
// padding masks. The layer is loaded with torch's weights and compared in output and in the
// gradient of the input and of every parameter.
//
// Why 1e-10: both compute the same formulas in double precision and differ only in the order
// of additions and in how a few quantities (the layer norm's 1/sqrt(var + eps), the scaled
// query) are formed. Each such difference is a few units of 2^-53 ≈ 1.1e-16 relative, and the
// layer chains a few dozen operations, none of which amplifies errors by more than the
// condition of a softmax or a normalisation over a handful of features (well below 1e3). The
// differences therefore stay below about 1e-12; 1e-10 leaves room and would still catch any
// wrong formula, whose error is of the order of the values themselves.

#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"
#include "reference_file.hpp"

using namespace litgrad;

TEST_CASE(
    "TransformerEncoderLayer agrees with Python torch to 1e-10 in outputs and every gradient over 32 configurations of "
    "norm placement, activation, layout and masks") {
  const auto cases = test::read_reference_file("transformer_python.txt");
  REQUIRE(cases.size() == 32);
  int pre = 0, gelu = 0, masked = 0;
  for (const auto& c : cases) {
    CAPTURE(c.name);
    nn::TransformerEncoderLayerOptions o;
    o.dim_feedforward = c.integer("F");
    o.dropout = 0;
    o.activation = c.config.at("activation");
    o.norm_first = c.flag("norm_first");
    o.batch_first = c.flag("batch_first");
    o.layer_norm_eps = std::stod(c.config.at("eps"));
    nn::TransformerEncoderLayer layer(c.integer("E"), c.integer("H"), o);
    std::size_t loaded = 0;
    for (const auto& t : c.tensors)
      if (t.role == "param") {
        Tensor p = layer.parameter(t.name);
        REQUIRE(p.shape() == t.value.shape());
        std::copy_n(t.value.data(), p.numel(), p.data());
        ++loaded;
      }
    CHECK(loaded == layer.named_parameters().size());
    const Tensor src = c.get("input", "src").detach().requires_grad_();
    const Tensor mask = c.has("input", "src_mask") ? c.get("input", "src_mask") : Tensor();
    const Tensor padding = c.has("input", "src_key_padding_mask") ? c.get("input", "src_key_padding_mask") : Tensor();
    const Tensor out = layer(src, mask, padding);
    CHECK(test::relative_error(out, c.get("output", "output")) <= 1e-10);
    sum(out * c.get("loss", "A")).backward();
    CHECK(test::relative_error(src.grad(), c.get("grad", "src")) <= 1e-10);
    for (auto& [name, p] : layer.named_parameters()) {
      CAPTURE(name);
      CHECK(test::relative_error(p.grad(), c.get("grad", name)) <= 1e-10);
    }
    pre += o.norm_first;
    gelu += o.activation == "gelu";
    masked += mask.defined() || padding.defined();
  }
  CHECK(pre == 16);
  CHECK(gelu == 16);
  CHECK(masked >= 20);
}
