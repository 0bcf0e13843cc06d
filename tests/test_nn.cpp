// Modules: torch's parameter names and printout, training and evaluation, moving modules and
// containers; the layers (Linear's arithmetic and initialisation, Embedding, LayerNorm, the
// activations, TransformerEncoderLayer's structure); saving and loading weights.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

namespace {
struct TwoLayer : nn::Module {
  nn::Linear hidden, out;
  explicit TwoLayer(Generator& gen) : Module("TwoLayer"), hidden(2, 8, true, gen), out(8, 1, false, gen) {
    register_module("hidden", hidden);
    register_module("out", out);
  }
};
}  // namespace

TEST_CASE("parameters have torch's dotted names, in registration order") {
  Generator gen(0);
  TwoLayer m(gen);
  std::vector<std::string> names;
  for (auto& [name, p] : m.named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"hidden.weight", "hidden.bias", "out.weight"});
  CHECK(m.parameter("hidden.bias").shape() == Shape{8});
  CHECK(m.parameters().size() == 3);
  for (const Tensor& p : m.parameters()) CHECK(p.requires_grad());
  CHECK_THROWS_WITH_AS(m.parameter("out.bias"),
                       "TwoLayer: no parameter named 'out.bias' (it has: hidden.weight, hidden.bias, out.weight)",
                       ValueError);
}

TEST_CASE("a module prints as torch prints it") {
  Generator gen(0);
  TwoLayer m(gen);
  std::ostringstream os;
  os << m;
  CHECK(os.str() ==
        "TwoLayer(\n"
        "  (hidden): Linear(in_features=2, out_features=8, bias=True)\n"
        "  (out): Linear(in_features=8, out_features=1, bias=False)\n"
        ")");
}

TEST_CASE("train() and eval() switch every sub-module") {
  Generator gen(0);
  TwoLayer m(gen);
  CHECK(m.is_training());
  m.eval();
  CHECK_FALSE(m.hidden.is_training());
  m.train();
  CHECK(m.out.is_training());
}

TEST_CASE("Linear computes x Wᵀ + b over the last dimension") {
  Generator gen(1);
  nn::Linear layer(3, 2, true, gen);
  const Tensor x = randn({4, 5, 3}, gen);
  const Tensor y = layer(x);
  REQUIRE(y.shape() == Shape{4, 5, 2});
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t t = 0; t < 5; ++t)
      for (std::int64_t o = 0; o < 2; ++o) {
        double ref = layer.bias.at({o});
        for (std::int64_t k = 0; k < 3; ++k) ref += x.at({i, t, k}) * layer.weight.at({o, k});
        CHECK(y.at({i, t, o}) == doctest::Approx(ref).epsilon(1e-14));
      }
  CHECK_THROWS_WITH_AS(layer(ones({4, 2})), "Linear: input of shape [4,2] does not end in in_features=3", ShapeError);
  CHECK_THROWS_WITH_AS(nn::Linear(0, 2),
                       doctest::Contains("Linear: in_features and out_features must be at least 1, got 0 and 2"),
                       ValueError);
}

