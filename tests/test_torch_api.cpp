// What a torch user reaches for: Python's indexing (x.index({Slice(), -1})), method forms,
// elementwise comparison of tensors, arange's Int64, and nn::TransformerEncoder.

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;
using namespace litgrad::indexing;

TEST_CASE("x.index({...}) picks what Python's x[...] picks: integers, slices, None and Ellipsis") {
  const Tensor x = reshape(arange(24), {2, 3, 4});       // x[i, j, k] = 12 i + 4 j + k
  CHECK(x.index({Slice(), -1}).shape() == Shape{2, 4});  // x[:, -1]
  CHECK(x.index({Slice(), -1}).to_vector() == std::vector<double>{8, 9, 10, 11, 20, 21, 22, 23});
  CHECK(x.index({1, Slice(1, 3), Slice(std::nullopt, std::nullopt, 2)}).to_vector() ==
        std::vector<double>{16, 18, 20, 22});                                             // x[1, 1:3, ::2]
  CHECK(x.index({Ellipsis, 0}).to_vector() == std::vector<double>{0, 4, 8, 12, 16, 20});  // x[..., 0]
  CHECK(x.index({None, 0}).shape() == Shape{1, 3, 4});                                    // x[None, 0]
  CHECK(x.index({0, Ellipsis, None}).shape() == Shape{3, 4, 1});                          // x[0, ..., None]
  CHECK(x.index({-1, -1, -1}).item() == 23);
  CHECK_THROWS_WITH_AS(x.index({0, 0, 0, 0}), "index: too many indices (4) for a tensor of shape [2,3,4]", IndexError);
  CHECK_THROWS_WITH_AS(x.index({Ellipsis, 0, Ellipsis}), "index: an index can have only one Ellipsis", IndexError);
  CHECK_THROWS_AS(x.index({0, 3}), IndexError);
}

TEST_CASE("indexing is differentiable: the gradient goes back to the positions picked") {
  Tensor x = zeros({3, 4}).requires_grad_();
  sum(x.index({Slice(1), Slice(std::nullopt, std::nullopt, 3)}) * 2.0).backward();  // x[1:, ::3]
  CHECK(x.grad().to_vector() == std::vector<double>{0, 0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2});
}

TEST_CASE("the method forms give what the free functions give") {
  Generator gen(1);
  const Tensor x = randn({3, 4}, gen), idx = tensor({2, 0}, {2}, DType::Int64);
  CHECK(x.select(1, -1).to_vector() == select(x, 1, -1).to_vector());
  CHECK(x.slice(1, 1, 3).to_vector() == slice(x, 1, 1, 3).to_vector());
  CHECK(x.narrow(1, 1, 2).to_vector() == slice(x, 1, 1, 3).to_vector());
  CHECK(x.index_select(0, idx).to_vector() == index_select(x, 0, idx).to_vector());
  CHECK(x.gather(1, reshape(idx, {1, 2})).to_vector() == gather(x, 1, reshape(idx, {1, 2})).to_vector());
  CHECK(x.view({4, 3}).shape() == Shape{4, 3});
  CHECK(x.contiguous().is_same(x));
  CHECK_THROWS_WITH_AS(x.narrow(0, 0, -1), "narrow: length must be non-negative, got -1", ValueError);
}

TEST_CASE("tensor == tensor compares elementwise, as torch's, and broadcasts") {
  const Tensor a = tensor({1, 2, 3}), b = tensor({1, 0, 3});
  const Tensor same = a == b;
  CHECK(same.dtype() == DType::Bool);
  CHECK(same.to_vector() == std::vector<double>{1, 0, 1});
  CHECK((a != b).to_vector() == std::vector<double>{0, 1, 0});
  CHECK((a < reshape(b, {3, 1})).shape() == Shape{3, 3});
  CHECK((a >= b).to_vector() == std::vector<double>{1, 1, 1});
}

