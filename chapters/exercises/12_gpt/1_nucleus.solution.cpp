// Exercise 12.1 · Nucleus sampling: the reference solution.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor nucleus_distribution(const Tensor& scores, double p) {
  const std::vector<double> probs = softmax(scores, 0).to_vector();
  std::vector<std::size_t> order(probs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return probs[a] > probs[b]; });
  std::vector<double> kept(probs.size(), 0.0);
  double total = 0;  // the probability of the tokens kept so far
  for (std::size_t i : order) {
    if (total >= p) break;  // the nucleus is complete without this token
    kept[i] = probs[i];
    total += probs[i];
  }
  for (double& k : kept) k /= total;
  return tensor(kept, {scores.numel()});
}
