// Exercise 10.2 · Temperature
// ===========================
//
// Write the distribution section 3 samples from: for scores :math:`z` of shape
// :math:`[C]` and a temperature :math:`T > 0`, return
// :math:`\operatorname{softmax}(z / T)`. The tests check what the temperature does to
// the odds between two symbols (:math:`\ln(p_i / p_j) = (z_i - z_j) / T`), that a low
// temperature gives the greedy choice all the probability, exactly, and that a high one
// makes every symbol almost equally likely.

// %% hint
// ``softmax(scores / temperature, 0)``: litgrad's softmax subtracts the largest score
// first, so even :math:`z / T` of a million does not overflow.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/10_language_model/2_temperature.cpp``:

Tensor at_temperature(const Tensor& scores, double temperature);

// %%
// The tests.

TEST_CASE("at T = 0.5 the log-odds of two symbols are twice their score gap") {
  const Tensor z = tensor({1.0, 0.25, -0.5});
  const Tensor p = at_temperature(z, 0.5);
  CHECK(std::fabs(std::log(p.at({0}) / p.at({1})) - 2 * 0.75) < 1e-14);
  CHECK(std::fabs(std::log(p.at({1}) / p.at({2})) - 2 * 0.75) < 1e-14);
}

TEST_CASE(
    "at T = 1e-4 the best symbol gets probability exactly 1, the others exactly 0") {
  // The smallest gap, 0.7, over T is 7,000: e^-7000 is far below the smallest double.
  const Tensor p = at_temperature(tensor({0.2, 1.0, 0.0, 0.3}), 1e-4);
  CHECK(p.at({1}) == 1.0);
  CHECK(p.at({0}) == 0.0);
  CHECK(p.at({2}) == 0.0);
  CHECK(p.at({3}) == 0.0);
}

TEST_CASE("at T = 1e4 every symbol's probability is within 1e-4 of uniform") {
  const Tensor p = at_temperature(tensor({0.2, 1.0, 0.0, 0.3}), 1e4);
  for (std::int64_t i = 0; i < 4; ++i) CHECK(std::fabs(p.at({i}) - 0.25) < 1e-4);
}