TEST_CASE("linear adds its products to the bias and gives the bits of matmul(x, Wᵀ) + b, with the same gradients") {
  // One operation instead of two: each element is the product's sum plus the bias, rounded once
  // either way. Sizes reach every path of the matrix product, GEMM with sums longer than one
  // pass among them; gradients may differ only in a zero's sign (add's gradient adds into +0).
  Generator gen(8);
  const std::vector<std::int64_t> rows = {1, 3, 16, 40, 64}, ins = {2, 8, 24, 100, 700}, outs = {1, 5, 16, 33};
  for (int trial = 0; trial < 80; ++trial) {
    auto pick = [&](const std::vector<std::int64_t>& from) {
      return from[static_cast<std::size_t>(gen.randint(0, static_cast<std::int64_t>(from.size())))];
    };
    const std::int64_t n = pick(rows), in = pick(ins), out = pick(outs);
    CAPTURE(n);
    CAPTURE(in);
    CAPTURE(out);
    Tensor x = randn({2, n, in}, gen).requires_grad_(), w = randn({out, in}, gen).requires_grad_(),
           b = randn({out}, gen).requires_grad_();
    Tensor x2 = x.detach().requires_grad_(), w2 = w.detach().requires_grad_(), b2 = b.detach().requires_grad_();
    const Tensor r = randn({2, n, out}, gen);
    const Tensor fused = nn::linear(x, w, b);
    const Tensor plain = matmul(x2, transpose(w2, 0, 1)) + b2;
    CHECK(test::identical(fused, plain));
    sum(fused * r).backward();
    sum(plain * r).backward();
    CHECK(test::max_abs_diff(x.grad(), x2.grad()) == 0.0);
    CHECK(test::max_abs_diff(w.grad(), w2.grad()) == 0.0);
    CHECK(test::identical(b.grad(), b2.grad()));
  }
}

TEST_CASE("Linear starts uniform between -1/sqrt(in) and 1/sqrt(in), as torch") {
  // 64 x 100 weights: all inside the bound, and the largest within 1% of it unless
  // all 6,400 missed the top 1% of the range, which has probability 0.99^6400 < 1e-27.
  Generator gen(2);
  nn::Linear layer(100, 64, true, gen);
  const double bound = 1 / std::sqrt(100.0);
  const double w_max = max(layer.weight).item(), w_min = -max(-layer.weight).item();
  CHECK(w_max < bound);
  CHECK(w_min >= -bound);
  CHECK(w_max > 0.99 * bound);
  CHECK(std::fabs(max(layer.bias).item()) < bound);
}

TEST_CASE("xavier_uniform_ draws within gain * sqrt(6 / (fan_in + fan_out))") {
  Generator gen(3);
  Tensor w = zeros({30, 70});
  nn::init::xavier_uniform_(w, 2.0, gen);
  const double bound = 2.0 * std::sqrt(6.0 / 100);
  CHECK(max(w).item() < bound);
  CHECK(max(w).item() > 0.99 * bound);  // as above: 2,100 draws miss the top 1% with probability < 1e-9
  CHECK(-max(-w).item() >= -bound);
  Tensor v = zeros({3});
  CHECK_THROWS_WITH_AS(nn::init::xavier_uniform_(v),
                       "xavier_uniform_: needs a tensor with at least 2 dimensions, got [3]", ShapeError);
}

TEST_CASE("normal_ draws mean and standard deviation within five standard errors over 200,000 draws, for three seeds") {
  // n = 200,000 normals of mean 2 and standard deviation 3: the sample mean has standard error
  // 3 / sqrt(n) = 0.0067, the sample standard deviation about 3 / sqrt(2n) = 0.0047; five
  // standard errors fail a correct draw with probability below 1e-6.
  const double n = 200000;
  for (std::uint64_t seed : {30, 31, 32}) {
    Generator gen(seed);
    Tensor w = zeros({400, 500});
    nn::init::normal_(w, 2.0, 3.0, gen);
    CHECK(std::fabs(mean(w).item() - 2.0) < 5 * 3.0 / std::sqrt(n));
    CHECK(std::fabs(litgrad::std(w).item() - 3.0) < 5 * 3.0 / std::sqrt(2 * n));
  }
  // The same generator state gives mean + std * randn, bit for bit; std = 0 gives the mean.
  Generator a(33), b(33);
  Tensor w = zeros({5, 7});
  nn::init::normal_(w, -1.0, 0.5, a);
  CHECK(test::identical(w, 0.5 * randn({5, 7}, b) + -1.0));
  nn::init::normal_(w, 0.25, 0.0, a);
  CHECK(test::identical(w, full({5, 7}, 0.25)));
  CHECK_THROWS_WITH_AS(nn::init::normal_(w, 0.0, -1.0), "normal_: std must be >= 0, got -1", ValueError);
  CHECK_THROWS_WITH_AS(nn::init::normal_(w, 0.0, NAN), "normal_: std must be >= 0, got nan", ValueError);
}

