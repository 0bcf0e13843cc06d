// Exercise 10.2 · Top-k sampling
// ==============================
//
// Sampling at temperature 1 sometimes picks a symbol the model gives a tiny
// probability, and one such pick can spoil a word. *Top-k* sampling (Fan, Lewis and
// Dauphin, 2018) draws only among the :math:`k` symbols with the highest scores: write
// the distribution it draws from. For scores :math:`z` of shape :math:`[C]`, an integer
// :math:`1 \le k \le C` and a temperature :math:`T > 0`, every symbol outside the
// :math:`k` highest-scoring gets probability exactly 0, and the :math:`k` kept share
// :math:`\operatorname{softmax}(z / T)` among themselves. (The tests' scores have no
// ties.) The tests check which symbols keep a chance, the odds between two kept
// symbols, :math:`\ln(p_i / p_j) = (z_i - z_j) / T`, that the probabilities sum to 1,
// and that with :math:`k = C` the distribution is section 3's plain sampling at
// temperature :math:`T`.

// %% hint
// A symbol's probability is exactly 0 after softmax only if its score was
// :math:`-\infty` before it. Which score separates the kept symbols from the rest?

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/10_language_model/2_top_k.cpp``:

Tensor top_k_distribution(const Tensor& scores, std::int64_t k, double temperature);

// %% fold: what a wrong distribution points to
namespace {
const std::vector<double> kScores = {0.3, -1.2, 2.0, 0.9, -0.4, 1.5, 0.1};  // C = 7

std::string distribution_problem() {
  const Tensor z = tensor(kScores, {7});
  const std::vector<double> p = top_k_distribution(z, 3, 0.5).to_vector();
  if (p.size() != 7) return "";
  int positive = 0;
  double total = 0;
  for (double v : p) positive += v > 0, total += v;
  if (positive == 7 && p[1] > 0 && std::fabs(total - 1) < 1e-12)
    return "every symbol keeps a chance, the dropped ones a small one: the dropped "
           "scores were replaced by a finite number; this points to scores masked with "
           "zero instead of minus infinity";
  if (positive == 2)
    return "two symbols keep a chance where three should: this points to one symbol "
           "too few kept";
  if (std::fabs(total - 2) < 1e-12)
    return "the probabilities sum to 2 = 1/T: this points to the temperature dividing "
           "the probabilities instead of the scores";
  if (positive == 3 && p[2] > 0 && p[5] > 0 &&
      std::fabs(std::log(p[2] / p[5]) - (2.0 - 1.5)) < 1e-12)
    return "the right symbols are kept, but their log-odds are their score gap, as at "
           "T = 1: this points to the temperature forgotten";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE("with k = 3, exactly the 3 highest-scoring symbols keep a chance") {
  INFO(distribution_problem());
  const std::vector<double> p =
      top_k_distribution(tensor(kScores, {7}), 3, 0.5).to_vector();
  REQUIRE(p.size() == 7);
  for (int i : {2, 5, 3})  // scores 2.0, 1.5 and 0.9
    CHECK_MESSAGE(p[i] > 0, "symbol " << i << " is among the 3 highest");
  for (int i : {0, 1, 4, 6})
    CHECK_MESSAGE(p[i] == 0.0, "symbol " << i << " is not among the 3 highest");
}

TEST_CASE("the kept symbols' log-odds are their score gaps over T, to 1e-13") {
  INFO(distribution_problem());
  for (double t : {0.5, 2.0}) {
    const std::vector<double> p =
        top_k_distribution(tensor(kScores, {7}), 3, t).to_vector();
    REQUIRE(p.size() == 7);
    CHECK_MESSAGE(std::fabs(std::log(p[2] / p[5]) - (2.0 - 1.5) / t) < 1e-13,
                  "at T = " << t);
    CHECK_MESSAGE(std::fabs(std::log(p[5] / p[3]) - (1.5 - 0.9) / t) < 1e-13,
                  "at T = " << t);
  }
}

TEST_CASE("the probabilities sum to 1, to 1e-15") {
  INFO(distribution_problem());
  for (std::int64_t k : {1, 3, 7}) {
    const Tensor p = top_k_distribution(tensor(kScores, {7}), k, 0.5);
    CHECK_MESSAGE(std::fabs(sum(p).item() - 1) < 1e-15, "with k = " << k);
  }
}

TEST_CASE("with k = C it is plain sampling at temperature T, to 1e-15") {
  INFO(distribution_problem());
  const Tensor z = tensor(kScores, {7});
  const Tensor p = top_k_distribution(z, 7, 0.5);
  CHECK(max(abs(p - softmax(z / 0.5, 0))).item() < 1e-15);
}
