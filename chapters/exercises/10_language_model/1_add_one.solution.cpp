// Exercise 10.1 · Add-one smoothing: the reference solution.
#include <cstdint>
#include <vector>

double bigram_probability(const std::vector<double>& counts, std::int64_t a,
                          std::int64_t b) {
  double n_a = 0;
  for (std::int64_t k = 0; k < 27; ++k) n_a += counts[a * 27 + k];
  return (counts[a * 27 + b] + 1) / (n_a + 27);
}