TEST_CASE("constant_, zeros_ and ones_ write exactly their value into every element, parameters included") {
  nn::Linear layer(3, 4);
  nn::init::constant_(layer.weight, 0.1);
  CHECK(test::identical(layer.weight, full({4, 3}, 0.1)));
  nn::init::zeros_(layer.bias);
  CHECK(test::identical(layer.bias, zeros({4})));
  nn::init::ones_(layer.weight);
  CHECK(test::identical(layer.weight, ones({4, 3})));
  CHECK(layer.weight.requires_grad());
}

namespace {
std::vector<std::string> names(const nn::Module& m) {
  std::vector<std::string> out;
  for (auto& [name, p] : m.named_parameters()) out.push_back(name);
  return out;
}

struct Pair : nn::Module {
  nn::Linear first, second;
  explicit Pair(Generator& gen) : Module("Pair"), first(2, 3, true, gen), second(3, 1, true, gen) {
    register_module("first", first);
    register_module("second", second);
  }
  Tensor forward(const Tensor& x) const { return second(tanh(first(x))); }
};

struct Stray : nn::Module {
  explicit Stray(nn::Linear& elsewhere) : Module("Stray") { register_module("elsewhere", elsewhere); }
};

std::string temporary(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("litgrad-test-" + name)).string();
}
}  // namespace

TEST_CASE("modules move: in a std::vector, their registries still find their own members") {
  Generator gen(1);
  std::vector<Pair> models;
  for (int i = 0; i < 5; ++i) models.emplace_back(gen);  // grows, moving the earlier ones
  const Tensor x = randn({4, 2}, gen);
  for (auto& m : models) {
    CHECK(names(m) == std::vector<std::string>{"first.weight", "first.bias", "second.weight", "second.bias"});
    CHECK(m.parameter("first.weight").is_same(m.first.weight));
    CHECK(m.parameter("second.bias").is_same(m.second.bias));
    sum(m.forward(x)).backward();
    CHECK(m.first.weight.grad().defined());
  }
  Pair moved = std::move(models[2]);
  CHECK(moved.parameter("second.weight").is_same(moved.second.weight));
  moved.eval();
  CHECK_FALSE(moved.first.is_training());
}

TEST_CASE(
    "registering a module that cannot be a member (one on the stack, from a module on the heap) is refused, naming "
    "it") {
  Generator gen(1);
  nn::Linear outside(2, 2, true, gen);
  CHECK_THROWS_WITH_AS(std::make_unique<Stray>(outside),
                       doctest::Contains("Stray: sub-module 'elsewhere' is not a member of this module"), ValueError);
}

