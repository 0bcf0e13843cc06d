// Exercise 6.3 · The heavy ball's best settings
// =============================================
//
// For a bowl whose curvatures lie between :math:`\mu` and :math:`L`, return the heavy
// ball's best rate and momentum. Section 2 gave them for curvatures 1 and
// :math:`\kappa`; write them for any :math:`\mu` and :math:`L` (the rate scales with
// the curvature, the momentum depends only on :math:`\kappa = L / \mu`). The tests run
// the heavy ball with your settings on bowls with curvatures :math:`(\mu, L)` =
// (1, 100), (0.5, 200) and (2, 8), and check that the error shrinks by :math:`r =
// (\sqrt\kappa - 1)/(\sqrt\kappa + 1)` per step on average over steps 100 to 400, to
// 1% as in section 2.

// %% hint
// Substitute: a bowl with curvatures μ and L is the bowl with curvatures 1 and L/μ,
// with every gradient multiplied by μ. Which of section 2's two settings does a
// gradient scaled by μ change, and how must it change to give the same steps? The other
// depends on κ alone.

// %% fold: includes, and a run of the heavy ball
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/06_optimisers/3_best_settings.cpp``:

struct HeavyBall {
  double rate = 0, beta = 0;
};
HeavyBall best_heavy_ball(double mu, double L);

// %% fold: a run of the heavy ball with your settings
namespace {
// The mean factor per step between steps 100 and 400 on (μ x1² + L x2²)/2.
double mean_factor(double mu, double L) {
  const HeavyBall h = best_heavy_ball(mu, L);
  Tensor x = tensor({1, 1}).requires_grad_();
  optim::SGD sgd({x}, {h.rate, h.beta});
  double at100 = 0;
  for (int t = 0; t < 400; ++t) {
    if (t == 100) at100 = std::hypot(x.at({0}), x.at({1}));
    sgd.zero_grad();
    (0.5 * sum(tensor({mu, L}) * x * x)).backward();
    sgd.step();
  }
  return std::pow(std::hypot(x.at({0}), x.at({1})) / at100, 1.0 / 300);
}
}  // namespace

// %% fold: what your settings point to
namespace {
// Your settings for (μ, L) against two facts: a bowl (μ, L) is the bowl (1, κ) with
// every gradient multiplied by μ, so its rate is that bowl's divided by μ and its
// momentum the same; and with its best settings the heavy ball's error shrinks by √β a
// step. The mistake your settings point to.
std::string settings_problem(double mu, double L) {
  const HeavyBall h = best_heavy_ball(mu, L), unit = best_heavy_ball(1, L / mu);
  const double root = std::sqrt(L / mu), r = (root - 1) / (root + 1);
  const double kappa_r = (L / mu - 1) / (L / mu + 1);
  std::string s = "μ = " + exercise::number(mu) + ", L = " + exercise::number(L) +
                  ": your rate " + exercise::number(h.rate) + ", your β " +
                  exercise::number(h.beta);
  const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-12 * b; };
  if (near(h.beta, r))
    return s +
           ": β equals the factor r itself, so the error shrinks by √r, not r; this "
           "points to the momentum not squared";
  if (near(h.beta, kappa_r * kappa_r))
    return s + ": β is ((κ - 1)/(κ + 1))²; this points to κ where √κ belongs";
  if (mu != 1 && near(h.rate, unit.rate))
    return s +
           ": the same rate as for the bowl (1, κ), where the gradients are μ times "
           "smaller; this points to the rate not scaled by the curvature μ";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("the error shrinks by (√κ - 1)/(√κ + 1) per step, to 1%, on three bowls") {
  for (auto [mu, L] : {std::pair{1.0, 100.0}, {0.5, 200.0}, {2.0, 8.0}}) {
    const double root = std::sqrt(L / mu), r = (root - 1) / (root + 1);
    const double measured = mean_factor(mu, L);
    INFO("μ = ", mu, ", L = ", L, ": factor ", measured, ", expected ", r);
    const std::string why = exercise::quietly(settings_problem, mu, L);
    CHECK_MESSAGE(std::fabs(measured - r) < 0.01 * r, why);
  }
}
