// Exercise 4.1 · A stack of linear layers is one
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

// %% fold: includes, and which biases a wrong answer left out
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

namespace {
// What the stack makes of zeros when only the biases of the layers `keep` picks count.
Tensor stack_bias(const std::vector<nn::Linear>& layers,
                  const std::function<bool(std::size_t)>& keep) {
  Tensor y = zeros({1, layers.front().in_features});
  for (std::size_t k = 0; k < layers.size(); ++k)
    y = keep(k) ? layers[k](y) : layers[k](y) - layers[k].bias;
  return select(y, 0, 0);
}
// Which of the usual wrong biases `bias` is, in words.
std::string which_bias(const std::vector<nn::Linear>& layers, const Tensor& bias) {
  const auto is = [&](const std::function<bool(std::size_t)>& keep) {
    return max(abs(bias - stack_bias(layers, keep))).item() < 1e-12;
  };
  const std::size_t last = layers.size() - 1;
  if (is([&](std::size_t k) { return k == last; }))
    return "yours is the last layer's bias alone: this points to only the last "
           "layer's bias kept";
  if (is([](std::size_t k) { return k == 0; }))
    return "yours carries the first layer's bias only: this points to the next "
           "layer's bias forgotten";
  if (is([](std::size_t k) { return k != 0; }))
    return "yours lacks the first layer's bias: this points to the first layer's bias "
           "dropped";
  return "";
}
}  // namespace

// %%
// The function to write, in ``exercises/04_nonlinearity/1_collapse.cpp``:

nn::Linear collapse(const std::vector<nn::Linear>& layers);

// %%
// The tests.

TEST_CASE(
    "four layers 3 → 5 → 4 → 6 → 2 collapse to one layer [2, 3] that agrees to 1e-12") {
  Generator gen(9);
  std::vector<nn::Linear> layers;
  for (auto [in, out] : {std::pair{3, 5}, {5, 4}, {4, 6}, {6, 2}})
    layers.emplace_back(in, out, true, gen);
  const nn::Linear one = collapse(layers);
  REQUIRE(one.in_features == 3);
  REQUIRE(one.out_features == 2);
  // What the stack makes of zeros is its bias; of a unit vector, its bias plus a
  // column of its weight.
  Tensor probe = cat({zeros({1, 3}), eye(3)}, 0);  // [4, 3]
  for (const nn::Linear& layer : layers) probe = layer(probe);
  const Tensor bias = select(probe, 0, 0);                              // [2]
  const Tensor weight = transpose(slice(probe, 0, 1, 4) - bias, 0, 1);  // [2, 3]
  CHECK_MESSAGE(max(abs(one.weight - weight)).item() < 1e-12,
                "the weight is not the stack's: the layers' weights multiplied, last "
                "first");
  const std::string why = exercise::quietly(which_bias, layers, one.bias);
  INFO(why);
  CHECK_MESSAGE(max(abs(one.bias - bias)).item() < 1e-12,
                "the bias is not what the stack makes of zeros: every layer's bias "
                "passes through the weights of all the layers after it");
  const Tensor x = randn({200, 3}, gen);
  Tensor y = x;
  for (const nn::Linear& layer : layers) y = layer(y);
  CHECK(max(abs(one(x) - y)).item() < 1e-12);
}

TEST_CASE("a stack of one layer collapses to that layer, bit for bit") {
  Generator gen(10);
  std::vector<nn::Linear> layers;
  layers.emplace_back(4, 3, true, gen);
  const nn::Linear one = collapse(layers);
  REQUIRE(one.out_features == 3);
  CHECK(one.weight.to_vector() == layers[0].weight.to_vector());
  CHECK(one.bias.to_vector() == layers[0].bias.to_vector());
}
