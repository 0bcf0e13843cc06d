// Exercise 3.4 · The loop with autograd, and no optimiser
// =======================================================
//
// Write the training loop torch users write first, with chapter 2's autograd finding
// the gradient and your own code taking the step: no ``optim`` class.
// ``descend_with_autograd(x, y, lr, steps)`` starts from :math:`w = b = 0`, two
// scalar tensors that require grad, and repeats ``steps`` times:
//
// 1. the forward pass: the mean squared error of the line :math:`w x + b` against
//    :math:`y` (``mse_loss``, or the mean of the squares);
// 2. ``backward()``;
// 3. the step :math:`w \leftarrow w - \eta\, \partial L/\partial w`, and the same for
//    :math:`b`, written on the tensors themselves (``w -= lr * w.grad()``) inside a
//    ``NoGradGuard``;
// 4. whatever else the next step needs.
//
// It returns the line before the first step and after each step: ``steps + 1`` lines.
//
// The tests hold your path to the reference loop's, point for point, within what
// rounding can explain when your arithmetic runs in another order (``mse_loss`` or a
// mean of squares, a residual written :math:`y - (w x + b)`): a sum of :math:`n`
// terms in any order lies within :math:`(n + 4)u` of the sizes of its terms from the
// exact sum, so each step's gradients may differ by that much of
// :math:`\frac2n \sum_i |r_i|(|x_i| + 1)`, and a step at a stable rate shrinks every
// earlier difference (section 4), so the differences at most add up, from both loops.
// A wrong loop strays by many orders of magnitude more. Then 600 steps at the largest
// stable rate must land on the normal equations' line, as exercise 3.3's do.

// %% hint
// ``backward()`` adds each gradient into ``w.grad()``; nothing clears it for you. Why
// must the step itself not be recorded, and what would ``w = w - lr * w.grad()`` make
// of ``w``?

// %% fold: includes, the data, the reference loop with each catalogued mistake
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

struct Line {
  double w = 0, b = 0;
};

std::vector<Line> descend_with_autograd(const Tensor& x, const Tensor& y, double lr,
                                        int steps);

