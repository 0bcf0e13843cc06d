// Exercise 4.3 · A stack of linear layers is one
// ==============================================
//
// Section 2 composed two linear layers into one. Collapse a whole stack: given layers
// :math:`L_1, \dots, L_k` (each one's inputs the previous one's outputs), return the
// one ``nn::Linear`` that computes :math:`L_k(\cdots L_2(L_1(x)))`. The tests compare
// it with the stack on 200 random inputs, to :math:`10^{-12}`: every output is a sum of
// a few hundred rounded products of size below 1, whose rounding is about
// :math:`10^{-14}`, so a correct collapse passes with room to spare and a wrong
// weight or bias anywhere fails by far more.

// %% hint
// Fold from the first layer on, keeping a running (W, b): after layer L with weight
// A and bias c, the running map x ↦ W x + b becomes x ↦ (A W) x + (A b + c).

// %% fold: includes
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/04_nonlinearity/3_collapse.cpp``:

nn::Linear collapse(const std::vector<nn::Linear>& layers);

// %% fold: your collapse, and what a wrong one points to
namespace {
// Your collapse of `layers`, or nothing if it threw (the message says what was thrown
// and what that points to).
std::optional<nn::Linear> yours_for(const std::vector<nn::Linear>& layers) {
  std::string threw;
  try {
    return collapse(layers);
  } catch (const std::exception& e) {
    threw = e.what();
  }
  const std::string why = threw.rfind("matmul", 0) == 0
                              ? "; a product of weights whose shapes do not fit points "
                                "to the weights multiplied in the wrong order"
                              : "";
  FAIL_CHECK("your function threw: ", threw, why);
  return std::nullopt;
}
}  // namespace

// %%
// The tests.

TEST_CASE("a stack of one layer collapses to that layer, bit for bit") {
  Generator gen(10);
  std::vector<nn::Linear> layers;
  layers.emplace_back(4, 3, true, gen);
  const auto one = yours_for(layers);
  REQUIRE(one);
  REQUIRE(one->out_features == 3);
  CHECK_MESSAGE(exercise::agrees(one->weight, layers[0].weight), "the weight");
  CHECK_MESSAGE(exercise::agrees(one->bias, layers[0].bias),
                "the bias: a fresh nn::Linear starts with random numbers, and the "
                "layer's own bias differs from them; this points to the collapsed bias "
                "never copied in");
}

TEST_CASE(
    "four layers 3 → 5 → 4 → 6 → 2 collapse to one layer [2, 3] that agrees to 1e-12") {
  Generator gen(9);
  std::vector<nn::Linear> layers;
  for (auto [in, out] : {std::pair{3, 5}, {5, 4}, {4, 6}, {6, 2}})
    layers.emplace_back(in, out, true, gen);
  const auto one = yours_for(layers);
  REQUIRE(one);
  REQUIRE(one->in_features == 3);
  REQUIRE(one->out_features == 2);
  const Tensor x = randn({200, 3}, gen);
  Tensor y = x, at_zero = zeros({1, 3});
  for (const nn::Linear& layer : layers) y = layer(y), at_zero = layer(at_zero);
  const bool last_bias_only =
      exercise::agrees((*one)(zeros({1, 3})).squeeze(0), layers.back().bias, 1e-12) &&
      !exercise::agrees(at_zero.squeeze(0), layers.back().bias, 1e-12);
  INFO("at x = 0 the stack gives ", at_zero, " and yours ", (*one)(zeros({1, 3})),
       last_bias_only
           ? std::string(": yours is the last layer's bias alone; this points "
                         "to the earlier layers' biases dropped")
           : std::string());
  CHECK(exercise::agrees((*one)(x), y, 1e-12));
}
