// Exercise 3.1 · The largest stable learning rate: the reference solution.
#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

double largest_stable_rate(const Tensor& x) {
  const double n = static_cast<double>(x.numel());
  const double a = 2 * sum(x * x).item() / n, c = 2 * sum(x).item() / n, e = 2.0;
  const double lambda_max = (a + e) / 2 + std::sqrt((a - e) * (a - e) / 4 + c * c);
  return 2 / lambda_max;
}
