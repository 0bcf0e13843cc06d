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
// With the columns 1, x1, x2 the normal equations read M θ = v, where M[i][j] is the
// sum of column i times column j and v[i] the sum of column i times y. Solve the 3 × 3
// system by Gaussian elimination (or Cramer's rule).

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/03_fitting_a_line/2_plane.cpp``:

struct Plane {
  double w1 = 0, w2 = 0, b = 0;
};
Plane best_plane(const Tensor& x1, const Tensor& x2, const Tensor& y);

// %% fold: what your plane for a plane without noise points to
namespace {
// Your plane for y = 0.25 x1 + 4 x2 - 3 exactly, and the mistake it points to. Which of
// the three normal equations it satisfies says how far a solve went right: elimination
// keeps the first pivot's equation (here the sum of residuals) whatever it does to the
// others, and back substitution finds the last unknown (w2) before it needs the others.
std::string plane_problem() {
  Generator gen(5);
  const Tensor x1 = randn({50}, gen), x2 = randn({50}, gen);
  const Tensor y = 0.25 * x1 + 4 * x2 - 3;
  const Plane p = best_plane(x1, x2, y);
  const Tensor r = p.w1 * x1 + p.w2 * x2 + p.b - y;
  const double r1 = sum(r).item(), rx1 = sum(r * x1).item(), rx2 = sum(r * x2).item();
  std::string s = "for y = 0.25 x1 + 4 x2 - 3 yours is w1 = " + exercise::number(p.w1) +
                  ", w2 = " + exercise::number(p.w2) + ", b = " + exercise::number(p.b);
  const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-9; };
  if (near(p.w1, -3))
    return s +
           ": the intercept, -3, is in w1; this points to the intercept returned as "
           "w1";
  if (std::fabs(r1) < 1e-9 && (std::fabs(rx1) > 1e-6 || std::fabs(rx2) > 1e-6))
    return s +
           ": the residuals sum to 0 but are not orthogonal to x1 and x2, so only "
           "the first equation holds; this points to elimination that skips the "
           "right-hand side";
  if (near(p.w2, 4) && !(near(p.w1, 0.25) && near(p.b, -3)))
    return s +
           ": w2, the last unknown solved, is right and the others are not; this "
           "points to back substitution that ignores the solved unknowns";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("the residuals are orthogonal to x1, x2 and 1, to 1e-10") {
  const std::string why = exercise::quietly(plane_problem);
  INFO(why);
  Generator gen(4);
  const Tensor x1 = randn({300}, gen), x2 = randn({300}, gen) + 0.5 * x1;
  const Tensor y = 3 * x1 - 2 * x2 + 1 + 0.5 * randn({300}, gen);
  const Plane p = best_plane(x1, x2, y);
  const Tensor r = p.w1 * x1 + p.w2 * x2 + p.b - y;
  INFO("the sums of the residuals r, r·x1 and r·x2: ", exercise::number(sum(r).item()),
       ", ", exercise::number(sum(r * x1).item()), ", ",
       exercise::number(sum(r * x2).item()));
  CHECK(std::fabs(sum(r).item()) < 1e-10);
  CHECK(std::fabs(sum(r * x1).item()) < 1e-10);
  CHECK(std::fabs(sum(r * x2).item()) < 1e-10);
}

TEST_CASE("a plane without noise is found to 1e-12") {
  const std::string why = exercise::quietly(plane_problem);
  INFO(why);
  Generator gen(5);
  const Tensor x1 = randn({50}, gen), x2 = randn({50}, gen);
  const Plane p = best_plane(x1, x2, 0.25 * x1 + 4 * x2 - 3);
  CHECK(std::fabs(p.w1 - 0.25) < 1e-12);
  CHECK(std::fabs(p.w2 - 4) < 1e-12);
  CHECK(std::fabs(p.b + 3) < 1e-12);
}