TEST_CASE("Sequential applies its modules in order and names their parameters by position, as torch") {
  Generator gen(2);
  nn::Sequential mlp(nn::Linear(2, 4, true, gen), nn::Tanh(), nn::Linear(4, 1, true, gen));
  CHECK(names(mlp) == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  const Tensor x = randn({3, 2}, gen);
  const auto& a = mlp.at<nn::Linear>(0);
  const auto& b = mlp.at<nn::Linear>(2);
  CHECK(test::identical(mlp(x), b(tanh(a(x)))));
  CHECK(mlp.size() == 3);
  CHECK_THROWS_WITH_AS(mlp.at<nn::Linear>(1), "Sequential: module 1 is a Tanh, not the type asked for", ValueError);
  CHECK_THROWS_AS(mlp[3], IndexError);
  std::ostringstream os;
  os << mlp;
  CHECK(os.str() ==
        "Sequential(\n  (0): Linear(in_features=2, out_features=4, bias=True)\n  (1): Tanh()\n"
        "  (2): Linear(in_features=4, out_features=1, bias=True)\n)");
  nn::Sequential moved = std::move(mlp);  // moves, and still works
  CHECK(test::identical(moved(x), b(tanh(a(x)))));
}

TEST_CASE("ModuleList holds modules under their indices and hands them back in their type") {
  Generator gen(3);
  nn::ModuleList layers;
  for (int i = 0; i < 3; ++i) layers.push_back(nn::Linear(4, 4, i != 1, gen));
  CHECK(names(layers) == std::vector<std::string>{"0.weight", "0.bias", "1.weight", "2.weight", "2.bias"});
  CHECK(layers.size() == 3);
  CHECK_FALSE(layers.at<nn::Linear>(1).bias.defined());
  CHECK_THROWS_AS(layers.at<nn::Embedding>(0), ValueError);
  CHECK_THROWS_AS(layers[5], IndexError);
}

TEST_CASE("ModuleDict holds modules by key, in the order inserted, and names their parameters by key, as torch") {
  nn::ModuleDict heads;
  heads.insert("start", nn::Linear(8, 2));
  nn::Linear& end = heads.insert("end", nn::Linear(8, 3));
  CHECK(heads.size() == 2);
  CHECK(heads.keys() == std::vector<std::string>{"start", "end"});
  CHECK(heads.contains("end"));
  CHECK_FALSE(heads.contains("middle"));
  CHECK(&heads.at<nn::Linear>("end") == &end);
  CHECK(&heads["start"] == &heads.at<nn::Linear>("start"));
  const Tensor x = randn({5, 8});
  CHECK(heads.at<nn::Linear>("end")(x).shape() == Shape{5, 3});
  std::vector<std::string> names;
  for (const auto& [name, p] : heads.named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"start.weight", "start.bias", "end.weight", "end.bias"});
  CHECK_THROWS_WITH_AS(heads.insert("end", nn::Linear(8, 3)), "ModuleDict: the key 'end' is already taken", ValueError);
  CHECK_THROWS_WITH_AS(heads.insert("a.b", nn::Linear(8, 3)),
                       "ModuleDict: the key 'a.b' is empty or holds a dot; a key is one part of a dotted name",
                       ValueError);
  CHECK_THROWS_WITH_AS(heads["middle"], "ModuleDict: no module under 'middle' (it has: start, end)", ValueError);
  CHECK_THROWS_WITH_AS(heads.at<nn::Tanh>("start"),
                       "ModuleDict: the module under 'start' is a Linear, not the type asked for", ValueError);
  std::ostringstream printed;
  printed << heads;
  CHECK(printed.str() ==
        "ModuleDict(\n  (start): Linear(in_features=8, out_features=2, bias=True)\n"
        "  (end): Linear(in_features=8, out_features=3, bias=True)\n)");
}

namespace {
// nanoGPT's causal mask as a buffer, beside a parameter and a buffer kept out of checkpoints.
struct Masked : nn::Module {
  nn::Linear proj{4, 4};
  Tensor mask = tril(ones({3, 3})), scratch = zeros({2});
  Masked() : Module("Masked") {
    register_module("proj", proj);
    register_buffer("mask", mask);
    register_buffer("scratch", scratch, false);
  }
};
struct Outer : nn::Module {
  Tensor w = ones({2}), count = zeros({1});
  Masked inner;
  Outer() : Module("Outer") {
    register_parameter("w", w);
    register_buffer("count", count);
    register_module("inner", inner);
  }
  void clash() { register_buffer("w", count); }
  void stray(Tensor& elsewhere) { register_buffer("elsewhere", elsewhere); }
};
std::vector<std::string> names_of(const std::vector<std::pair<std::string, Tensor>>& named) {
  std::vector<std::string> out;
  for (const auto& n : named) out.push_back(n.first);
  return out;
}
}  // namespace

