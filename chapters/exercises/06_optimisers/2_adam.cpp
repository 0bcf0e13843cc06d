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
// :math:`u` per step). The tests hand your step a state whose ``m`` and ``v`` already
// have one 0 for each coordinate, and ``t = 0``.

// %% hint
// Keep t, m and v in the state, one m and one v per coordinate, all starting at 0;
// increase t before using it, so the first step has t = 1.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

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

// %% fold: Adam with each catalogued mistake, and the one yours is
namespace {
// The test's own Adam step, with the catalogued mistakes as switches.
struct Variant {
  bool late_count = false, g_not_squared = false, no_power = false;
  bool swapped = false, uncorrected = false, eps_inside = false;
};

void variant_step(std::vector<double>& x, AdamState& s, const std::vector<double>& g,
                  double lr, const Variant& v) {
  const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  if (!v.late_count) ++s.t;
  const double fill1 = v.no_power ? 1 - beta1 : 1 - std::pow(beta1, s.t),
               fill2 = v.no_power ? 1 - beta2 : 1 - std::pow(beta2, s.t);
  for (std::size_t i = 0; i < x.size(); ++i) {
    s.m[i] = v.swapped ? (1 - beta1) * s.m[i] + beta1 * g[i]
                       : beta1 * s.m[i] + (1 - beta1) * g[i];
    s.v[i] = beta2 * s.v[i] + (1 - beta2) * (v.g_not_squared ? g[i] : g[i] * g[i]);
    const double m_hat = v.uncorrected ? s.m[i] : s.m[i] / fill1,
                 v_hat = v.uncorrected ? s.v[i] : s.v[i] / fill2;
    x[i] -=
        lr * m_hat / (v.eps_inside ? std::sqrt(v_hat + eps) : std::sqrt(v_hat) + eps);
  }
  if (v.late_count) ++s.t;
}

// Where a run of steps takes x: 30 steps on the bowl of the second test, then one step
// from 0 with the gradient 1e-8 (where ε's place shows), every point in turn. `v` null:
// your adam_step.
std::vector<double> trajectory(const Variant* v) {
  std::vector<double> points, x = {1, -2};
  AdamState s;
  s.m.assign(2, 0), s.v.assign(2, 0);
  for (int step = 0; step < 30; ++step) {
    const std::vector<double> g = {x[0], 30 * x[1]};
    v ? variant_step(x, s, g, 0.05, *v) : adam_step(x, s, g, 0.05);
    points.insert(points.end(), x.begin(), x.end());
  }
  std::vector<double> y = {0};
  AdamState fresh;
  fresh.m.assign(1, 0), fresh.v.assign(1, 0);
  v ? variant_step(y, fresh, {1e-8}, 0.1, *v) : adam_step(y, fresh, {1e-8}, 0.1);
  points.push_back(y[0]);
  return points;
}

bool same_points(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::fabs(a[i] - b[i]) <= 1e-9 * std::fabs(b[i]) + 1e-300) &&
        !(std::isnan(a[i]) && std::isnan(b[i])))
      return false;
  return true;
}

// Your first two steps' lengths, with the gradient 4 both times and lr = 0.1 (with bias
// correction both averages are exact for a constant gradient, m̂ = 4 and v̂ = 16, so
// each step is lr·4/(4 + ε), almost exactly 0.1); and the catalogued mistake whose
// whole trajectory yours is, if exactly one is.
std::string two_steps() {
  std::vector<double> x = {0};
  AdamState state;
  state.m.assign(1, 0), state.v.assign(1, 0);
  adam_step(x, state, {4}, 0.1);
  const double first = -x[0];
  adam_step(x, state, {4}, 0.1);
  const double second = -x[0] - first;
  std::string s =
      "with the gradient 4 twice and lr = 0.1 your steps have the lengths " +
      exercise::number(first) + " and " + exercise::number(second) +
      " (0.1 each, to 1e-9, is right)";
  const std::vector<double> yours = trajectory(nullptr);
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {{true, false, false, false, false, false},
       "the step count increased after it is used"},
      {{false, true, false, false, false, false},
       "the second moment from g instead of g²"},
      {{false, false, true, false, false, false},
       "the bias correction without the power t"},
      {{false, false, false, true, false, false},
       "the running average's weights swapped"},
      {{false, false, false, false, true, false}, "Adam without its bias correction"},
      {{false, false, false, false, false, true}, "ε inside the square root"}};
  const std::string name = exercise::the_mistake(
      mistakes, [&](const Variant& v) { return same_points(trajectory(&v), yours); });
  if (!name.empty()) s += "; every point your steps reach is that of " + name;
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the first step moves each coordinate by lr·g/(|g| + eps) against its gradient") {
  const std::string why = exercise::quietly(two_steps);
  INFO(why);
  std::vector<double> x = {0, 0, 0};
  const std::vector<double> g = {1e-3, -2.0, 50.0};
  AdamState state;
  state.m.assign(3, 0), state.v.assign(3, 0);
  adam_step(x, state, g, 0.1);
  for (int i = 0; i < 3; ++i) {
    INFO("coordinate ", i, " of 3, its gradient ", g[i]);
    CHECK(std::fabs(x[i] + 0.1 * g[i] / (std::fabs(g[i]) + 1e-8)) < 1e-15);
  }
}

TEST_CASE("30 steps on a bowl agree with litgrad's Adam to 1e-14 of the rate") {
  const std::string why = exercise::quietly(two_steps);
  INFO(why);
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
