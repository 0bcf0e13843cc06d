// Exercise 4.2 · Where a ReLU network bends: the reference solution.
#include <algorithm>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

std::vector<double> kinks_in(const nn::Linear& hidden, const nn::Linear& output,
                             double lo, double hi) {
  std::vector<double> found;
  for (std::int64_t j = 0; j < hidden.out_features; ++j) {
    const double w = hidden.weight.at({j, 0}), v = output.weight.at({0, j});
    if (w == 0 || v == 0) continue;  // a constant unit, or one the output ignores
    const double at = -hidden.bias.at({j}) / w;
    if (at > lo && at < hi) found.push_back(at);
  }
  std::sort(found.begin(), found.end());
  return found;
}
