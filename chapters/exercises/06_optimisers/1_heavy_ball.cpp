// Exercise 6.1 · The heavy ball by hand
// =====================================
//
// Write one step of the heavy ball, :math:`x_{t+1} = x_t - \alpha \nabla f(x_t) +
// \beta (x_t - x_{t-1})`, on plain numbers: given the current point, the previous one
// and the gradient at the current point, move to the next point and remember the
// current one as the previous. The tests compare 50 of your steps with litgrad's
// ``optim::SGD`` with momentum on a bowl (to :math:`10^{-13}`, as section 2 derived),
// and check that with section 2's best settings the error at :math:`\kappa = 400`
// falls below :math:`10^{-6}` within 250 steps (section 2's formula gives about 190).

// %% hint
// Compute the new point from the old values first, then shift: previous = current,
// current = new. On the first step, previous equals current, so the momentum term is 0.

// %% fold: includes, and the bowl
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// The gradient of (x1² + κ x2²)/2.
std::vector<double> bowl_gradient(const std::vector<double>& x, double kappa) {
  return {x[0], kappa * x[1]};
}
}  // namespace

// %%
// The function to write, in ``exercises/06_optimisers/1_heavy_ball.cpp``:

void heavy_ball_step(std::vector<double>& x, std::vector<double>& previous,
                     const std::vector<double>& gradient, double rate, double beta);

// %% fold: two steps by hand, and what yours point to
namespace {
// Two of your steps in one dimension from x = 1 at rest, with gradient 1 each time,
// rate 0.1 and β = 0.5: the first goes to 1 - 0.1 = 0.9, the second to
// 0.9 - 0.1 + 0.5·(0.9 - 1) = 0.75. The mistake your two points point to.
std::string steps_problem() {
  std::vector<double> x = {1}, previous = {1};
  heavy_ball_step(x, previous, {1}, 0.1, 0.5);
  const double first = x[0];
  heavy_ball_step(x, previous, {1}, 0.1, 0.5);
  const double second = x[0];
  std::string s =
      "from x = 1 at rest with gradient 1, rate 0.1, β = 0.5, your steps go "
      "to " +
      exercise::number(first) + " and " + exercise::number(second) +
      " (0.9 and 0.75 are right)";
  const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-12; };
  if (near(first, 1.1))
    return s + ": uphill, against the gradient; this points to a step up the gradient";
  if (near(first, 0.9) && near(second, 0.8))
    return s +
           ": the second step is plain gradient descent, without momentum; this "
           "points to the previous point overwritten before it is used";
  if (near(first, 0.9) && near(second, 0.85))
    return s +
           ": the momentum pulls back the way the ball came; this points to the "
           "momentum term's sign flipped";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("50 steps agree with litgrad's SGD with momentum to 1e-13") {
  const std::string why = exercise::quietly(steps_problem);
  INFO(why);
  const double kappa = 50, rate = 0.03, beta = 0.8;
  Tensor t = tensor({1, 1}).requires_grad_();
  optim::SGD sgd({t}, {rate, beta});
  std::vector<double> x = {1, 1}, previous = x;
  for (int step = 0; step < 50; ++step) {
    sgd.zero_grad();
    (0.5 * sum(tensor({1, kappa}) * t * t)).backward();
    sgd.step();
    heavy_ball_step(x, previous, bowl_gradient(x, kappa), rate, beta);
  }
  CHECK(exercise::agrees(x, t.to_vector(), 1e-13));
}

TEST_CASE(
    "with the best settings, the error at κ = 400 is below 1e-6 within 250 steps") {
  const std::string why = exercise::quietly(steps_problem);
  INFO(why);
  const double kappa = 400, root = 20;
  const double rate = 4 / ((1 + root) * (1 + root)), beta = std::pow(19.0 / 21, 2);
  std::vector<double> x = {1, 1}, previous = x;
  int steps = 0;
  while (std::hypot(x[0], x[1]) > 1e-6 * std::sqrt(2.0) && steps < 250) {
    heavy_ball_step(x, previous, bowl_gradient(x, kappa), rate, beta);
    ++steps;
  }
  INFO("steps: ", steps, ", error ", exercise::number(std::hypot(x[0], x[1])));
  CHECK(std::hypot(x[0], x[1]) <= 1e-6 * std::sqrt(2.0));
}
