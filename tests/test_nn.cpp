// Modules: torch's parameter names and printout, Linear's arithmetic and initialisation.

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

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
                       "TwoLayer: no parameter named 'out.bias' (it has: hidden.weight, hidden.bias, out.weight)", ValueError);
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
  CHECK_THROWS_WITH_AS(nn::Linear(0, 2), doctest::Contains("Linear: in_features and out_features must be at least 1, got 0 and 2"), ValueError);
}

TEST_CASE("linear adds its products to the bias and gives the bits of matmul(x, Wᵀ) + b, with the same gradients") {
  // One operation instead of two: each element is the product's sum plus the bias, rounded once
  // either way. Sizes reach every path of the matrix product, GEMM with sums longer than one
  // pass among them; gradients may differ only in a zero's sign (add's gradient adds into +0).
  Generator gen(8);
  const std::vector<std::int64_t> rows = {1, 3, 16, 40, 64}, ins = {2, 8, 24, 100, 700}, outs = {1, 5, 16, 33};
  for (int trial = 0; trial < 80; ++trial) {
    auto pick = [&](const std::vector<std::int64_t>& from) { return from[static_cast<std::size_t>(gen.randint(0, static_cast<std::int64_t>(from.size())))]; };
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
  CHECK_THROWS_WITH_AS(nn::init::xavier_uniform_(v), "xavier_uniform_: needs a tensor with at least 2 dimensions, got [3]", ShapeError);
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
