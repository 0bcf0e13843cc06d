// Attention in the library: scaled_dot_product_attention, the causal mask, positional
// encodings, dropout, and MultiheadAttention's shapes, parameters, masks, errors and gradients.

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

TEST_CASE("scaled_dot_product_attention is softmax(q kT / sqrt(E)) v, batched") {
  Generator gen(1);
  const Tensor q = randn({2, 3, 4}, gen), k = randn({2, 5, 4}, gen), v = randn({2, 5, 6}, gen);
  auto [out, w] = scaled_dot_product_attention(q, k, v);
  CHECK(out.shape() == Shape{2, 3, 6});
  CHECK(w.shape() == Shape{2, 3, 5});
  const Tensor expected_w = softmax(matmul(q / 2.0, transpose(k, -2, -1)), -1);
  CHECK(test::identical(w, expected_w));
  CHECK(test::identical(out, matmul(expected_w, v)));
}

TEST_CASE(
    "scaled_dot_product_attention's Bool mask means may attend, as torch's, and is_causal equals the causal float "
    "mask") {
  Generator gen(2);
  const Tensor q = randn({4, 3}, gen), k = randn({4, 3}, gen), v = randn({4, 2}, gen);
  const Tensor causal = generate_square_subsequent_mask(4);
  const Tensor allowed = eq(causal, scalar_tensor(0));  // true on and below the diagonal
  const auto by_float = scaled_dot_product_attention(q, k, v, causal);
  const auto by_bool = scaled_dot_product_attention(q, k, v, allowed);
  const auto by_flag = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
  CHECK(test::identical(by_float.weights, by_bool.weights));
  CHECK(test::identical(by_float.weights, by_flag.weights));
  CHECK(by_float.weights.at({0, 1}) == 0.0);
  CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, k, v, causal, 0.0, true),
                       "scaled_dot_product_attention: pass either attn_mask or is_causal, not both", ValueError);
  CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, randn({4, 2}, gen), v),
                       "scaled_dot_product_attention: query of shape [4,3] and key of shape [4,2] differ in their last "
                       "(embedding) dimension",
                       ShapeError);
  CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, k, randn({3, 2}, gen)),
                       "scaled_dot_product_attention: key of shape [4,3] and value of shape [3,2] differ in length",
                       ShapeError);
  CHECK_THROWS_WITH_AS(
      scaled_dot_product_attention(q, k, v, zeros({3, 4})),
      "scaled_dot_product_attention: attn_mask of shape [3,4] does not broadcast to the scores' shape [4,4]",
      ShapeError);
}

TEST_CASE("attention over no keys gives zero outputs and zero query gradients, as a sum of no terms in torch") {
  // Found by the fuzzer: the fused weights' backward multiplied empty matrices through null data.
  Generator gen(8);
  Tensor q = randn({2, 3, 4}, gen).requires_grad_(), k = zeros({2, 0, 4}).requires_grad_(),
         v = zeros({2, 0, 2}).requires_grad_();
  const AttentionOutput a = scaled_dot_product_attention(q, k, v);
  CHECK(a.weights.shape() == Shape{2, 3, 0});
  CHECK(test::identical(a.output, zeros({2, 3, 2})));
  sum(a.output).backward();
  CHECK(test::identical(q.grad(), zeros({2, 3, 4})));
  CHECK(k.grad().shape() == Shape{2, 0, 4});
}

TEST_CASE("the causal mask is 0 on and below the diagonal and -inf above") {
  const Tensor m = generate_square_subsequent_mask(3);
  CHECK(test::identical(m, tensor({{0, -INFINITY, -INFINITY}, {0, 0, -INFINITY}, {0, 0, 0}})));
  CHECK(generate_square_subsequent_mask(0).numel() == 0);
  CHECK_THROWS_WITH_AS(generate_square_subsequent_mask(-1),
                       "generate_square_subsequent_mask: size must be non-negative, got -1", ValueError);
}

TEST_CASE("the ramp encodes position t as t/(L-1)") {
  CHECK(test::identical(ramp_positional_encoding(5), tensor({0, 0.25, 0.5, 0.75, 1}, {5, 1})));
  CHECK(test::identical(ramp_positional_encoding(1), zeros({1, 1})));
  CHECK_THROWS_AS(ramp_positional_encoding(0), ValueError);
}

