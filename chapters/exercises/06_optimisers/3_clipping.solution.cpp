// Exercise 6.3 · Clipping by the total norm: the reference solution.
#include <cmath>
#include <vector>

double clip_by_total_norm(std::vector<std::vector<double>>& gradients,
                          double max_norm) {
  double squares = 0;  // over every number of every parameter's gradient
  for (const auto& g : gradients)
    for (double x : g) squares += x * x;
  const double total = std::sqrt(squares);
  if (total > max_norm) {
    const double factor = max_norm / (total + 1e-6);
    for (auto& g : gradients)
      for (double& x : g) x *= factor;
  }
  return total;
}
