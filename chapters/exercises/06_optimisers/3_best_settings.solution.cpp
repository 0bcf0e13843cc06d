// Exercise 6.3 · The heavy ball's best settings: the reference solution.
#include <cmath>

struct HeavyBall {
  double rate = 0, beta = 0;
};

HeavyBall best_heavy_ball(double mu, double L) {
  const double a = std::sqrt(mu), b = std::sqrt(L);
  const double r = (b - a) / (b + a);  // (√κ - 1)/(√κ + 1)
  return {4 / ((a + b) * (a + b)), r * r};
}
