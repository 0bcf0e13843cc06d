// Exercise 2.3 · A numerical gradient of a tensor function
// ========================================================
//
// Write section 1's estimate for a function of a whole tensor: the gradient of a
// scalar-valued :math:`f` at :math:`x`, one element at a time, each estimated by the
// central difference with step :math:`h`. This is what :cpp:func:`litgrad::gradcheck`
// does inside. The test compares your estimate with litgrad's autograd for a
// softmax-weighted sum of :math:`x`: with :math:`h = 10^{-5}` section 1's error bound
// gives about :math:`10^{-10}`, and we allow :math:`10^{-9}`, which the forward
// difference (error about :math:`h/2 \cdot |f''|`, :math:`10^{-6}`) misses.

// %% hint
// Copy x, change one element by +h, evaluate, change it by -h, evaluate, and put (f(x +
// h) - f(x - h)) / (2h) in that element of the result. f takes a Tensor and returns a
// one-element Tensor (use .item()); evaluate it with gradients off.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/02_derivatives/3_numerical_gradient.cpp``:

Tensor numerical_gradient(const std::function<Tensor(const Tensor&)>& f,
                          const Tensor& x, double h);

// %% fold: what a wrong estimate points to
namespace {
std::string estimate_problem(const Tensor& yours, const Tensor& autograd) {
  const double error = max(abs(yours - autograd)).item();
  if (max(abs(yours + autograd)).item() <= 1e-9)
    return "yours is autograd's gradient with every sign flipped: this points to the "
           "difference taken the wrong way round";
  if (max(yours).item() - min(yours).item() <= 1e-9 && max(abs(yours)).item() > 1e-6)
    return "every element of yours is the same number, the slope along all the "
           "elements at once: this points to every element nudged at once";
  if (error > 1e-8 && error < 1e-3)
    return "an error of about h·|f''|/2, the size of a one-sided difference's: this "
           "points to the forward difference";
  return "";
}
}  // namespace

// %%
// The test.

TEST_CASE(
    "the central-difference gradient of a softmax-weighted sum agrees with autograd to "
    "1e-9") {
  const auto f = [](const Tensor& x) { return sum(softmax(x, 0) * x * x); };
  Generator gen(3);
  const Tensor x = randn({6}, gen).requires_grad_();
  f(x).backward();
  const Tensor estimate = numerical_gradient(f, x.detach(), 1e-5);
  REQUIRE(estimate.shape() == x.shape());
  CHECK_MESSAGE(exercise::agrees(estimate, x.grad(), 1e-9),
                estimate_problem(estimate, x.grad()));
}