TEST_CASE(
    "arange(n) and arange(start, end) of integers are Int64, as torch's: an index for embeddings, and Float64 once "
    "used "
    "in arithmetic") {
  const Tensor i = arange(4);
  CHECK(i.dtype() == DType::Int64);
  CHECK(i.to_vector() == std::vector<double>{0, 1, 2, 3});
  CHECK((i * 0.5).dtype() == DType::Float64);
  CHECK(arange(0.0, 2.0, 0.5).dtype() == DType::Float64);
  const Tensor table = reshape(arange(0.0, 8.0), {4, 2});
  CHECK(nn::embedding(arange(2), table).to_vector() == std::vector<double>{0, 1, 2, 3});
  // Integer bounds give Int64 as torch.arange(0, t) does (nanoGPT's positions), any
  // floating-point bound Float64.
  const std::int64_t t = 3;
  CHECK(arange(0, t).dtype() == DType::Int64);
  CHECK(arange(1, 9, 3).to_vector() == std::vector<double>{1, 4, 7});
  CHECK(arange(1, 9, 3).dtype() == DType::Int64);
  CHECK(arange(0, 2.5).dtype() == DType::Float64);
  CHECK(nn::embedding(arange(1, t), table).to_vector() == std::vector<double>{2, 3, 4, 5});
}

TEST_CASE("cross_entropy over [N, C, d] positions is the per-row cross-entropy of the classes at each position") {
  Generator gen(2);
  const Tensor logits = randn({2, 3, 4}, gen);  // classes along dim 1
  const Tensor target = tensor({0, 2, 1, 2, 1, 1, 0, 2}, {2, 4}, DType::Int64);
  const Tensor per_position = cross_entropy(logits, target, Reduction::None);
  CHECK(per_position.shape() == Shape{2, 4});
  const Tensor rows = reshape(permute(logits, {0, 2, 1}), {8, 3});
  CHECK(per_position.to_vector() == cross_entropy(rows, reshape(target, {8}), Reduction::None).to_vector());
  CHECK(cross_entropy(logits, target).item() == cross_entropy(rows, reshape(target, {8})).item());
  CHECK_THROWS_WITH_AS(cross_entropy(logits, zeros({2, 3}).to(DType::Int64)),
                       "cross_entropy: input of shape [2,3,4] and target of shape [2,3] do not fit (expected [2,4])",
                       ShapeError);
}

TEST_CASE(
    "TransformerEncoder is its layers applied in turn, then its norm, each layer starting as a copy of the one given") {
  Generator gen(3);
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 32, o.dropout = 0, o.norm_first = true, o.batch_first = true;
  nn::TransformerEncoderLayer layer(16, 2, o, gen);
  nn::TransformerEncoder encoder(layer, 3, std::make_unique<nn::LayerNorm>(16));
  // torch's names, and every layer a copy of the one given.
  const auto named = encoder.named_parameters();
  CHECK(named.front().first == "layers.0.self_attn.in_proj_weight");
  CHECK(named.back().first == "norm.bias");
  CHECK(encoder.layer(2).linear1.weight.to_vector() == layer.linear1.weight.to_vector());
  CHECK_FALSE(encoder.layer(2).linear1.weight.is_same(layer.linear1.weight));
  // Train the copies apart, then compare with the same layers applied by hand.
  for (std::size_t i = 0; i < 3; ++i) {
    NoGradGuard no_grad;
    encoder.layer(i).linear2.weight.mul_(1.0 + 0.1 * static_cast<double>(i));
  }
  const Tensor x = randn({2, 5, 16}, gen);
  const Tensor mask = generate_square_subsequent_mask(5);
  Tensor by_hand = x;
  for (std::size_t i = 0; i < 3; ++i) by_hand = encoder.layer(i)(by_hand, mask);
  by_hand = (*encoder.norm)(by_hand);
  CHECK(encoder(x, mask).to_vector() == by_hand.to_vector());
  CHECK(encoder(x, mask, {}, /*is_causal=*/true).to_vector() == by_hand.to_vector());
  CHECK_THROWS_WITH_AS(nn::TransformerEncoder(layer, 0), "TransformerEncoder: num_layers must be at least 1, got 0",
                       ValueError);
  // The norm as torch's norm=nn.LayerNorm(d): the encoder owns it and trains it.
  nn::LayerNorm final_norm(16);
  {
    NoGradGuard no_grad;
    final_norm.weight.fill_(2.0);
  }
  nn::TransformerEncoder by_value(layer, 2, std::move(final_norm));
  REQUIRE(by_value.norm != nullptr);
  CHECK(by_value.norm->weight.to_vector() == std::vector<double>(16, 2.0));
  const auto names = by_value.state_dict().keys();
  CHECK(std::find(names.begin(), names.end(), "norm.weight") != names.end());
  CHECK(nn::TransformerEncoder(layer, 1, nn::LayerNorm(16)).parameters().size() == layer.parameters().size() + 2);
}

