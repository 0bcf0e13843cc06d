// Exercise 3.3 · Gradient descent by hand
// =======================================
//
// Write section 3's loop yourself: gradient descent on the mean squared error of the
// line :math:`w x + b`, from :math:`(0, 0)`, for ``steps`` steps of rate ``lr``, with
// the gradient worked out and computed by you (no ``backward``, no optimiser). Return
// the line it ends on. The tests check your first step against the formula, that a long
// run lands on the normal equations' line, and section 5's promise that on standardised
// inputs a single step of rate 1/2 is enough.

// %% hint
// Differentiate :math:`\frac1n \sum_i (w x_i + b - y_i)^2` with respect to :math:`w`
// and to :math:`b` (the chain rule brings down a factor from the square). Both partial
// derivatives belong to the same point :math:`(w, b)`: compute both before you change
// either.

// %% fold: includes, and the normal equations to compare with
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Line {
  double w = 0, b = 0;
};

namespace {
// The least-squares line by the normal equations (section 2).
Line normal_equations(const Tensor& x, const Tensor& y) {
  const double n = static_cast<double>(x.numel());
  const double sx = sum(x).item(), sxx = sum(x * x).item();
  const double sy = sum(y).item(), sxy = sum(x * y).item(), det = sxx * n - sx * sx;
  return {(sxy * n - sx * sy) / det, (sxx * sy - sx * sxy) / det};
}
struct Points {
  Tensor x, y;
};
Points noisy_line(std::uint64_t seed) {
  Generator gen(seed);
  const Tensor x = uniform({100}, 0, 2, gen);  // not centred: the bowl is tilted
  return {x, 1.5 * x - 0.7 + 0.2 * randn({100}, gen)};
}
}  // namespace

// %%
// The function to write, in ``exercises/03_fitting_a_line/3_descent.cpp``:

Line descend_by_hand(const Tensor& x, const Tensor& y, double lr, int steps);

// %%
// The tests.

TEST_CASE("the first step from (0, 0) is -lr times the gradient there") {
  // At (0, 0) every residual is -y_i, so the gradient is -(2/n) (sum x_i y_i, sum y_i).
  const Points p = noisy_line(1);
  const double n = 100, lr = 0.1;
  const Line step = descend_by_hand(p.x, p.y, lr, 1);
  const double w1 = lr * 2 / n * sum(p.x * p.y).item(),
               b1 = lr * 2 / n * sum(p.y).item();
  const double ratio = step.w / w1;
  const auto near = [&](double k) {
    return std::fabs(ratio - k) <= 1e-12 * std::fabs(k);
  };
  const std::string why =
      near(0.5) ? "your w moved half as far: this points to the factor 2 of the square "
                  "forgotten"
      : near(n) ? "your w moved n times as far: this points to a sum where the mean "
                  "belongs"
      : near(-1.0) ? "your w moved the other way: this points to a step up the gradient"
      : step.w == 0.0 && step.b == 0.0
          ? "your line did not move: this points to an integer division, 2 / n "
            "with n an integer being 0"
          : "";
  INFO(why);  // first: a later empty INFO would end doctest's report of the check
  INFO("your step (", step.w, ", ", step.b, "), the formula's (", w1, ", ", b1, ")");
  CHECK_MESSAGE(std::fabs(step.w - w1) <= 1e-14 * std::fabs(w1),
                "w moves by lr (2/n) sum x_i y_i: check the factor 2 the square brings "
                "down, the 1/n of the mean, and that the step goes against the "
                "gradient");
  CHECK_MESSAGE(std::fabs(step.b - b1) <= 1e-14 * std::fabs(b1),
                "b moves by lr (2/n) sum y_i, its gradient taken at (0, 0) like w's: "
                "w right and b wrong points to w updated before b's gradient is "
                "taken");
}

TEST_CASE("a long run at rate 1/λ_max lands on the normal equations' line") {
  // H = (2/n) [[Σx², Σx], [Σx, n]]; at rate 1/λ_max the distance shrinks by
  // 1 - λ_min/λ_max per step (section 4): here about 0.93, so 600 steps shrink it by
  // some 10^-18, far below the 1e-10 the test allows for rounding.
  for (std::uint64_t seed : {2, 3}) {
    const Points p = noisy_line(seed);
    const double n = 100, a = 2 * sum(p.x * p.x).item() / n,
                 c = 2 * sum(p.x).item() / n;
    const double lambda_max = (a + 2) / 2 + std::sqrt((a - 2) * (a - 2) / 4 + c * c);
    const Line found = descend_by_hand(p.x, p.y, 1 / lambda_max, 600),
               best = normal_equations(p.x, p.y);
    INFO("seed ", seed, ": yours (", found.w, ", ", found.b,
         "), the normal equations' (", best.w, ", ", best.b, ")");
    CHECK_MESSAGE(std::hypot(found.w - best.w, found.b - best.b) <= 1e-10,
                  "600 steps land on the best line: a step of the wrong size or sign "
                  "converges too slowly or not at all");
  }
}

TEST_CASE("on standardised inputs one step of rate 1/2 lands on the best line") {
  const Points p = noisy_line(4);
  const double mean_x = mean(p.x).item();
  const double sd_x = std::sqrt(mean(pow(p.x - mean_x, 2.0)).item());
  const Tensor standard = (p.x - mean_x) / sd_x;
  const Line found = descend_by_hand(standard, p.y, 0.5, 1),
             best = normal_equations(standard, p.y);
  INFO("yours (", found.w, ", ", found.b, "), the normal equations' (", best.w, ", ",
       best.b, ")");
  CHECK_MESSAGE(std::hypot(found.w - best.w, found.b - best.b) <= 1e-12,
                "standardised, the Hessian is twice the identity, so one step of rate "
                "1/2 goes all the way: a gradient off by a constant factor stops short "
                "or overshoots");
}
