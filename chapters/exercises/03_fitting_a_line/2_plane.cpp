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

// %% fold: includes, and what a wrong plane looks like
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// Which of the usual wrong answers the numbers (w1, w2, b) are, in words: a plane that
// does not depend on y, or the numbers of a plane whose residuals sum to zero when read
// in another order.
std::string what_is_wrong(double w1, double w2, double b, const Tensor& x1,
                          const Tensor& x2, const Tensor& y) {
  if (std::fabs(w1) < 1e-9 && std::fabs(w2) < 1e-9)
    return "your plane does not move with the inputs at all: this points to the "
           "right-hand side without y";
  double c[3] = {w1, w2, b};
  std::sort(c, c + 3);
  do {
    const bool same = c[0] == w1 && c[1] == w2 && c[2] == b;
    if (!same && std::fabs(sum(c[0] * x1 + c[1] * x2 + c[2] - y).item()) < 1e-9)
      return "your three numbers, in another order, have residuals that sum to zero: "
             "this points to the coefficients returned in column order";
  } while (std::next_permutation(c, c + 3));
  return "";
}
}  // namespace

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
  const std::string why = what_is_wrong(p.w1, p.w2, p.b, x1, x2, y);
  INFO(why);  // first: a later empty INFO would end doctest's report of the check
  INFO("your plane: w1 = ", p.w1, ", w2 = ", p.w2, ", b = ", p.b);
  CHECK_MESSAGE(std::fabs(sum(r).item()) < 1e-10,
                "at the best plane the residuals sum to zero (orthogonal to the column "
                "of ones); fitting each input on its own, with the inputs correlated, "
                "misses it");
  CHECK_MESSAGE(std::fabs(sum(r * x1).item()) < 1e-10,
                "the residuals are orthogonal to x1: every equation's right-hand side "
                "is a column times y, and one not carried along points to the "
                "elimination leaves the right-hand side behind");
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