TEST_CASE("a buffer is kept and saved but never learnt: named_buffers, state_dict in torch's order, load_state_dict") {
  std::vector<Outer> models(1);  // modules move: the registry finds buffers by their place too
  Outer& m = models[0];
  CHECK(names_of(m.named_buffers()) == std::vector<std::string>{"count", "inner.mask", "inner.scratch"});
  CHECK(names_of(m.named_parameters()) == std::vector<std::string>{"w", "inner.proj.weight", "inner.proj.bias"});
  CHECK(m.buffers().size() == 3);
  CHECK_FALSE(m.inner.mask.requires_grad());
  // torch's order: each module's parameters, then its buffers, then its sub-modules'; a
  // buffer that is not persistent is left out.
  StateDict dict = m.state_dict();
  std::vector<std::string> keys;
  for (const auto& [key, value] : dict) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"w", "count", "inner.mask", "inner.proj.weight", "inner.proj.bias"});
  // Loading writes the buffer's values into the module's own tensor.
  StateDict changed;
  for (const auto& [key, value] : dict) changed.insert(key, key == "inner.mask" ? full({3, 3}, 2.0) : value);
  Outer other;
  other.load_state_dict(changed);
  CHECK(other.inner.mask.to_vector() == std::vector<double>(9, 2.0));
  CHECK(other.inner.scratch.to_vector() == std::vector<double>{0, 0});
  CHECK_THROWS_WITH_AS(m.clash(), "Outer: the name 'w' is already registered", ValueError);
  Tensor elsewhere = zeros({1});
  CHECK_THROWS_AS(m.stray(elsewhere), ValueError);
}

TEST_CASE(
    "the loss modules are their functions with their options, value and gradient bit for bit, and print as torch's") {
  Generator gen(11);
  const Tensor targets = tensor({0, 2, 1, 2}, {4}, DType::Int64);
  const auto same = [](const Tensor& a, const Tensor& b) { return a.to_vector() == b.to_vector(); };
  // Each module and its function on the same scores: the loss and the gradient it sends back.
  const auto check = [&](auto module_loss, auto function_loss, const Tensor& start) {
    Tensor a = start.clone().requires_grad_(), b = start.clone().requires_grad_();
    const Tensor la = module_loss(a), lb = function_loss(b);
    CHECK(same(la, lb));
    sum(la).backward(), sum(lb).backward();
    CHECK(same(a.grad(), b.grad()));
  };
  const Tensor scores = randn({4, 3}, gen), other = randn({4, 3}, gen);
  CrossEntropyOptions smooth;
  smooth.ignore_index = 1, smooth.label_smoothing = 0.1, smooth.reduction = Reduction::Sum;
  check([&](const Tensor& x) { return nn::CrossEntropyLoss()(x, targets); },
        [&](const Tensor& x) { return cross_entropy(x, targets); }, scores);
  check([&](const Tensor& x) { return nn::CrossEntropyLoss(smooth)(x, targets); },
        [&](const Tensor& x) { return cross_entropy(x, targets, smooth); }, scores);
  check([&](const Tensor& x) { return nn::NLLLoss(2, Reduction::None)(log_softmax(x, 1), targets); },
        [&](const Tensor& x) { return nll_loss(log_softmax(x, 1), targets, 2, Reduction::None); }, scores);
  check([&](const Tensor& x) { return nn::MSELoss(Reduction::Sum)(x, other); },
        [&](const Tensor& x) { return mse_loss(x, other, Reduction::Sum); }, scores);
  check([&](const Tensor& x) { return nn::BCEWithLogitsLoss()(x, sigmoid(other)); },
        [&](const Tensor& x) { return binary_cross_entropy_with_logits(x, sigmoid(other)); }, scores);
  std::ostringstream printed;
  printed << nn::CrossEntropyLoss() << " " << nn::MSELoss() << " " << nn::Flatten();
  CHECK(printed.str() == "CrossEntropyLoss() MSELoss() Flatten(start_dim=1, end_dim=-1)");
  CrossEntropyOptions too_much;
  too_much.label_smoothing = 2;
  CHECK_THROWS_WITH_AS(nn::CrossEntropyLoss{too_much}, "CrossEntropyLoss: label_smoothing must be in [0, 1], got 2",
                       ValueError);
  CHECK_THROWS_AS(nn::MSELoss()(scores, randn({4}, gen)), ShapeError);
}

