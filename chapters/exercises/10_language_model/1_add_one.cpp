// Exercise 10.1 · Add-one smoothing
// =================================
//
// Write the bigram model's probability from section 1: given the table of counts
// :math:`N_{ab}` (how often symbol :math:`b` follows symbol :math:`a`, for 27 symbols,
// stored row by row), return :math:`p(b \mid a) = (N_{ab} + 1) / (N_a + 27)` with
// :math:`N_a = \sum_b N_{ab}`. The tests check a pair never seen, which must get
// :math:`1/(N_a + 27)` and not 0, and a whole row against the formula.

// %% hint
// Sum row :math:`a` of the counts for :math:`N_a`; the 27 in the denominator keeps each
// row's probabilities summing to 1 after adding 1 to each of its 27 counts.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

// %%
// The function to write, in ``exercises/10_language_model/1_add_one.cpp``:

double bigram_probability(const std::vector<double>& counts, std::int64_t a,
                          std::int64_t b);

// %%
// The tests.

namespace {
std::vector<double> some_counts() {
  std::vector<double> counts(27 * 27, 0);
  for (std::int64_t a = 0; a < 27; ++a)
    for (std::int64_t b = 0; b < 27; ++b) counts[a * 27 + b] = (a * 7 + b * 3) % 5;
  counts[4 * 27 + 9] = 0;  // a pair never seen
  return counts;
}
}  // namespace

TEST_CASE("a pair never seen gets 1/(N_a + 27), not 0") {
  const auto counts = some_counts();
  double n_a = 0;
  for (std::int64_t b = 0; b < 27; ++b) n_a += counts[4 * 27 + b];
  CHECK(std::fabs(bigram_probability(counts, 4, 9) - 1 / (n_a + 27)) < 1e-16);
}

TEST_CASE("every probability of a row is (N_ab + 1)/(N_a + 27), to 1e-16") {
  const auto counts = some_counts();
  for (std::int64_t a : {0, 13, 26}) {
    double n_a = 0;
    for (std::int64_t b = 0; b < 27; ++b) n_a += counts[a * 27 + b];
    for (std::int64_t b = 0; b < 27; ++b)
      CHECK(std::fabs(bigram_probability(counts, a, b) -
                      (counts[a * 27 + b] + 1) / (n_a + 27)) < 1e-16);
  }
}
