// Exercise 1.4 · A sum whose error grows slowly. This is your file: write pairwise_sum
// below, then run `tools/exercise check 01.4`.
#include <vector>

// The sum of x, added in pairs.
double pairwise_sum(const std::vector<double>& x) {
  // For now the plain loop, first to last.
  double total = 0;
  for (double v : x) total += v;
  return total;
}
