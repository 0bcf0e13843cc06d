// Exercise 2.4 · A numerical gradient of a tensor function
// ========================================================
//
// Write section 1's estimate for a function of a whole tensor: the gradient of a
// scalar-valued :math:`f` at :math:`x`, one element at a time, each estimated by the
// central difference with step :math:`h`. This is what :cpp:func:`litgrad::gradcheck`
// does inside. The test compares your estimate with litgrad's autograd for
// :math:`f(x) = \sum_i \tanh(x_i^2)\, x_i + x_0 x_1`: with :math:`h = 10^{-5}`
// section 1's prediction gives errors of about :math:`10^{-10}`, and we allow
// :math:`10^{-9}`, which the forward difference (error about :math:`h/2 \cdot |f''|`,
// some :math:`10^{-6}`) misses.

// %% hint
// The estimate for element :math:`i` needs :math:`f` at two points that differ from
// :math:`x` in element :math:`i` only. Where do those points live, so that changing
// them changes neither :math:`x` nor the points you make for the other elements? (``f``
// returns a one-element tensor; ``.item()`` reads it, and no gradients are needed.)

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"  // vectors print as {a, b, c}

using namespace litgrad;

// %%
// The function to write, in ``exercises/02_derivatives/4_numerical_gradient.cpp``:

Tensor numerical_gradient(const std::function<Tensor(const Tensor&)>& f,
                          const Tensor& x, double h);

// %%
// The test.

TEST_CASE(
    "the central-difference gradient of sum(tanh(x²) x) + x0 x1 agrees with autograd "
    "to 1e-9") {
  const auto f = [](const Tensor& x) {
    return sum(tanh(x * x) * x) + select(x, 0, 0) * select(x, 0, 1);
  };
  Generator gen(3);
  const Tensor x = randn({6}, gen).requires_grad_();
  const std::vector<double> before = x.to_vector();
  f(x).backward();
  const Tensor estimate = numerical_gradient(f, x.detach(), 1e-5);
  CHECK_MESSAGE(x.to_vector() == before,
                "x itself must be left as it was: change copies of it, not x");
  REQUIRE_MESSAGE(estimate.shape() == x.shape(), "one estimate per element of x");
  for (std::int64_t i = 0; i < 6; ++i) {
    const double yours = estimate.at({i}), want = x.grad().at({i});
    const std::string why =
        yours == 0 && want != 0
            ? "0: up and down moved the same numbers, which points to handles copied "
              "instead of numbers"
        : std::fabs(yours - 2 * want) <= 1e-6 * std::fabs(want)
            ? "twice autograd's: this points to divided by h, not 2h"
        : std::fabs(yours - want) > 1e-4 && i > 0
            ? "far off after element 0: steps left over from the elements before "
              "point to one pair of copies for every element"
            : "";
    INFO(why);  // first: a later empty INFO would end doctest's report of the check
    INFO("element ", i, ": yours ", yours, ", autograd ", want);
    CHECK_MESSAGE(std::fabs(estimate.at({i}) - x.grad().at({i})) <= 1e-9,
                  "within 1e-9 takes the central difference, (f(x + h) - f(x - h)) / "
                  "2h, with only element i moved in each point: the forward "
                  "difference is off by about 1e-6, and a step left over from another "
                  "element by far more");
  }
}
