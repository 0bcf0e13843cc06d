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
// with every gradient multiplied by μ. So the rate is 4 / (√μ + √L)², and β is the
// square of (√κ - 1)/(√κ + 1).

// %% fold: includes, and a run of the heavy ball
#include <doctest/doctest.h>

#include <cmath>

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

// %%
// The tests.

TEST_CASE("the error shrinks by (√κ - 1)/(√κ + 1) per step, to 1%, on three bowls") {
  for (auto [mu, L] : {std::pair{1.0, 100.0}, {0.5, 200.0}, {2.0, 8.0}}) {
    const double root = std::sqrt(L / mu), r = (root - 1) / (root + 1);
    const double measured = mean_factor(mu, L);
    INFO("μ = ", mu, ", L = ", L, ": factor ", measured, ", expected ", r);
    CHECK(std::fabs(measured - r) < 0.01 * r);
  }
}