TEST_CASE("Slice's bounds are written as libtorch's: Slice(1, None) is Python's 1:, and any integer is a bound") {
  const Tensor x = arange(6);
  CHECK(x.index({Slice(1, None)}).to_vector() == x.index({Slice(1)}).to_vector());     // x[1:]
  CHECK(x.index({Slice(None, 2)}).to_vector() == std::vector<double>{0, 1});           // x[:2]
  CHECK(x.index({Slice(None, None, 2)}).to_vector() == std::vector<double>{0, 2, 4});  // x[::2]
  const std::vector<double> four(4);
  CHECK(x.index({Slice(0, four.size())}).numel() == 4);  // a std::size_t bound, as v.size()
  const std::optional<std::int64_t> none;
  CHECK(x.index({Slice(none, -1)}).numel() == 5);
}

TEST_CASE("split and chunk have method forms, as torch's x.split(2, -1) and x.chunk(3)") {
  const Tensor x = reshape(arange(12), {2, 6});
  const auto same = [](const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].shape() != b[i].shape() || a[i].to_vector() != b[i].to_vector()) return false;
    return true;
  };
  CHECK(x.split(4, 1).size() == 2);
  CHECK(same(x.split(4, 1), split(x, 4, 1)));
  CHECK(same(x.split({1, 5}, -1), split(x, {1, 5}, -1)));
  CHECK(same(x.chunk(2), chunk(x, 2)));
}

TEST_CASE(
    "zero_grad(true) clears the gradients, as torch 2's default: AdamW then leaves alone a parameter that gets no "
    "gradient, where zeros would decay it") {
  for (const bool set_to_none : {false, true}) {
    CAPTURE(set_to_none);
    Tensor used = tensor({1.0, 2.0}).requires_grad_(), unused = tensor({3.0, 4.0}).requires_grad_();
    optim::AdamW adamw({used, unused}, {0.1});  // weight decay 0.01, torch's default
    sum(used * unused).backward();              // both get a gradient once
    adamw.step();
    adamw.zero_grad(set_to_none);
    CHECK(unused.grad().defined() == !set_to_none);
    const Tensor before = unused.detach().clone();
    sum(used * used).backward();  // now only `used` gets one
    adamw.step();
    // Zeros still move it: the decay, and Adam's moments from the first step.
    CHECK((unused.detach().to_vector() == before.to_vector()) == set_to_none);
  }
  nn::Linear lin(2, 1);
  sum(lin(ones({1, 2}))).backward();
  lin.zero_grad(true);
  for (const Tensor& p : lin.parameters()) CHECK(!p.grad().defined());
}

namespace {
// A model with a sub-module by value and a ModuleList, to walk.
struct Net : nn::Module {
  nn::Linear in{2, 3};
  nn::ModuleList blocks;
  Net() : Module("Net") {
    blocks.push_back(nn::Linear(3, 3));
    blocks.push_back(nn::Tanh());
    register_module("in", in);
    register_module("blocks", blocks);
  }
};
}  // namespace