TEST_CASE("the sinusoidal encoding puts sin in even and cos in odd features, at wavelengths 2 pi 10000^(2i/d)") {
  const Tensor pe = sinusoidal_positional_encoding(10, 6);
  REQUIRE(pe.shape() == Shape{10, 6});
  for (std::int64_t t = 0; t < 10; ++t)
    for (std::int64_t i = 0; i < 3; ++i) {
      const double angle = static_cast<double>(t) / std::pow(10000.0, 2.0 * static_cast<double>(i) / 6.0);
      CHECK(pe.at({t, 2 * i}) == std::sin(angle));
      CHECK(pe.at({t, 2 * i + 1}) == std::cos(angle));
      // Each pair is a point on the unit circle: sin² + cos² = 1 up to two roundings.
      CHECK(std::fabs(pe.at({t, 2 * i}) * pe.at({t, 2 * i}) + pe.at({t, 2 * i + 1}) * pe.at({t, 2 * i + 1}) - 1) <=
            4e-16);
    }
  CHECK_THROWS_WITH_AS(
      sinusoidal_positional_encoding(8, 5),
      "sinusoidal_positional_encoding: d must be even and at least 2 (features come in sin/cos pairs), got 5",
      ValueError);
}

TEST_CASE("dropout zeroes with probability p and scales the rest by 1/(1-p), only in training") {
  Generator gen(3);
  const Tensor x = ones({100000});
  const Tensor y = dropout(x, 0.25, true, gen);
  std::int64_t zeros_seen = 0;
  for (double v : y.to_vector()) {
    CHECK((v == 0.0 || v == 1.0 / 0.75));
    zeros_seen += v == 0.0;
  }
  // The count of zeros is binomial(100000, 0.25): sd sqrt(100000 * 0.25 * 0.75) = 137; allow 5 sd.
  CHECK(std::fabs(static_cast<double>(zeros_seen) - 25000) < 5 * 137);
  CHECK(test::identical(dropout(x, 0.25, false, gen), x));
  CHECK_THROWS_WITH_AS(dropout(x, 1.5), "dropout: probability must be between 0 and 1, got 1.5", ValueError);
}

TEST_CASE("MultiheadAttention has torch's parameters, names, shapes and starting values") {
  Generator gen(4);
  nn::MultiheadAttentionOptions o;
  o.add_bias_kv = true;
  nn::MultiheadAttention mha(6, 2, o, gen);
  std::vector<std::string> names;
  for (auto& [name, p] : mha.named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                          "out_proj.bias"});
  CHECK(mha.in_proj_weight.shape() == Shape{18, 6});
  CHECK(mha.bias_k.shape() == Shape{1, 1, 6});
  CHECK(test::identical(mha.in_proj_bias, zeros({18})));
  CHECK(test::identical(mha.out_proj.bias, zeros({6})));
  const double xavier = std::sqrt(6.0 / (6 + 18));  // fan_in 6, fan_out 18
  CHECK(max(mha.in_proj_weight).item() < xavier);
  CHECK(-max(-mha.in_proj_weight).item() >= -xavier);
  CHECK(max(mha.out_proj.weight).item() < 1 / std::sqrt(6.0));  // a default Linear's bound

  nn::MultiheadAttentionOptions separate;
  separate.kdim = 3, separate.vdim = 5, separate.bias = false;
  nn::MultiheadAttention cross(4, 2, separate, gen);
  names.clear();
  for (auto& [name, p] : cross.named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight", "out_proj.weight"});
  CHECK(cross.k_proj_weight.shape() == Shape{4, 3});
  CHECK(cross.v_proj_weight.shape() == Shape{4, 5});
  std::ostringstream os;
  os << cross;
  CHECK(os.str() ==
        "MultiheadAttention(embed_dim=4, num_heads=2, kdim=3, vdim=5\n  (out_proj): Linear(in_features=4, "
        "out_features=4, bias=False)\n)");
}

