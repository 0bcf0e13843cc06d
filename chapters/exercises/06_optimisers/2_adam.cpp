// Exercise 6.2 · Adam, the whole optimiser
// ========================================
//
// Write Adam as a whole optimiser over a model's parameters, used as ``optim::Adam``
// is: the constructor keeps each parameter and a state for it, ``zero_grad()`` sets
// every gradient to zero before a ``backward()``, and ``step()`` then moves each
// parameter that has a gradient, in place. For a parameter with gradient :math:`g`,
// after :math:`t` steps of its own, section 2's step is :math:`m \leftarrow \beta_1 m +
// (1 - \beta_1) g`, :math:`v \leftarrow \beta_2 v + (1 - \beta_2) g^2`, :math:`\hat m =
// m / (1 - \beta_1^t)`, :math:`\hat v = v / (1 - \beta_2^t)`, :math:`x \leftarrow x -
// \eta \hat m / (\sqrt{\hat v} + \epsilon)`, element by element. As in torch, each
// parameter counts its own steps, and one the loss did not use (its ``grad()`` is
// undefined) takes no step and counts none.
//
// The tests check your first step against :math:`-\eta g / (|g| + \epsilon)`, that
// ``zero_grad()`` zeroes every gradient there is, and 30 steps of a small regression
// against ``optim::Adam``, in which one parameter is never used and another joins the
// loss at step 6. They allow :math:`10^{-10}` of the rate: an answer that orders its
// arithmetic differently from litgrad's rounds differently, by a few :math:`u \approx
// 10^{-16}` of each number per operation, and 30 steps of a dozen operations stay far
// below that, where a wrong formula moves the points by a good part of the rate.

// %% hint
// In the constructor, give each parameter a ``State`` of zeros of its shape. In
// ``step()``, work under a ``NoGradGuard``, skip a parameter whose ``grad()`` is not
// defined, and change the parameter itself with ``sub_``: the model holds the same
// tensor, not a copy.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

// %%
// The optimiser to write, in ``exercises/06_optimisers/2_adam.cpp``:

struct MyAdam {
  MyAdam(std::vector<Tensor> parameters, double lr, double beta1 = 0.9,
         double beta2 = 0.999, double eps = 1e-8);
  void zero_grad();
  void step();

  struct State {
    int t = 0;    // the steps this parameter has taken
    Tensor m, v;  // its running averages, each of its shape
  };
  std::vector<Tensor> parameters;
  std::vector<State> state;  // one per parameter, in order
  double lr, beta1, beta2, eps;
};

// %% fold: Adam with each catalogued mistake, and the one yours is
namespace {
// The test's own Adam, with the catalogued mistakes as switches.
struct Variant {
  bool late_count = false, g_not_squared = false, no_power = false, swapped = false;
  bool uncorrected = false, eps_inside = false, not_zeroed = false;
  bool count_every_call = false, not_in_place = false, state_copied = false;
};

struct VariantAdam {
  std::vector<Tensor> parameters;
  std::vector<MyAdam::State> state;
  double lr;
  Variant v;

