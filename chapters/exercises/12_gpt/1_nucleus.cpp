// Exercise 12.1 · Nucleus sampling
// ================================
//
// Write the distribution that top-p sampling draws from (section 6). For scores
// :math:`z` of shape :math:`[C]` and a share :math:`0 < p \le 1`: take the
// probabilities :math:`\operatorname{softmax}(z)`, keep the fewest most likely tokens
// whose probabilities add up to at least :math:`p` (the *nucleus*), give every other
// token probability exactly 0, and share the whole probability among the kept tokens in
// the proportions they had. (The tests' scores have no ties.) The tests check which
// tokens are kept for several :math:`p`, that the kept tokens keep their odds and the
// probabilities sum to 1, that :math:`p = 1` keeps every token, that scores in the
// thousands give the distribution they give less a thousand, that the caller's scores
// are left as they were, and that your distribution is the one the
// library's :cpp:func:`litgrad::sample` draws from.

// %% hint
// Visit the tokens from the most likely down, adding up their probabilities. When you
// come to a token, the tokens already kept either make the nucleus complete or they do
// not: which of the two decides whether this token is kept?

// %% fold: includes
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

// %%
// The function to write, in ``exercises/12_gpt/1_nucleus.cpp``:

Tensor nucleus_distribution(const Tensor& scores, double p);

// %% fold: what a wrong distribution points to
namespace {
// softmax gives 0.4, 0.25, 0.15, 0.1, 0.06, 0.04 (as the scores' logs)
const std::vector<double> kProbabilities = {0.1, 0.4, 0.06, 0.25, 0.04, 0.15};

Tensor scores() {
  std::vector<double> z;
  for (double q : kProbabilities) z.push_back(std::log(q));
  return tensor(z, {6});
}

// The two most likely tokens' total, added as a nucleus adds them: a p they reach
// exactly.
double exact_share() {
  const std::vector<double> probs = softmax(scores(), 0).to_vector();
  return 0.0 + probs[1] + probs[3];
}

// The reference solution with the catalogued mistakes as switches.
struct Variant {
  bool unshifted = false, unsorted = false, least_first = false, never_cut = false;
  bool crossing_left_out = false, only_above = false, not_renormalised = false;
};

std::vector<double> variant_distribution(const Tensor& z, double p, const Variant& v) {
  const std::vector<double> probs =
      (v.unshifted ? exp(z) / sum(exp(z)) : softmax(z, 0)).to_vector();
  std::vector<std::size_t> order(probs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!v.unsorted)
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return v.least_first ? probs[a] < probs[b] : probs[a] > probs[b];
    });
  std::vector<double> kept(probs.size(), 0.0);
  double total = 0;
  for (std::size_t i : order) {
    if (!v.never_cut && (v.crossing_left_out ? total + probs[i] > p
                         : v.only_above      ? total > p
                                             : total >= p))
      break;
    kept[i] = probs[i];
    total += probs[i];
  }
  if (!v.not_renormalised)
    for (double& k : kept) k /= total;
  return kept;
}

// The catalogued mistake your distributions are, on every p the tests use and on scores
// a thousand higher, or "" when they are none of them or several.
std::string distribution_problem() {
  const std::vector<std::pair<Tensor, double>> probes = {
      {scores(), 0.3},  {scores(), 0.6},         {scores(), 0.7},
      {scores(), 0.78}, {scores(), 0.85},        {scores(), exact_share()},
      {scores(), 1.0},  {scores() + 1000.0, 0.7}};
  std::vector<std::vector<double>> yours;
  for (const auto& [z, p] : probes)
    yours.push_back(nucleus_distribution(z, p).to_vector());
  const std::string name = exercise::the_mistake(
      std::vector<std::pair<Variant, std::string>>{
          {{true}, "a softmax without the max shift"},
          {{false, true}, "the tokens taken unsorted"},
          {{false, false, true}, "the tokens visited from the least likely up"},
          {{false, false, false, true}, "the nucleus never cut"},
          {{false, false, false, false, true}, "the token that crosses p left out"},
          {{false, false, false, false, false, true},
           "the nucleus complete only above p"},
          {{false, false, false, false, false, false, true},
           "the kept probabilities not renormalised"}},
      [&](const Variant& v) {
        for (std::size_t k = 0; k < probes.size(); ++k)
          if (!exercise::agrees(
                  yours[k], variant_distribution(probes[k].first, probes[k].second, v),
                  1e-12))
            return false;
        return true;
      });
  return name.empty() ? "" : "your distributions are those of " + name;
}
}  // namespace

// %%
// The tests.

