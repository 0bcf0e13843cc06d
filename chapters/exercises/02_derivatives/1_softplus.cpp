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
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/02_derivatives/1_softplus.cpp``:

double softplus_derivative(double x);

// %% fold: what a wrong slope looks like, in words
namespace {
// What `yours` at x says, compared with autograd's slope there.
std::string slope_problem(double x, double yours, double autograd) {
  if (std::isnan(yours) || std::isinf(yours))
    return "yours is not a number: a huge e^x divided by another huge one (inf / inf) "
           "is NaN; this points to e^x / (1 + e^x) overflowing";
  if (std::fabs(yours - (1 - autograd)) <= 1e-12)
    return "yours falls where softplus rises (yours + autograd's = 1): this points to "
           "the sign of x flipped";
  if (std::fabs(yours - std::log1p(std::exp(x))) <= 1e-12 * (1 + std::fabs(yours)))
    return "yours is softplus's value, log(1 + e^x), not its slope: this points to "
           "softplus instead of its derivative";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the derivative agrees with litgrad's autograd to 1e-15 relative on [-5, 5]") {
  for (double x = -5; x <= 5; x += 0.5) {
    const Tensor t = tensor({x}).requires_grad_();
    sum(log(1.0 + exp(t))).backward();
    const double autograd = t.grad().at({0}), yours = softplus_derivative(x);
    INFO("x = ", x, ": autograd ", exercise::number(autograd), ", yours ",
         exercise::number(yours));
    CHECK_MESSAGE(std::fabs(yours - autograd) <= 1e-15 * std::fabs(autograd),
                  slope_problem(x, yours, autograd));
  }
}

TEST_CASE("far out the slope is 1 on the right and 0 on the left, as a double") {
  for (const auto& [x, slope] : {std::pair{40.0, 1.0}, {800.0, 1.0}, {-800.0, 0.0}}) {
    const double yours = softplus_derivative(x);
    INFO("x = ", x, ": yours ", exercise::number(yours), ", expected ", slope);
    CHECK_MESSAGE(yours == slope, slope_problem(x, yours, slope));
  }
}