TEST_CASE(
    "MultiheadAttention's shapes: sequence first by default, batch_first, unbatched, averaged or per-head weights") {
  Generator gen(5);
  nn::MultiheadAttention mha(4, 2, {}, gen);
  auto [out, w] = mha(randn({3, 2, 4}, gen), randn({5, 2, 4}, gen), randn({5, 2, 4}, gen));
  CHECK(out.shape() == Shape{3, 2, 4});
  CHECK(w.shape() == Shape{2, 3, 5});
  auto per_head = mha(randn({3, 2, 4}, gen), randn({5, 2, 4}, gen), randn({5, 2, 4}, gen), {}, true, {}, false);
  CHECK(per_head.weights.shape() == Shape{2, 2, 3, 5});
  auto unbatched = mha(randn({3, 4}, gen), randn({5, 4}, gen), randn({5, 4}, gen));
  CHECK(unbatched.output.shape() == Shape{3, 4});
  CHECK(unbatched.weights.shape() == Shape{3, 5});
  CHECK_FALSE(mha(randn({3, 4}, gen), randn({5, 4}, gen), randn({5, 4}, gen), {}, false).weights.defined());
  nn::MultiheadAttentionOptions bf;
  bf.batch_first = true;
  nn::MultiheadAttention first(4, 2, bf, gen);
  auto batch_first = first(randn({2, 3, 4}, gen), randn({2, 5, 4}, gen), randn({2, 5, 4}, gen));
  CHECK(batch_first.output.shape() == Shape{2, 3, 4});
  CHECK(batch_first.weights.shape() == Shape{2, 3, 5});
}

TEST_CASE(
    "a query whose every key is masked gets NaN weights and output, and the other batch elements are unaffected") {
  Generator gen(6);
  nn::MultiheadAttention mha(4, 2, {}, gen);
  const Tensor x = randn({3, 2, 4}, gen);
  const Tensor padding = tensor({0, 0, 0, 1, 1, 1}, {2, 3}, DType::Bool);  // batch element 1 is all padding
  auto [out, w] = mha(x, x, x, padding);
  for (std::int64_t t = 0; t < 3; ++t)
    for (std::int64_t e = 0; e < 4; ++e) {
      CHECK(std::isnan(out.at({t, 1, e})));
      CHECK(std::isfinite(out.at({t, 0, e})));
    }
  CHECK(std::isnan(w.at({1, 0, 0})));
  CHECK(std::isfinite(w.at({0, 0, 0})));
}

TEST_CASE(
    "is_causal, given with the causal mask, changes no bit of MultiheadAttention or TransformerEncoderLayer, "
    "forward or backward, with or without a padding mask") {
  // The hint turns the mask into a structure the kernels use to skip the hidden scores; the
  // numbers must be those of the mask itself, Bool or float, and with padding merged in.
  Generator gen(23);
  nn::MultiheadAttention mha(8, 2, {}, gen);
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 16, o.dropout = 0, o.norm_first = true;
  nn::TransformerEncoderLayer layer(8, 2, o, gen);
  const std::int64_t L = 40, N = 2;  // past one 32-row block of the products
  const Tensor causal = generate_square_subsequent_mask(L), causal_bool = causal < 0.0;
  Tensor padding = full({N, L}, 0, DType::Bool);
  padding.data()[L + L - 1] = 1;  // the last key of the second sequence
  for (const Tensor& pad : {Tensor(), padding}) {
    for (const Tensor& mask : {causal, causal_bool}) {
      const Tensor x = randn({L, N, 8}, gen).requires_grad_(), x2 = x.detach().requires_grad_();
      const auto hinted = mha(x, x, x, pad, true, mask, true, /*is_causal=*/true);
      const auto plain = mha(x2, x2, x2, pad, true, mask, true);
      const Tensor r = randn({L, N, 8}, gen);
      sum(hinted.output * r).backward();
      sum(plain.output * r).backward();
      CHECK(hinted.output.to_vector() == plain.output.to_vector());
      CHECK(hinted.weights.to_vector() == plain.weights.to_vector());
      CHECK(x.grad().to_vector() == x2.grad().to_vector());
      const Tensor y = randn({L, N, 8}, gen);
      CHECK(layer(y, mask, pad, /*is_causal=*/true).to_vector() == layer(y, mask, pad).to_vector());
    }
  }
}