TEST_CASE(
    "modules() lists a model depth first, apply() visits children before parents as torch's, and a ModuleList walks "
    "with range-for") {
  Net net;
  std::vector<std::string> listed, applied, walked;
  for (nn::Module* m : net.modules()) listed.push_back(m->type());
  CHECK(listed == std::vector<std::string>{"Net", "Linear", "ModuleList", "Linear", "Tanh"});
  net.apply([&](nn::Module& m) { applied.push_back(m.type()); });
  CHECK(applied == std::vector<std::string>{"Linear", "Linear", "Tanh", "ModuleList", "Net"});
  for (nn::Module& m : net.blocks) walked.push_back(m.type());
  CHECK(walked == std::vector<std::string>{"Linear", "Tanh"});
  // nanoGPT's _init_weights, as a torch user writes it with apply.
  net.apply([](nn::Module& m) {
    if (auto* linear = dynamic_cast<nn::Linear*>(&m)) {
      NoGradGuard no_grad;
      linear->weight.fill_(0.5);
    }
  });
  for (const auto& [name, p] : net.named_parameters()) {
    CAPTURE(name);
    if (name.find("weight") != std::string::npos)
      for (double v : p.to_vector()) CHECK(v == 0.5);
  }
}

TEST_CASE("F::name is the function litgrad::name or nn::name: torch.nn.functional's spellings, the same bits") {
  Generator gen(7);
  const Tensor x = randn({4, 6}, gen), W = randn({3, 6}, gen), b = randn({3}, gen);
  const Tensor targets = tensor({0, 2, 1, 2}, {4}, DType::Int64);
  const auto same = [](const Tensor& a, const Tensor& c) { return a.to_vector() == c.to_vector(); };
  CHECK(same(F::gelu(x), gelu(x)));
  CHECK(same(F::relu(x), relu(x)));
  CHECK(same(F::softmax(x, -1), softmax(x, -1)));
  CHECK(same(F::log_softmax(x, 1), log_softmax(x, 1)));
  const Tensor scores = F::linear(F::tanh(x), W, b);
  CHECK(same(scores, nn::linear(tanh(x), W, b)));
  CHECK(same(F::cross_entropy(scores, targets), cross_entropy(scores, targets)));
  CHECK(same(F::mse_loss(x, x * 0.5), mse_loss(x, x * 0.5)));
  CHECK(same(F::layer_norm(x, {6}), nn::layer_norm(x, {6})));
  CHECK(same(F::embedding(targets, W), nn::embedding(targets, W)));
  CHECK(same(F::dropout(x, 0.5, false), x));
}

TEST_CASE("Adam's betas set together, as betas=(0.9, 0.95) and libtorch's .betas({0.9, 0.95})") {
  const auto steps = [](auto options) {
    Tensor p = tensor({1.0, -2.0, 0.5}).requires_grad_();
    optim::AdamW opt({p}, options);
    for (int i = 0; i < 5; ++i) {
      opt.zero_grad();
      sum(exp(p) * tensor({1.0, 2.0, 3.0})).backward();
      opt.step();
    }
    return std::make_pair(p.to_vector(), opt.param_groups()[0]["beta2"]);
  };
  optim::AdamWOptions fields{6e-3};
  fields.beta1 = 0.8, fields.beta2 = 0.95;
  const auto [by_fields, beta2_fields] = steps(fields);
  const auto [by_betas, beta2_betas] = steps(optim::AdamWOptions{6e-3}.betas({0.8, 0.95}));
  CHECK(by_betas == by_fields);
  CHECK(beta2_betas == 0.95);
  CHECK(beta2_fields == 0.95);
  CHECK(optim::AdamOptions{}.betas({0.5, 0.6}).beta1 == 0.5);
}