  VariantAdam(std::vector<Tensor> p, double rate, const Variant& variant)
      : parameters(std::move(p)), lr(rate), v(variant) {
    for (const Tensor& t : parameters)
      state.push_back({0, zeros(t.shape()), zeros(t.shape())});
  }
  void zero_grad() {
    if (!v.not_zeroed)
      for (Tensor& p : parameters) p.zero_grad();
  }
  void step() {
    NoGradGuard no_grad;
    const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    for (std::size_t k = 0; k < parameters.size(); ++k) {
      Tensor& p = parameters[k];
      MyAdam::State copy = state[k];
      MyAdam::State& s = v.state_copied ? copy : state[k];
      if (v.count_every_call) ++s.t;
      const Tensor g = p.grad();
      if (!g.defined()) continue;
      if (!v.late_count && !v.count_every_call) ++s.t;
      s.m = v.swapped ? (1 - beta1) * s.m + beta1 * g : beta1 * s.m + (1 - beta1) * g;
      s.v = beta2 * s.v + (1 - beta2) * (v.g_not_squared ? g : g * g);
      const double fill1 = v.no_power ? 1 - beta1 : 1 - std::pow(beta1, s.t),
                   fill2 = v.no_power ? 1 - beta2 : 1 - std::pow(beta2, s.t);
      const Tensor m_hat = v.uncorrected ? s.m : s.m / fill1,
                   v_hat = v.uncorrected ? s.v : s.v / fill2;
      const Tensor update =
          lr * m_hat / (v.eps_inside ? sqrt(v_hat + eps) : sqrt(v_hat) + eps);
      if (v.not_in_place)
        p = p - update;
      else
        p.sub_(update);
      if (v.late_count) ++s.t;
    }
  }
};

// The regression the tests train: W [2, 3], b [2] (from step 6 on) and u [4], which the
// loss never uses, fitted to 5 points.
struct Model {
  Tensor w, b, u;
  Model()
      : w(tensor({0.5, -0.3, 0.8, 0.1, 0.4, -0.6}, {2, 3}).requires_grad_()),
        b(tensor({0.2, -0.1}).requires_grad_()),
        u(tensor({1, 2, 3, 4}).requires_grad_()) {}
  std::vector<Tensor> parameters() const { return {w, b, u}; }
};

Tensor regression_loss(const Model& model, int step) {
  Generator gen(6);
  const Tensor x = randn({5, 3}, gen), y = randn({5, 2}, gen);
  const Tensor fit =
      step > 5 ? nn::linear(x, model.w, model.b) : nn::linear(x, model.w);
  return mean((fit - y) * (fit - y));
}

// Every value W and b take over 30 steps at lr = 0.05, then one step from 0 with the
// gradient 1e-8 at lr = 0.1 (where ε's place shows), from the optimiser `make` builds
// over the parameters it is given.
template <class Make>
std::vector<double> trajectory(Make make) {
  Model model;
  auto adam = make(model.parameters(), 0.05);
  std::vector<double> points;
  for (int step = 1; step <= 30; ++step) {
    adam.zero_grad();
    regression_loss(model, step).backward();
    adam.step();
    for (const Tensor& t : {model.w, model.b})
      for (double x : t.to_vector()) points.push_back(x);
  }
  Tensor y = zeros({1}).requires_grad_();
  auto small = make(std::vector<Tensor>{y}, 0.1);
  small.zero_grad();
  sum(1e-8 * y).backward();
  small.step();
  points.push_back(y.at({0}));
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

// What your optimiser keeps and where it takes the regression, and the catalogued
// mistake whose whole trajectory yours is, if exactly one is.
std::string your_steps() {
  Model model;
  MyAdam yours(model.parameters(), 0.05);
  if (yours.state.size() != 3)
    return "your constructor keeps " + std::to_string(yours.state.size()) +
           " states for 3 parameters (one each, of zeros of its shape, is right)";
  const std::vector<double> points = trajectory(
      [](std::vector<Tensor> p, double lr) { return MyAdam(std::move(p), lr); });
  const auto adam_with = [](const Variant& v) {
    return trajectory([&](std::vector<Tensor> p, double lr) {
      return VariantAdam(std::move(p), lr, v);
    });
  };
  const std::size_t last = 29 * 8;  // W[0][0] after the 30th step
  std::string s =
      "trained 30 steps on the third test's regression, your optimiser "
      "takes W[0][0] to " +
      exercise::number(points[last]) + ", Adam to " +
      exercise::number(adam_with(Variant{})[last]);
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {{true}, "the step count increased after it is used"},
      {{false, true}, "the second moment from g instead of g²"},
      {{false, false, true},
       "a bias correction that stays at 1 - β, the first step's, at every step"},
      {{false, false, false, true}, "the running average's weights swapped"},
      {{false, false, false, false, true}, "Adam without its bias correction"},
      {{false, false, false, false, false, true}, "ε inside the square root"},
      {{false, false, false, false, false, false, true}, "the gradients never zeroed"},
      {{false, false, false, false, false, false, false, true},
       "a step counted on every call, with a gradient or without"},
      {{false, false, false, false, false, false, false, false, true},
       "the parameter replaced instead of changed in place"},
      {{false, false, false, false, false, false, false, false, false, true},
       "the state not kept from one step to the next"}};
  const std::string name = exercise::the_mistake(
      mistakes, [&](const Variant& v) { return same_points(adam_with(v), points); });
  if (!name.empty()) s += "; every point your steps reach is that of " + name;
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the constructor keeps a state of zeros for each parameter, and the first step "
    "moves each element by lr·g/(|g| + eps) against its gradient") {
  const std::string why = exercise::quietly(your_steps);
  INFO(why);
  Tensor x = zeros({3}).requires_grad_();
  MyAdam adam({x}, 0.1);
  REQUIRE_MESSAGE(adam.state.size() == 1, "one state for the one parameter");
  CHECK_MESSAGE(exercise::agrees(adam.state[0].m, zeros({3}), 0, 0), "m starts at 0");
  CHECK_MESSAGE(exercise::agrees(adam.state[0].v, zeros({3}), 0, 0), "v starts at 0");
  const std::vector<double> g = {1e-3, -2.0, 50.0};
  adam.zero_grad();
  sum(tensor(g, {3}) * x).backward();
  adam.step();
  std::vector<double> expected;  // -lr·g/(|g| + eps), element by element
  for (double gi : g) expected.push_back(-0.1 * gi / (std::fabs(gi) + 1e-8));
  CHECK_MESSAGE(exercise::agrees(x, tensor(expected, {3}), 1e-15, 0),
                "x after one step from 0, with the gradients 1e-3, -2 and 50");
}

TEST_CASE("zero_grad sets every gradient there is to zero, and leaves none made") {
  const std::string why = exercise::quietly(your_steps);
  INFO(why);
  Model model;
  MyAdam adam(model.parameters(), 0.05);
  regression_loss(model, 6).backward();
  adam.zero_grad();
  CHECK_MESSAGE(exercise::agrees(model.w.grad(), zeros({2, 3}), 0, 0), "W's gradient");
  CHECK_MESSAGE(exercise::agrees(model.b.grad(), zeros({2}), 0, 0), "b's gradient");
  CHECK_MESSAGE(!model.u.grad().defined(),
                "u, which the loss never used, has no gradient to zero");
}

TEST_CASE(
    "30 steps of a regression agree with optim::Adam to 1e-10 of the rate, with a "
    "parameter the loss never uses and one that joins it at step 6") {
  const std::string why = exercise::quietly(your_steps);
  INFO(why);
  const double lr = 0.05, allowance = 5e-12;  // 1e-10 of the rate
  Model yours, litgrads;
  MyAdam adam(yours.parameters(), lr);
  optim::Adam reference(litgrads.parameters(), {lr});
  for (int step = 1; step <= 30; ++step) {
    adam.zero_grad();
    regression_loss(yours, step).backward();
    adam.step();
    reference.zero_grad();
    regression_loss(litgrads, step).backward();
    reference.step();
  }
  CHECK_MESSAGE(exercise::agrees(yours.w, litgrads.w, allowance, 0),
                "W after 30 steps, against optim::Adam's");
  CHECK_MESSAGE(exercise::agrees(yours.b, litgrads.b, allowance, 0),
                "b after 25 steps of its own, against optim::Adam's");
  CHECK_MESSAGE(exercise::agrees(yours.u, litgrads.u, 0, 0),
                "u, never used by the loss, never moves");
}
