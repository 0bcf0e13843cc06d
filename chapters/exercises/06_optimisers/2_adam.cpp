// Exercise 6.2 · Adam by hand
// ===========================
//
// Write Adam's step on plain numbers, with its two running averages and their bias
// corrections, as section 2 described: :math:`m \leftarrow \beta_1 m + (1 - \beta_1)
// g`, :math:`v \leftarrow \beta_2 v + (1 - \beta_2) g^2`,
// :math:`\hat m = m / (1 - \beta_1^t)`, :math:`\hat v = v / (1 - \beta_2^t)`, :math:`x
// \leftarrow x - \eta \hat m / (\sqrt{\hat v} + \epsilon)`. The tests check your
// first step against :math:`-\eta g / (|g| + \epsilon)`, and 30 steps against
// litgrad's ``optim::Adam``, to :math:`10^{-14}` of the rate (litgrad orders the same
// operations a little differently, as torch does, so the roundings differ by a few
// :math:`u` per step).

// %% hint
// Keep t, m and v in the state, one m and one v per coordinate, all starting at 0;
// increase t before using it, so the first step has t = 1.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The state and the function to write, in ``exercises/06_optimisers/2_adam.cpp``:

struct AdamState {
  int t = 0;                 // steps taken
  std::vector<double> m, v;  // the running averages, one per coordinate
};
void adam_step(std::vector<double>& x, AdamState& state,
               const std::vector<double>& gradient, double lr, double beta1 = 0.9,
               double beta2 = 0.999, double eps = 1e-8);

// %% fold: two steps with a constant gradient, and the mistake yours point to
namespace {
// Two of your steps from x = 0 with the gradient 4 both times and lr = 0.1. With bias
// correction both averages are exact for a constant gradient (m̂ = 4, v̂ = 16), so each
// step has the length lr·4/(4 + ε), almost exactly 0.1.
std::string two_steps() {
  std::vector<double> x = {0};
  AdamState state;
  state.m.assign(1, 0), state.v.assign(1, 0);
  adam_step(x, state, {4}, 0.1);
  const double first = -x[0];
  adam_step(x, state, {4}, 0.1);
  const double second = -x[0] - first;
  const std::string s =
      "with the gradient 4 twice and lr = 0.1 your steps have the "
      "lengths " +
      std::to_string(first) + " and " + std::to_string(second) + " (0.1 each is right)";
  const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-3 * b; };
  if (!std::isfinite(first))
    return s +
           ": the first step divides by 1 - β^0 = 0; this points to the step "
           "count increased after it is used";
  if (near(first, 0.2))
    return s +
           ": the first is lr·g/√g, as if v averaged g; this points to the second "
           "moment from g instead of g²";
  if (near(first, 0.1 * std::sqrt(10.0)))
    return s +
           ": the first is √10 times too long, the ratio of averages that start at 0 "
           "and were never corrected; this points to Adam without its bias correction";
  if (near(first, 0.9))
    return s +
           ": the first is 9 times too long; this points to the running average's "
           "weights swapped";
  if (near(first, 0.1) && !near(second, 0.1))
    return s +
           ": the first step is right and the second is not, so the correction "
           "does not follow the step count; this points to the bias correction "
           "without the power t";
  // A tiny gradient shows where ε sits: the right first step is lr·g/(g + ε) = 0.05 for
  // g = ε = 1e-8; with ε under the root it is lr·g/√(g² + ε), about 1e-5.
  std::vector<double> y = {0};
  AdamState fresh;
  fresh.m.assign(1, 0), fresh.v.assign(1, 0);
  adam_step(y, fresh, {1e-8}, 0.1);
  if (near(-y[0], 1e-5))
    return s + "; with the gradient 1e-8 your first step is " + std::to_string(-y[0]) +
           " where 0.05 is right: ε was added under the square root; this points to ε "
           "inside the square root";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the first step moves each coordinate by lr·g/(|g| + eps) against its gradient") {
  INFO(two_steps());
  std::vector<double> x = {0, 0, 0};
  const std::vector<double> g = {1e-3, -2.0, 50.0};
  AdamState state;
  state.m.assign(3, 0), state.v.assign(3, 0);
  adam_step(x, state, g, 0.1);
  for (int i = 0; i < 3; ++i)
    CHECK(std::fabs(x[i] + 0.1 * g[i] / (std::fabs(g[i]) + 1e-8)) < 1e-15);
}

TEST_CASE("30 steps on a bowl agree with litgrad's Adam to 1e-14 of the rate") {
  INFO(two_steps());
  const double lr = 0.05;
  Tensor t = tensor({1, -2}).requires_grad_();
  optim::Adam adam({t}, {lr});
  std::vector<double> x = {1, -2};
  AdamState state;
  state.m.assign(2, 0), state.v.assign(2, 0);
  for (int step = 0; step < 30; ++step) {
    adam.zero_grad();
    (0.5 * sum(tensor({1, 30}) * t * t)).backward();
    adam.step();
    adam_step(x, state, {x[0], 30 * x[1]}, lr);
  }
  CHECK(std::fabs(x[0] - t.at({0})) < 1e-14 * lr);
  CHECK(std::fabs(x[1] - t.at({1})) < 1e-14 * lr);
}