TEST_CASE("Flatten keeps the batch and makes the rest one dimension, as torch's module (the function starts at 0)") {
  const Tensor x = reshape(arange(24.0), {2, 3, 4});
  CHECK(nn::Flatten()(x).shape() == Shape{2, 12});
  CHECK(nn::Flatten()(x).to_vector() == x.to_vector());
  CHECK(nn::Flatten(0, 1)(x).shape() == Shape{6, 4});
  CHECK(nn::Flatten(-2)(x).shape() == Shape{2, 12});
  CHECK_THROWS_AS(nn::Flatten(3)(x), IndexError);
}

TEST_CASE("Embedding looks rows up, sums the gradients of repeated ids, and keeps its padding row at zero") {
  Generator gen(4);
  nn::Embedding table(5, 3, 1, gen);
  for (std::int64_t j = 0; j < 3; ++j) CHECK(table.weight.at({1, j}) == 0.0);
  const Tensor ids = tensor({2, 1, 2, 4, 1, 2}, {2, 3}, DType::Int64);
  const Tensor v = table(ids);
  CHECK(v.shape() == Shape{2, 3, 3});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t k = 0; k < 3; ++k)
      for (std::int64_t j = 0; j < 3; ++j)
        CHECK(v.at({i, k, j}) == table.weight.at({static_cast<std::int64_t>(ids.at({i, k})), j}));
  sum(v).backward();
  const Tensor g = table.weight.grad();
  for (std::int64_t j = 0; j < 3; ++j) {
    CHECK(g.at({0, j}) == 0.0);  // never looked up
    CHECK(g.at({1, j}) == 0.0);  // the padding row, looked up twice
    CHECK(g.at({2, j}) == 3.0);  // looked up three times
    CHECK(g.at({4, j}) == 1.0);
  }
  CHECK(nn::Embedding(5, 3, -1, gen).padding_idx == 4);
  std::ostringstream os;
  os << table;
  CHECK(os.str() == "Embedding(5, 3, padding_idx=1)");
}

TEST_CASE("LayerNorm gives each token mean 0 and variance var / (var + eps), then scales and shifts") {
  Generator gen(5);
  nn::LayerNorm norm(6);
  const Tensor x = randn({4, 6}, gen) * 3.0 + 1.0;
  const Tensor y = norm(x);
  const Tensor v = var(x, {1}, 0);  // each token's biased variance
  for (std::int64_t t = 0; t < 4; ++t) {
    CHECK(std::fabs(mean(select(y, 0, t)).item()) < 1e-15);
    const double expected = v.at({t}) / (v.at({t}) + 1e-5);
    CHECK(std::fabs(var(select(y, 0, t), {}, 0).item() - expected) < 1e-14);
  }
  norm.weight.data()[0] = 2.0;
  norm.bias.data()[0] = -1.0;
  const Tensor scaled = norm(x);
  for (std::int64_t t = 0; t < 4; ++t) CHECK(scaled.at({t, 0}) == y.at({t, 0}) * 2.0 + -1.0);
  CHECK(names(nn::LayerNorm(6, 1e-5, false)).empty());
  std::ostringstream os;
  os << norm;
  CHECK(os.str() == "LayerNorm((6,), eps=1e-05, elementwise_affine=True)");
  CHECK_THROWS_WITH_AS(norm(randn({4, 5}, gen)),
                       "layer_norm: input of shape [4,5] does not end in normalized_shape [6]", ShapeError);
}