namespace {
struct Points {
  Tensor x, y;
};
Points noisy_line(std::uint64_t seed) {  // exercise 3.3's: 100 points, x in [0, 2]
  Generator gen(seed);
  const Tensor x = uniform({100}, 0, 2, gen);
  return {x, 1.5 * x - 0.7 + 0.2 * randn({100}, gen)};
}

// The reference loop, with the catalogued mistakes as switches.
struct Variant {
  bool no_zero = false, unguarded = false, rebound = false, uphill = false;
  bool zeroed_before_step = false, summed = false;
};

std::vector<Line> reference_loop(const Tensor& x, const Tensor& y, double lr, int steps,
                                 const Variant& v = {}) {
  Tensor w = scalar_tensor(0).requires_grad_(), b = scalar_tensor(0).requires_grad_();
  std::vector<Line> path = {{0, 0}};
  for (int t = 0; t < steps; ++t) {
    const Tensor squares = pow(x * w + b - y, 2.0);
    (v.summed ? sum(squares) : mean(squares)).backward();
    if (v.zeroed_before_step) w.zero_grad(), b.zero_grad();
    const double sign = v.uphill ? -1 : 1;
    if (v.rebound) {
      NoGradGuard no_grad;
      w = w - sign * lr * w.grad();
      b = b - sign * lr * b.grad();
    } else if (v.unguarded) {
      w -= sign * lr * w.grad();
      b -= sign * lr * b.grad();
    } else {
      NoGradGuard no_grad;
      w -= sign * lr * w.grad();
      b -= sign * lr * b.grad();
    }
    if (!v.no_zero) w.zero_grad(), b.zero_grad();
    path.push_back({w.item(), b.item()});
  }
  return path;
}

// What a loop did: its path, or the error it stopped with.
struct Outcome {
  std::vector<Line> path;
  std::string error;
};

template <class Loop>
Outcome outcome(Loop loop) {
  Outcome o;
  try {
    o.path = loop();
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

bool near(const Outcome& a, const Outcome& b) {
  if (a.error != b.error || a.path.size() != b.path.size()) return false;
  for (std::size_t t = 0; t < a.path.size(); ++t)
    if (std::fabs(a.path[t].w - b.path[t].w) > 1e-9 ||
        std::fabs(a.path[t].b - b.path[t].b) > 1e-9)
      return false;
  return true;
}

std::string mistake_behind(const Points& p, double lr, int steps,
                           const Outcome& yours) {
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {{true, false, false, false, false, false}, "the gradients never cleared"},
      {{false, true, false, false, false, false}, "the step taken while recording"},
      {{false, false, true, false, false, false},
       "the parameter replaced by a new tensor instead of updated"},
      {{false, false, false, true, false, false}, "a step up the gradient"},
      {{false, false, false, false, true, false},
       "the gradients cleared before the step"},
      {{false, false, false, false, false, true},
       "the squared errors summed, not averaged"}};
  const std::string name = exercise::the_mistake(mistakes, [&](const Variant& v) {
    return near(outcome([&] { return reference_loop(p.x, p.y, lr, steps, v); }), yours);
  });
  return name.empty() ? "" : "your loop does exactly what " + name + " does";
}

// How far rounding may put a right loop from the reference's after each step: each
// step's gradients within (n + 4)u of (2/n) Σ|r_i|(|x_i| + 1), taken along the
// reference's path, times the rate, added up, for both loops.
std::vector<double> allowance(const Points& p, const std::vector<Line>& path,
                              double lr) {
  const std::vector<double> x = p.x.to_vector(), y = p.y.to_vector();
  const double n = static_cast<double>(x.size()), u = 0x1p-53;
  std::vector<double> a = {0};
  for (std::size_t t = 0; t + 1 < path.size(); ++t) {
    double sizes = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      sizes += std::fabs(path[t].w * x[i] + path[t].b - y[i]) * (std::fabs(x[i]) + 1);
    a.push_back(a.back() + lr * (n + 4) * u * 2 / n * sizes);
  }
  for (double& each : a) each *= 2;
  return a;
}

void check_path(std::uint64_t seed, double lr, int steps) {
  const Points p = noisy_line(seed);
  const Outcome yours =
      outcome([&] { return descend_with_autograd(p.x, p.y, lr, steps); });
  const std::vector<Line> expected = reference_loop(p.x, p.y, lr, steps);
  const std::string why = exercise::quietly(mistake_behind, p, lr, steps, yours);
  INFO(why);
  REQUIRE_MESSAGE(yours.error.empty(), "your loop stopped: ", yours.error);
  REQUIRE_MESSAGE(yours.path.size() == expected.size(), "your path has ",
                  yours.path.size(), " lines where ", expected.size(),
                  " were expected: the start, then one after each step");
  const std::vector<double> allowed = allowance(p, expected, lr);
  for (std::size_t t = 0; t < expected.size(); ++t) {
    INFO("after step ", t, " of seed ", seed, ": yours (",
         exercise::number(yours.path[t].w), ", ", exercise::number(yours.path[t].b),
         "), the reference loop's (", exercise::number(expected[t].w), ", ",
         exercise::number(expected[t].b), "); rounding allows ",
         exercise::number(allowed[t]));
    REQUIRE(std::fabs(yours.path[t].w - expected[t].w) <= allowed[t]);
    REQUIRE(std::fabs(yours.path[t].b - expected[t].b) <= allowed[t]);
  }
}
}  // namespace

// %%
// The function to write, in ``exercises/03_fitting_a_line/4_autograd_loop.cpp``:

std::vector<Line> descend_with_autograd(const Tensor& x, const Tensor& y, double lr,
                                        int steps);

// %%
// The tests.

TEST_CASE("50 steps at rate 0.1: your path is the reference loop's, point for point") {
  check_path(1, 0.1, 50);
  check_path(2, 0.1, 50);
}

TEST_CASE("600 steps at rate 1/λ_max land on the normal equations' line") {
  // As in exercise 3.3: the distance shrinks by about 0.93 a step, some 10^-18 in all.
  const Points p = noisy_line(3);
  const double n = 100, a = 2 * sum(p.x * p.x).item() / n, c = 2 * sum(p.x).item() / n;
  const double lambda_max = (a + 2) / 2 + std::sqrt((a - 2) * (a - 2) / 4 + c * c);
  const Outcome yours =
      outcome([&] { return descend_with_autograd(p.x, p.y, 1 / lambda_max, 600); });
  REQUIRE_MESSAGE(yours.error.empty(), "your loop stopped: ", yours.error);
  REQUIRE_MESSAGE(yours.path.size() == 601u, "your path has ", yours.path.size(),
                  " lines where 601 were expected");
  const double sx = sum(p.x).item(), sxx = sum(p.x * p.x).item();
  const double sy = sum(p.y).item(), sxy = sum(p.x * p.y).item(),
               det = sxx * n - sx * sx;
  const Line best{(sxy * n - sx * sy) / det, (sxx * sy - sx * sxy) / det};
  const Line found = yours.path.back();
  INFO("yours (", found.w, ", ", found.b, "), the normal equations' (", best.w, ", ",
       best.b, ")");
  CHECK(std::hypot(found.w - best.w, found.b - best.b) <= 1e-10);
}
