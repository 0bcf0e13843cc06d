// Exercise 5.1 · A log-sum-exp that never overflows: the reference solution.
#include <algorithm>
#include <cmath>
#include <vector>

double log_sum_exp(const std::vector<double>& z) {
  const double m = *std::max_element(z.begin(), z.end());
  double total = 0;  // each term e^(z - m) is at most 1, and the largest is exactly 1
  for (double zi : z) total += std::exp(zi - m);
  return m + std::log(total);
}
