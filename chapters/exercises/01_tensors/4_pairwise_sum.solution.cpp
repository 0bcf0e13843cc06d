// Exercise 1.4 · A sum whose error grows slowly: the reference solution.
#include <cstddef>
#include <vector>

namespace {
double sum_range(const std::vector<double>& x, std::size_t begin, std::size_t end) {
  if (end - begin == 0) return 0.0;
  if (end - begin == 1) return x[begin];
  const std::size_t mid = begin + (end - begin) / 2;
  return sum_range(x, begin, mid) + sum_range(x, mid, end);
}
}  // namespace

double pairwise_sum(const std::vector<double>& x) { return sum_range(x, 0, x.size()); }
