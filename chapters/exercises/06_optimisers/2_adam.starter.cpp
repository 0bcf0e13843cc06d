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
  (void)x, (void)state, (void)gradient, (void)lr, (void)beta1, (void)beta2, (void)eps;
  // your step here
}
