// Exercise 10.2 · Top-k sampling: the reference solution.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor top_k_distribution(const Tensor& scores, std::int64_t k, double temperature) {
  const std::vector<double> z = scores.to_vector();
  std::vector<double> sorted = z;
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  const double kth = sorted[k - 1];  // the k-th highest score
  std::vector<double> kept;
  for (double v : z) kept.push_back(v >= kth ? v / temperature : -INFINITY);
  return softmax(tensor(kept, {scores.numel()}), 0);
}
