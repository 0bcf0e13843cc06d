// Exercise 7.2 · Negative sampling: the reference solution.
#include <cmath>
#include <vector>

namespace {
// -log σ(x) = log(1 + e^{-x}), without overflow for large |x|.
double minus_log_sigmoid(double x) {
  return x >= 0 ? std::log1p(std::exp(-x)) : -x + std::log1p(std::exp(x));
}

double sigmoid(double x) {
  return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x));
}
}  // namespace

double negative_sampling_loss(const std::vector<double>& centre,
                              const std::vector<double>& output, int D, int context,
                              const std::vector<int>& negatives,
                              std::vector<double>& grad_centre,
                              std::vector<double>& grad_output) {
  const auto score = [&](int w) {
    double s = 0;
    for (int j = 0; j < D; ++j) s += output[w * D + j] * centre[j];
    return s;
  };
  // The neighbour: -log σ(s), whose derivative with respect to s is σ(s) - 1.
  const double s = score(context);
  double loss = minus_log_sigmoid(s);
  const double g = sigmoid(s) - 1;
  for (int j = 0; j < D; ++j) {
    grad_centre[j] += g * output[context * D + j];
    grad_output[context * D + j] += g * centre[j];
  }
  // Each noise word: -log σ(-s), whose derivative with respect to s is σ(s).
  for (int w : negatives) {
    const double sn = score(w);
    loss += minus_log_sigmoid(-sn);
    const double gn = sigmoid(sn);
    for (int j = 0; j < D; ++j) {
      grad_centre[j] += gn * output[w * D + j];
      grad_output[w * D + j] += gn * centre[j];
    }
  }
  return loss;
}
