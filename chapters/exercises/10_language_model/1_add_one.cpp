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
#include <string>
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
  counts[4 * 27 + 9] = 0;    // a pair never seen
  counts[2 * 27 + 13] = 40;  // a common pair: the rows' totals differ from the columns'
  return counts;
}

// What a wrong probability for the pair (a, b) points to.
std::string probability_problem(std::int64_t a, std::int64_t b) {
  const auto counts = some_counts();
  double row = 0, column = 0;
  for (std::int64_t k = 0; k < 27; ++k)
    row += counts[a * 27 + k], column += counts[k * 27 + a];
  const double yours = bigram_probability(counts, a, b), n = counts[a * 27 + b];
  const auto is = [&](double v) { return std::fabs(yours - v) < 1e-16; };
  if (is((n + 1) / (row + 27))) return "";
  if (is(n / row)) return "yours is N_ab / N_a: this points to no smoothing";
  if (is((n + 1) / (row + 1)))
    return "yours adds 1 to the pair's count and 1 to the total: this points to the "
           "row total grown by 1 instead of 27";
  if (is((n + 1) / (column + 27)))
    return "yours divides by the count of pairs that end in a: this points to the "
           "column summed instead of the row";
  return "";
}
}  // namespace

TEST_CASE("a pair never seen gets 1/(N_a + 27), not 0") {
  const auto counts = some_counts();
  double n_a = 0;
  for (std::int64_t b = 0; b < 27; ++b) n_a += counts[4 * 27 + b];
  INFO(probability_problem(4, 9));
  CHECK(std::fabs(bigram_probability(counts, 4, 9) - 1 / (n_a + 27)) < 1e-16);
}

TEST_CASE("every probability of a row is (N_ab + 1)/(N_a + 27), to 1e-16") {
  const auto counts = some_counts();
  for (std::int64_t a : {0, 2, 13, 26}) {
    double n_a = 0;
    for (std::int64_t b = 0; b < 27; ++b) n_a += counts[a * 27 + b];
    for (std::int64_t b = 0; b < 27; ++b) {
      INFO(probability_problem(a, b));
      CHECK(std::fabs(bigram_probability(counts, a, b) -
                      (counts[a * 27 + b] + 1) / (n_a + 27)) < 1e-16);
    }
  }
}
