// Exercise 10.3 · Dropout: the reference solution.
#include <cmath>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor inverted_dropout(const Tensor& x, double p, bool training, Generator& gen) {
  if (!training || p == 0) return x;
  if (p == 1) return x * 0.0;  // all dropped; dividing by 1 - p = 0 would give NaN
  std::vector<double> keep = rand(x.shape(), gen).to_vector();
  for (double& u : keep) u = u < p ? 0.0 : 1.0;  // 1 where the element stays
  return x * tensor(keep, x.shape()) / (1 - p);
}
