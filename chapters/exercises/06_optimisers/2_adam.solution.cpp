// Exercise 6.2 · Adam by hand: the reference solution.
#include <cmath>
#include <vector>

struct AdamState {
  int t = 0;                 // steps taken
  std::vector<double> m, v;  // the running averages, one per coordinate
};

void adam_step(std::vector<double>& x, AdamState& state,
               const std::vector<double>& gradient, double lr, double beta1,
               double beta2, double eps) {
  ++state.t;
  const double fill1 = 1 - std::pow(beta1, state.t),
               fill2 = 1 - std::pow(beta2, state.t);
  for (std::size_t i = 0; i < x.size(); ++i) {
    state.m[i] = beta1 * state.m[i] + (1 - beta1) * gradient[i];
    state.v[i] = beta2 * state.v[i] + (1 - beta2) * gradient[i] * gradient[i];
    const double m_hat = state.m[i] / fill1, v_hat = state.v[i] / fill2;
    x[i] -= lr * m_hat / (std::sqrt(v_hat) + eps);
  }
}