TEST_CASE("MultiheadAttention names the expected and the actual shape for every misuse") {
  Generator gen(7);
  CHECK_THROWS_WITH_AS(nn::MultiheadAttention(10, 3),
                       "MultiheadAttention: embed_dim 10 is not divisible by num_heads 3", ValueError);
  nn::MultiheadAttentionOptions bad_dropout;
  bad_dropout.dropout = 1.0;
  CHECK_THROWS_WITH_AS(nn::MultiheadAttention(4, 2, bad_dropout),
                       "MultiheadAttention: dropout must be in [0, 1), got 1", ValueError);
  nn::MultiheadAttention mha(4, 2, {}, gen);
  const Tensor q = randn({3, 2, 4}, gen), kv = randn({5, 2, 4}, gen);
  CHECK_THROWS_WITH_AS(mha(randn({3, 2, 5}, gen), kv, kv),
                       "MultiheadAttention: query of shape [3,2,5] should be [3,2,4]", ShapeError);
  CHECK_THROWS_WITH_AS(mha(q, kv, randn({6, 2, 4}, gen)),
                       "MultiheadAttention: value of shape [6,2,4] should be [5,2,4]", ShapeError);
  CHECK_THROWS_WITH_AS(mha(q, randn({5, 3, 4}, gen), kv), "MultiheadAttention: key of shape [5,3,4] should be [5,2,4]",
                       ShapeError);
  CHECK_THROWS_WITH_AS(
      mha(q, randn({5, 4}, gen), kv),
      doctest::Contains("MultiheadAttention: query, key and value should have the same number of dimensions"),
      ShapeError);
  CHECK_THROWS_WITH_AS(mha(randn({4}, gen), randn({4}, gen), randn({4}, gen)),
                       doctest::Contains("MultiheadAttention: query of shape [4] should be [L,N,E]"), ShapeError);
  CHECK_THROWS_WITH_AS(mha(q, kv, kv, {}, true, zeros({3, 4})),
                       "MultiheadAttention: attn_mask of shape [3,4] should be [3,5]", ShapeError);
  CHECK_THROWS_WITH_AS(mha(q, kv, kv, {}, true, zeros({2, 3, 5})),
                       "MultiheadAttention: attn_mask of shape [2,3,5] should be [4,3,5]", ShapeError);
  CHECK_THROWS_WITH_AS(
      mha(q, kv, kv, {}, true, zeros({1, 1, 3, 5})),
      doctest::Contains(
          "MultiheadAttention: attn_mask of shape [1,1,3,5] should be [L,S] = [3,5] or [N*H,L,S] = [4,3,5]"),
      ShapeError);
  CHECK_THROWS_WITH_AS(mha(q, kv, kv, {}, true, tensor(std::vector<double>(15, 0), {3, 5}, DType::Int64)),
                       "MultiheadAttention: attn_mask must be Bool or Float64, got Int64", ValueError);
  CHECK_THROWS_WITH_AS(mha(q, kv, kv, full({5, 2}, 0, DType::Bool)),
                       "MultiheadAttention: key_padding_mask of shape [5,2] should be [2,5]", ShapeError);
  // A module that threw still works.
  CHECK(mha(q, kv, kv).output.shape() == Shape{3, 2, 4});
}

TEST_CASE("dropout in MultiheadAttention acts in training only") {
  Generator gen(8);
  nn::MultiheadAttentionOptions o;
  o.dropout = 0.5;
  nn::MultiheadAttention mha(4, 1, o, gen);
  const Tensor x = randn({6, 1, 4}, gen);
  const Tensor a = mha(x, x, x).weights, b = mha(x, x, x).weights;
  CHECK_FALSE(test::identical(a, b));  // two draws of the mask (6x6 weights: equal with probability 2^-36)
  mha.eval();
  CHECK(test::identical(mha(x, x, x).weights, mha(x, x, x).weights));
  CHECK(test::max_abs_diff(sum(mha(x, x, x).weights, {-1}), ones({1, 6})) <= 1e-15);  // rows are whole again
}

TEST_CASE("gradcheck: MultiheadAttention with respect to query, key, value and every parameter") {
  Generator gen(9);
  nn::MultiheadAttentionOptions o;
  o.kdim = 3, o.vdim = 2, o.add_bias_kv = true, o.add_zero_attn = true;
  nn::MultiheadAttention mha(4, 2, o, gen);
  std::vector<Tensor> inputs{randn({3, 2, 4}, gen).requires_grad_(), randn({5, 2, 3}, gen).requires_grad_(),
                             randn({5, 2, 2}, gen).requires_grad_()};
  for (Tensor p : mha.parameters()) inputs.push_back(p);  // handles: gradcheck perturbs the layer's own weights
  const Tensor mask = randn({3, 5}, gen);
  const Tensor padding = tensor({0, 1, 0, 0, 1, 0, 0, 0, 0, 1}, {2, 5}, DType::Bool);
  const auto result = gradcheck(
      [&](const std::vector<Tensor>& in) {
        auto [out, w] = mha(in[0], in[1], in[2], padding, true, mask, false);
        return cat({reshape(out, {-1}), reshape(w, {-1})}, 0);
      },
      inputs);
  INFO(result.message);
  CHECK(result.ok);
}