TEST_CASE("the activation modules are their functions, and Dropout is the identity in evaluation") {
  Generator gen(6);
  const Tensor x = randn({3, 4}, gen);
  CHECK(test::identical(nn::ReLU()(x), relu(x)));
  CHECK(test::identical(nn::Tanh()(x), tanh(x)));
  CHECK(test::identical(nn::Sigmoid()(x), sigmoid(x)));
  CHECK(test::identical(nn::GELU("tanh")(x), gelu(x, "tanh")));
  nn::Dropout drop(0.5, gen);
  drop.eval();
  CHECK(test::identical(drop(x), x));
  drop.train();
  const Tensor dropped = drop(ones({1000}));
  std::int64_t zeros_seen = 0;
  for (std::int64_t i = 0; i < 1000; ++i) zeros_seen += dropped.at({i}) == 0.0;
  CHECK(zeros_seen > 400);  // half, within five standard deviations (sqrt(250) ≈ 16)
  CHECK(zeros_seen < 600);
  CHECK_THROWS_WITH_AS(nn::GELU("erf"), "GELU: approximate must be \"none\" or \"tanh\", got \"erf\"", ValueError);
}

TEST_CASE("TransformerEncoderLayer has torch's parameters, in torch's order and shapes") {
  nn::TransformerEncoderLayerOptions o;
  o.dim_feedforward = 16;
  nn::TransformerEncoderLayer layer(8, 2, o);
  CHECK(names(layer) == std::vector<std::string>{"self_attn.in_proj_weight", "self_attn.in_proj_bias",
                                                 "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                                                 "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
                                                 "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"});
  CHECK(layer.parameter("linear1.weight").shape() == Shape{16, 8});
  CHECK(layer(randn({5, 3, 8})).shape() == Shape{5, 3, 8});
  o.activation = "swish";
  CHECK_THROWS_WITH_AS(nn::TransformerEncoderLayer(8, 2, o),
                       "TransformerEncoderLayer: activation must be \"relu\" or \"gelu\", got \"swish\"", ValueError);
}

TEST_CASE("a saved and loaded module gives bit-identical outputs") {
  Generator gen(7);
  Pair a(gen), b(gen);
  const std::string path = temporary("pair.state");
  nn::save(a, path);
  nn::load(b, path);
  const Tensor x = randn({6, 2}, gen);
  CHECK(test::identical(a.forward(x), b.forward(x)));
  nn::TransformerEncoderLayer t1(8, 2), t2(8, 2);
  nn::save(t1, path);
  nn::load(t2, path);
  t1.eval(), t2.eval();
  const Tensor s = randn({4, 2, 8}, gen);
  CHECK(test::identical(t1(s), t2(s)));
  std::filesystem::remove(path);
}

