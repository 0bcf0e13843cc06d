// Exercise 3.2 · The best plane
// =============================
//
// Fit :math:`\hat y = w_1 x_1 + w_2 x_2 + b` by least squares: write the three normal
// equations (the gradient of the mean squared error with respect to :math:`w_1`,
// :math:`w_2` and :math:`b`, set to zero) and solve them. At the solution the residuals
// are orthogonal to :math:`x_1`, to :math:`x_2` and to 1; the tests check that to
// :math:`10^{-10}`, the rounding of sums of 300 terms of size about 10 with room to
// spare, and that a plane made without noise is found to :math:`10^{-12}`.

// %% hint
// Section 2 wrote the normal equations as :math:`X^T X \theta = X^T y` for a matrix
// :math:`X` with a column per input and a column of ones. Nothing in that derivation
// cared how many columns there were.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/03_fitting_a_line/2_plane.cpp``:

struct Plane {
  double w1 = 0, w2 = 0, b = 0;
};
Plane best_plane(const Tensor& x1, const Tensor& x2, const Tensor& y);

// %%
// The tests.

TEST_CASE("the residuals are orthogonal to x1, x2 and 1, to 1e-10") {
  Generator gen(4);
  const Tensor x1 = randn({300}, gen), x2 = randn({300}, gen) + 0.5 * x1;
  const Tensor y = 3 * x1 - 2 * x2 + 1 + 0.5 * randn({300}, gen);
  const Plane p = best_plane(x1, x2, y);
  const Tensor r = p.w1 * x1 + p.w2 * x2 + p.b - y;
  INFO("your plane: w1 = ", p.w1, ", w2 = ", p.w2, ", b = ", p.b);
  CHECK_MESSAGE(std::fabs(sum(r).item()) < 1e-10,
                "at the best plane the residuals sum to zero (orthogonal to the column "
                "of ones); fitting each input on its own, with the inputs correlated, "
                "misses it");
  CHECK_MESSAGE(std::fabs(sum(r * x1).item()) < 1e-10,
                "the residuals are orthogonal to x1: every equation's right-hand side "
                "is a column times y, carried through the elimination");
  CHECK_MESSAGE(std::fabs(sum(r * x2).item()) < 1e-10,
                "the residuals are orthogonal to x2");
}

TEST_CASE("a plane without noise is found to 1e-12") {
  Generator gen(5);
  const Tensor x1 = randn({50}, gen), x2 = randn({50}, gen);
  const Plane p = best_plane(x1, x2, 0.25 * x1 + 4 * x2 - 3);
  INFO("your plane: w1 = ", p.w1, ", w2 = ", p.w2, ", b = ", p.b);
  CHECK_MESSAGE(std::fabs(p.w1 - 0.25) < 1e-12,
                "w1 = 0.25: the coefficient of x1, "
                "returned first");
  CHECK_MESSAGE(std::fabs(p.w2 - 4) < 1e-12, "w2 = 4, the coefficient of x2");
  CHECK_MESSAGE(std::fabs(p.b + 3) < 1e-12, "b = -3, the coefficient of the ones");
}
