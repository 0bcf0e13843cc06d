// Exercise 2.1 · The derivative of softplus
// =========================================
//
// The *softplus* :math:`s(x) = \log(1 + e^x)` is a smooth relu. Work out its derivative
// by hand and write it as a function of :math:`x`. The tests compare it with what
// litgrad's autograd gets for ``log(1 + exp(x))``, which chains the derivatives of
// ``exp``, ``+`` and ``log``: the two should agree to a few roundings, within
// :math:`10^{-15}` relative. And your formula should stay sensible where :math:`e^x` is
// huge: at :math:`x = 40` the slope of softplus is 1 to within :math:`e^{-40}`, which
// is 1.0 in double precision.

// %% hint
// The chain rule gives :math:`e^x / (1 + e^x)`. Dividing top and bottom by :math:`e^x`
// gives a form that never forms a huge number: it is a function you have met.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/02_derivatives/1_softplus.cpp``:

double softplus_derivative(double x);

// %%
// The tests.

TEST_CASE(
    "the derivative agrees with litgrad's autograd to 1e-15 relative on [-5, 5]") {
  for (double x = -5; x <= 5; x += 0.5) {
    const Tensor t = tensor({x}).requires_grad_();
    sum(log(1.0 + exp(t))).backward();
    const double autograd = t.grad().at({0});
    INFO("x = ", x, ": autograd ", autograd, ", yours ", softplus_derivative(x));
    CHECK(std::fabs(softplus_derivative(x) - autograd) <= 1e-15 * std::fabs(autograd));
  }
}

TEST_CASE("far out the slope is 1 on the right and 0 on the left, as a double") {
  CHECK(softplus_derivative(40) == 1.0);
  CHECK(softplus_derivative(800) == 1.0);
  CHECK(softplus_derivative(-800) == 0.0);
}