TEST_CASE("the nucleus holds the fewest most likely tokens whose total reaches p") {
  const std::string why = exercise::quietly(distribution_problem);
  INFO(why);
  // the sorted probabilities 0.4, 0.25, 0.15, 0.1, 0.06, 0.04 reach 0.3 with 1 token,
  // 0.65 with 2, 0.7 and 0.78 with 3, 0.85 with 4
  const std::vector<std::vector<int>> nucleus = {
      {1}, {1, 3}, {1, 3, 5}, {1, 3, 5}, {1, 3, 5, 0}};
  const std::vector<double> shares = {0.3, 0.6, 0.7, 0.78, 0.85};
  for (std::size_t c = 0; c < shares.size(); ++c) {
    const std::vector<double> d = nucleus_distribution(scores(), shares[c]).to_vector();
    REQUIRE(d.size() == 6);
    for (int i = 0; i < 6; ++i) {
      bool in = false;
      for (int k : nucleus[c]) in |= k == i;
      if (in)
        CHECK_MESSAGE(d[i] > 0, "at p = " << shares[c] << ", token " << i
                                          << " (probability " << kProbabilities[i]
                                          << ") is in the nucleus");
      else
        CHECK_MESSAGE(d[i] == 0.0, "at p = " << shares[c] << ", token " << i
                                             << " (probability " << kProbabilities[i]
                                             << ") is outside the nucleus");
    }
  }
}

TEST_CASE("a total that reaches p exactly completes the nucleus") {
  const std::string why = exercise::quietly(distribution_problem);
  INFO(why);
  const std::vector<double> d =
      nucleus_distribution(scores(), exact_share()).to_vector();
  REQUIRE(d.size() == 6);
  CHECK_MESSAGE(d[1] > 0, "the most likely token is in the nucleus");
  CHECK_MESSAGE(d[3] > 0, "the second most likely token is in the nucleus");
  CHECK_MESSAGE(d[5] == 0.0, "at p = " << exact_share()
                                       << ", the total of the two most likely tokens, "
                                          "they already reach p: the third is outside");
}

TEST_CASE("the kept tokens keep their odds and the probabilities sum to 1, to 1e-15") {
  const std::string why = exercise::quietly(distribution_problem);
  INFO(why);
  const std::vector<double> d = nucleus_distribution(scores(), 0.7).to_vector();
  REQUIRE(d.size() == 6);
  CHECK_MESSAGE(std::fabs(d[1] + d[3] + d[5] + d[0] + d[2] + d[4] - 1) < 1e-15,
                "the distribution's total");
  CHECK_MESSAGE(std::fabs(d[1] / d[3] - 0.4 / 0.25) < 1e-14,
                "the odds of tokens 1 and 3");
  CHECK_MESSAGE(std::fabs(d[3] / d[5] - 0.25 / 0.15) < 1e-14,
                "the odds of tokens 3 and 5");
}

TEST_CASE("with p = 1 every token is kept: the distribution is the softmax, to 1e-15") {
  const std::string why = exercise::quietly(distribution_problem);
  INFO(why);
  const Tensor z = scores();
  CHECK(max(abs(nucleus_distribution(z, 1.0) - softmax(z, 0))).item() < 1e-15);
}

// Scores a thousand higher are the same distribution, but adding 1000 rounds each score
// by up to half a unit in the last place of 1000, 2^-44 ≈ 5.7e-14, so each gap between
// two scores moves by up to 2^-43 and each probability, kept or renormalised, by up to
// a few times that relatively: 1e-12 allows it. A softmax without the max shift gives
// NaN.
TEST_CASE(
    "scores a thousand higher give the same nucleus, with its probabilities to 1e-12, "
    "and the caller's scores are left unchanged") {
  const Tensor high = scores() + 1000.0;
  const std::vector<double> before = high.to_vector();
  const std::vector<double> yours = nucleus_distribution(high, 0.7).to_vector();
  // p = 0.7 keeps 0.4, 0.25 and 0.15, shared out of their total 0.8
  const std::vector<double> expected = {0, 0.5, 0, 0.3125, 0, 0.1875};
  CHECK_MESSAGE(high.to_vector() == before,
                "your function changed the scores it was given (the caller's scores "
                "cut in place): a caller that samples again from them would find them "
                "cut");
  const std::string why = exercise::quietly(distribution_problem);
  INFO(why);
  REQUIRE(yours.size() == 6);
  for (int i = 0; i < 6; ++i)
    CHECK_MESSAGE(std::fabs(yours[i] - expected[i]) <= 1e-12,
                  "token " << i << " at p = 0.7, from scores 1000 + log(probability): "
                           << std::setprecision(17) << yours[i] << " where the nucleus "
                           << "gives it " << expected[i]);
}

TEST_CASE(
    "on random scores it is the distribution litgrad::sample draws from at top_p, "
    "to 1e-14") {
  const std::string why = exercise::quietly(distribution_problem);
  INFO(why);
  Generator gen(12);
  for (int trial = 0; trial < 50; ++trial) {
    const Tensor z = randn({20}, gen) * 2.0;
    for (double p : {0.5, 0.9, 0.99}) {
      const Tensor library = softmax(top_p_filter(z, p), 0);
      const Tensor yours = nucleus_distribution(z, p);
      CHECK_MESSAGE(max(abs(yours - library)).item() < 1e-14,
                    "trial " << trial << ", p = " << p);
    }
  }
}
