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

// The distribution of the reference solution with its softmax written as exp(z) / Σ
// exp(z), without the max shift: the catalogued mistake's own output, to compare yours
// with.
std::vector<double> unshifted_distribution(const Tensor& z, double p) {
  const Tensor e = exp(z);
  const std::vector<double> probs = (e / sum(e)).to_vector();
  std::vector<std::size_t> order(probs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return probs[a] > probs[b]; });
  std::vector<double> kept(probs.size(), 0.0);
  double total = 0;
  for (std::size_t i : order) {
    if (total >= p) break;
    kept[i] = probs[i];
    total += probs[i];
  }
  for (double& k : kept) k /= total;
  return kept;
}

// Whether two lists hold NaN at the same places and the same numbers elsewhere.
bool same_numbers(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::isnan(a[i]) != std::isnan(b[i]) || (!std::isnan(a[i]) && a[i] != b[i]))
      return false;
  return true;
}

std::string distribution_problem() {
  const std::vector<double> small = nucleus_distribution(scores(), 0.3).to_vector();
  if (small.size() == 6 && small[1] == 0.0 && small[4] > 0)
    return "at p = 0.3 the least likely tokens are kept and the most likely dropped: "
           "this points to the tokens visited from the least likely up";
  for (std::size_t i = 0; i < small.size() && i < 6; ++i)
    for (std::size_t j = 0; j < small.size() && j < 6; ++j)
      if (small[i] > 0 && small[j] == 0.0 && kProbabilities[i] < kProbabilities[j])
        return "at p = 0.3 token " + std::to_string(i) +
               " is kept but the more likely token " + std::to_string(j) +
               " is not: this points to the tokens taken unsorted";
  const std::vector<double> d = nucleus_distribution(scores(), 0.7).to_vector();
  if (d.size() != 6) return "";
  int kept = 0;
  double total = 0;
  for (double v : d) kept += v > 0, total += v;
  // p = 0.7: 0.4 + 0.25 = 0.65 is short of it, so 0.15 completes the nucleus: 3 kept.
  if (kept == 2 && d[1] > 0 && d[3] > 0)
    return "two tokens kept where three should be: the token whose probability "
           "carries the total past p was left out; this points to the token that "
           "crosses p left out";
  if (kept == 3 && std::fabs(total - 0.8) < 1e-12)
    return "the right three tokens are kept but the probabilities sum to 0.8: this "
           "points to the kept probabilities not renormalised";
  if (kept == 6)
    return "every token is kept at p = 0.7: this points to the nucleus never cut";
  const std::vector<double> exact =
      nucleus_distribution(scores(), exact_share()).to_vector();
  if (exact.size() == 6 && exact[5] > 0 && exact[1] > 0 && exact[3] > 0)
    return "at a p that the two most likely tokens reach exactly, a third is kept: "
           "this "
           "points to the nucleus complete only above p";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE("the nucleus holds the fewest most likely tokens whose total reaches p") {
  INFO(distribution_problem());
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
  INFO(distribution_problem());
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
  INFO(distribution_problem());
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
  INFO(distribution_problem());
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
  const std::string unshifted_named =
      same_numbers(yours, unshifted_distribution(high, 0.7))
          ? "your distribution is that of a softmax without the max shift: exp(1000) "
            "is infinite in double precision, and infinity over infinity is NaN"
          : "";
  INFO(unshifted_named);
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
  INFO(distribution_problem());
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
