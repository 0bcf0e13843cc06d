// Exercise 10.1 · Add-one smoothing. This is your file: write bigram_probability below,
// then run `tools/exercise check 10.1`.
#include <cstdint>
#include <vector>

// p(b | a) = (N_ab + 1) / (N_a + 27) from the counts, stored row by row [27 * 27].
double bigram_probability(const std::vector<double>& counts, std::int64_t a,
                          std::int64_t b) {
  double n_a = 0;
  for (std::int64_t k = 0; k < 27; ++k) n_a += counts[a * 27 + k];
  return counts[a * 27 + b] / n_a;  // the counts alone: an unseen pair gets 0
}
