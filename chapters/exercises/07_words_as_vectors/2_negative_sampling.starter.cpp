// Exercise 7.2 · Negative sampling. This is your file: write negative_sampling_loss
// below, then run `tools/exercise check 07.2`.
#include <cmath>
#include <vector>

// -log σ(u_o · v) - Σ_n log σ(-u_n · v), and its gradients added into grad_centre [D]
// and grad_output [V, D].
double negative_sampling_loss(const std::vector<double>& centre,
                              const std::vector<double>& output, int D, int context,
                              const std::vector<int>& negatives,
                              std::vector<double>& grad_centre,
                              std::vector<double>& grad_output) {
  (void)negatives, (void)grad_centre, (void)grad_output;
  double s = 0;
  for (int j = 0; j < D; ++j) s += output[context * D + j] * centre[j];
  return -std::log(1 / (1 + std::exp(-s)));  // a first attempt: the neighbour alone
}
