// nn::MultiheadAttention against Python torch 1.13 on what libtorch's C++ API gets wrong or
// lacks: Bool attn_mask, 3-D masks, batch_first, unbatched input, kdim != vdim, and fully
// masked rows. reference/make_mha_reference.py wrote mha_python.txt with torch's own weights;
// this test loads them into our layer and compares. The 1e-10 threshold is derived in
// libtorch/test_multihead_attention_vs_libtorch.cpp: the same formulas in double, different
// orders of addition.

#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"
#include "reference_file.hpp"

using namespace litgrad;

TEST_CASE(
    "MultiheadAttention agrees with Python torch to 1e-10 on Bool and 3-D masks, batch_first, unbatched input, kdim != "
    "vdim and fully masked rows") {
  const auto cases = test::read_reference_file("mha_python.txt");
  REQUIRE(cases.size() == 12);
  for (const auto& c : cases) {
    CAPTURE(c.name);
    nn::MultiheadAttentionOptions o;
    o.bias = c.flag("bias"), o.add_bias_kv = c.flag("add_bias_kv"), o.add_zero_attn = c.flag("add_zero_attn");
    o.kdim = c.integer("kdim"), o.vdim = c.integer("vdim"), o.batch_first = c.flag("batch_first");
    nn::MultiheadAttention mha(c.integer("E"), c.integer("H"), o);
    std::size_t loaded = 0;
    for (const auto& t : c.tensors)
      if (t.role == "param") {
        Tensor p = mha.parameter(t.name);
        REQUIRE(p.shape() == t.value.shape());
        std::copy_n(t.value.data(), p.numel(), p.data());
        ++loaded;
      }
    CHECK(loaded == mha.named_parameters().size());

    const Tensor query = c.get("input", "query").detach().requires_grad_();
    const bool self = c.flag("self_attention");
    const Tensor key = self ? query : c.get("input", "key").detach().requires_grad_();
    const Tensor value = self ? query : c.get("input", "value").detach().requires_grad_();
    const Tensor mask = c.has("input", "attn_mask") ? c.get("input", "attn_mask") : Tensor();
    const Tensor padding = c.has("input", "key_padding_mask") ? c.get("input", "key_padding_mask") : Tensor();
    auto [out, w] = mha(query, key, value, padding, true, mask, c.flag("average"));
    CHECK(test::relative_error(out, c.get("output", "output")) <= 1e-10);
    CHECK(test::relative_error(w, c.get("output", "weights")) <= 1e-10);
    if (!c.flag("grads")) continue;
    (sum(out * c.get("loss", "A")) + sum(w * c.get("loss", "B"))).backward();
    CHECK(test::relative_error(query.grad(), c.get("grad", "query")) <= 1e-10);
    if (!self) {
      CHECK(test::relative_error(key.grad(), c.get("grad", "key")) <= 1e-10);
      CHECK(test::relative_error(value.grad(), c.get("grad", "value")) <= 1e-10);
    }
    for (auto& [name, p] : mha.named_parameters()) {
      CAPTURE(name);
      CHECK(test::relative_error(p.grad(), c.get("grad", name)) <= 1e-10);
    }
  }
}