TEST_CASE(
    "loading a truncated, foreign or mismatched file is refused, naming the file and the problem, and leaves the "
    "module as it was") {
  Generator gen(8);
  Pair a(gen), b(gen);
  const std::string path = temporary("pair-bad.state");
  nn::save(a, path);
  std::string text;
  {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    text = s.str();
  }
  const Tensor before = b.first.weight.detach();
  const std::vector<double> saved = before.to_vector();
  auto attempt = [&](const std::string& contents, const std::string& expected) {
    {
      std::ofstream f(path, std::ios::trunc);
      f << contents;
    }
    CHECK_THROWS_WITH_AS(nn::load(b, path), doctest::Contains(expected.c_str()), ValueError);
    CHECK(b.first.weight.to_vector() == saved);
  };
  attempt(text.substr(0, text.size() / 2), "is truncated");
  attempt("PK\x03\x04 not ours", "is not a litgrad state_dict");
  attempt("litgrad state_dict 7\n", "has format version 7; this litgrad reads versions 1 to 3");
  std::string changed = text;
  changed.replace(changed.find("second.bias"), 11, "second.beta");
  attempt(changed, "the file was changed or damaged");  // the checksum sees the edit
  StateDict renamed;
  for (const auto& [key, value] : a.state_dict()) renamed.insert(key == "second.bias" ? "second.beta" : key, value);
  save(renamed, path);
  CHECK_THROWS_WITH_AS(
      nn::load(b, path),
      doctest::Contains("Pair.load_state_dict: missing keys: second.bias; unexpected keys: second.beta"), ValueError);
  nn::save(nn::Linear(2, 4, true, gen), path);
  CHECK_THROWS_WITH_AS(nn::load(b, path),
                       doctest::Contains("missing keys: first.weight, first.bias, second.weight, second.bias; "
                                         "unexpected keys: weight, bias"),
                       ValueError);
  Pair c(gen);
  struct Wide : nn::Module {
    nn::Linear first, second;
    explicit Wide(Generator& g) : Module("Pair"), first(2, 5, true, g), second(5, 1, true, g) {
      register_module("first", first);
      register_module("second", second);
    }
  } wide(gen);
  nn::save(wide, path);
  CHECK_THROWS_WITH_AS(nn::load(c, path),
                       doctest::Contains("'first.weight' is Float64 [5,2] in the state_dict and Float64 [3,2] here"),
                       ValueError);
  CHECK_THROWS_WITH_AS(nn::load(c, temporary("no-such-file")), doctest::Contains("load: cannot read"), ValueError);
  std::filesystem::remove(path);
}

namespace {
// What std::cerr receives while a scope runs.
class CapturedErrors {
 public:
  CapturedErrors() : old_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~CapturedErrors() { std::cerr.rdbuf(old_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* old_;
};

// A torch user's slip: `out` is a member, declared and built, but never registered.
struct Forgot : nn::Module {
  nn::Linear hidden{2, 3}, out{3, 1};
  Forgot() : Module("Forgot") { register_module("hidden", hidden); }
};
// The same, one level down, inside a module that registers the one holding it.
struct Holds : nn::Module {
  Forgot inner;
  nn::Linear head{1, 1};
  Holds() : Module("Holds") {
    register_module("inner", inner);
    register_module("head", head);
  }
};
// Everything registered; a module kept beside the model, not in it.
struct Careful : nn::Module {
  nn::Linear hidden{2, 3}, out{3, 1};
  Careful() : Module("Careful") {
    register_module("hidden", hidden);
    register_module("out", out);
  }
};
}  // namespace

TEST_CASE(
    "a sub-module member never registered is named in a warning, once, at the first listing of the parameters, and "
    "registered members, moved models and models side by side in a vector give none") {
  {
    CapturedErrors errors;
    Forgot model;
    CHECK(model.parameters().size() == 2);  // hidden's weight and bias: out is missing
    CHECK(errors.text().find("Forgot holds a Linear(in_features=3, out_features=1, bias=True)") != std::string::npos);
    CHECK(errors.text().find("register_module(\"name\", member)") != std::string::npos);
    const std::string first = errors.text();
    model.parameters();
    model.eval();
    CHECK(errors.text() == first);  // once
  }
  {
    CapturedErrors errors;
    Holds model;
    model.train();
    // Reported once, by the module that holds it, though it also lies inside the outer one.
    const std::string text = errors.text();
    CHECK(text.find("Forgot holds a Linear(in_features=3, out_features=1") != std::string::npos);
    CHECK(text.find("Holds holds") == std::string::npos);
    CHECK(text.find("warning", text.find("warning") + 1) == std::string::npos);
  }
  {
    CapturedErrors errors;
    std::vector<Careful> models(3);  // side by side in memory, each after the last's constructor
    models.emplace_back();           // and moved when the vector grows
    for (const Careful& m : models) CHECK(m.parameters().size() == 4);
    Careful alone;
    nn::Linear beside(3, 3);  // a module next to the model on the stack, not in it
    alone.state_dict();
    nn::Sequential seq(nn::Linear(2, 2), nn::ReLU());
    seq.parameters();
    CHECK(errors.text().empty());
  }
}
