// Sampling: greedy, temperature, top-k and top-p (nucleus), held to their exact promises over
// many draws, random scores and several seeds; and the filters against a brute-force sort.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

namespace {

// Random scores [rows, V] spread like a model's (standard deviation 3), seeded.
Tensor random_logits(std::int64_t rows, std::int64_t V, Generator& gen) { return 3.0 * randn({rows, V}, gen); }

// The positions of one row's elements sorted by value from the largest down, equal values by
// position: the brute force the filters are held to.
std::vector<std::int64_t> descending_order(const double* row, std::int64_t V) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(V));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return row[a] > row[b]; });
  return order;
}

// Whether some row of x [rows, V] holds two equal scores.
bool has_ties(const Tensor& x) {
  const std::int64_t V = x.size(-1);
  for (std::int64_t r = 0; r < x.numel() / V; ++r) {
    std::vector<double> row(x.data() + r * V, x.data() + (r + 1) * V);
    std::sort(row.begin(), row.end());
    if (std::adjacent_find(row.begin(), row.end()) != row.end()) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("temperature 0 gives exactly argmax's ids and draws nothing from the generator") {
  for (std::uint64_t seed : {1, 2, 3}) {
    Generator data(seed), gen(seed), untouched(seed);
    const Tensor logits = random_logits(64, 37, data);
    const Tensor ids = sample(logits, {0.0, 5, 0.5}, gen);
    CHECK(test::identical(ids, argmax(logits, -1)));
    CHECK(gen.next_u64() == untouched.next_u64());
  }
}

TEST_CASE("top_k = 1 draws exactly argmax's ids, at every temperature, over 30,000 draws and three seeds") {
  for (std::uint64_t seed : {4, 5, 6}) {
    Generator data(seed), gen(seed + 100);
    for (int round = 0; round < 100; ++round) {
      const Tensor logits = random_logits(100, 50, data);
      REQUIRE_FALSE(has_ties(logits));  // with ties top_k = 1 keeps them all, as Hugging Face
      const double temperature = round % 2 ? 1.0 : 0.3 + 0.01 * round;
      const Tensor ids = sample(logits, {temperature, 1, 1.0}, gen);
      REQUIRE(test::identical(ids, argmax(logits, -1)));
    }
  }
}

TEST_CASE("with top_k = 0 or k >= V and top_p = 1 at temperature 1 sample draws exactly multinomial's ids") {
  for (std::uint64_t seed : {7, 8, 9}) {
    for (std::int64_t k : {0, 40, 41, 1000}) {
      Generator data(seed), gen(seed + 100), reference(seed + 100);
      for (int round = 0; round < 20; ++round) {
        const Tensor logits = random_logits(50, 40, data);
        const Tensor ids = sample(logits, {1.0, k, 1.0}, gen);
        const Tensor expected = multinomial(softmax(logits, -1), 1, false, reference);
        REQUIRE(test::identical(ids, reshape(expected, {50})));
      }
      CHECK(gen.next_u64() == reference.next_u64());  // one uniform a row, no more
    }
  }
  // One row [V] gives a 0-d id, multinomial's one draw.
  Generator data(10), gen(11), reference(11);
  const Tensor row = 3.0 * randn({40}, data);
  CHECK(test::identical(sample(row, {}, gen), reshape(multinomial(softmax(row, -1), 1, false, reference), {})));
}

TEST_CASE("k = 0, k >= V and p = 1 leave the scores as they are, every bit") {
  Generator data(12);
  const Tensor logits = random_logits(20, 30, data);
  const Tensor copy = logits.clone().detach();
  for (std::int64_t k : {0, 30, 31}) CHECK(test::identical(top_k_filter(logits, k), copy));
  CHECK(test::identical(top_p_filter(logits, 1.0), copy));
  // Even where the running sum reaches 1 at the first token: softmax gives [0, -50, -60] the
  // probabilities 1 (rounded), 2e-22 and 9e-27, so any p < 1 keeps the first token alone.
  const Tensor peaked = tensor({0, -50, -60});
  REQUIRE(softmax(peaked, -1).data()[0] == 1.0);
  CHECK(test::identical(top_p_filter(peaked, 1.0), peaked));
  CHECK(test::identical(top_p_filter(peaked, 0.999), tensor({0, -INFINITY, -INFINITY})));
}

TEST_CASE("top_k_filter keeps the k highest scores and every score tied with the k-th, as Hugging Face's") {
  const Tensor x = tensor({1, 3, 3, 2, 0});
  const double inf = INFINITY;
  CHECK(test::identical(top_k_filter(x, 1), tensor({-inf, 3, 3, -inf, -inf})));  // the tie stays
  CHECK(test::identical(top_k_filter(x, 2), tensor({-inf, 3, 3, -inf, -inf})));
  CHECK(test::identical(top_k_filter(x, 3), tensor({-inf, 3, 3, 2, -inf})));
  CHECK(test::identical(top_k_filter(x, 4), tensor({1, 3, 3, 2, -inf})));
  // On random rows: exactly the scores >= the k-th of a sorted copy stay, each bit unchanged.
  Generator data(13);
  const Tensor logits = random_logits(200, 25, data);
  for (std::int64_t k : {1, 2, 7, 24}) {
    const Tensor kept = top_k_filter(logits, k);
    for (std::int64_t r = 0; r < 200; ++r) {
      const double* row = logits.data() + r * 25;
      const double kth = row[descending_order(row, 25)[static_cast<std::size_t>(k - 1)]];
      for (std::int64_t j = 0; j < 25; ++j) REQUIRE(kept.data()[r * 25 + j] == (row[j] >= kth ? row[j] : -inf));
    }
  }
}

TEST_CASE("a top-k draw never falls outside the k highest scores, over 100,000 draws and three seeds") {
  for (std::uint64_t seed : {14, 15, 16}) {
    Generator data(seed), gen(seed + 100);
    std::int64_t outside = 0;
    for (int round = 0; round < 100; ++round) {
      const Tensor logits = random_logits(1000, 20, data);
      const std::int64_t k = 1 + round % 10;
      const Tensor ids = sample(logits, {1.5, k, 1.0}, gen);
      for (std::int64_t r = 0; r < 1000; ++r) {
        const double* row = logits.data() + r * 20;
        const double kth = row[descending_order(row, 20)[static_cast<std::size_t>(k - 1)]];
        outside += row[static_cast<std::int64_t>(ids.data()[r])] < kth;
      }
    }
    CHECK(outside == 0);
  }
}

TEST_CASE("top-k draws each kept token with its renormalised probability, within five standard errors") {
  // Scores ln 1, ln 3 and two far below: top_k = 2 keeps the first two, which softmax weighs
  // 1/4 and 3/4. Over n = 100,000 draws the share of token 0 has standard error
  // sqrt(1/4 * 3/4 / n) = 0.00137; five of them, 0.0068, fail a correct sampler with
  // probability below 1e-6.
  const Tensor logits = tensor({0.0, std::log(3.0), -1.0, -2.0});
  Generator gen(17);
  const std::int64_t n = 100000;
  const Tensor ids = sample(expand(reshape(logits, {1, 4}), {n, 4}), {1.0, 2, 1.0}, gen);
  const double share = sum(ids == 0.0).item() / static_cast<double>(n);
  CHECK(sum(ids >= 2.0).item() == 0);
  CHECK(std::fabs(share - 0.25) < 5 * std::sqrt(0.25 * 0.75 / n));
}

TEST_CASE(
    "top_p_filter keeps the smallest set of most likely tokens whose probability reaches p, as a brute-force sort "
    "finds") {
  // The brute force: sort softmax's probabilities from the largest down (equal ones by
  // position), add them up left to right, and keep tokens until the sum first reaches p.
  const double inf = INFINITY;
  for (std::uint64_t seed : {18, 19, 20}) {
    Generator data(seed);
    for (int round = 0; round < 50; ++round) {
      const std::int64_t V = 1 + round;
      const Tensor logits = random_logits(40, V, data);
      const double p = std::max(1e-3, rand({}, data).item());
      const Tensor kept = top_p_filter(logits, p);
      const Tensor probs = softmax(logits, -1);
      for (std::int64_t r = 0; r < 40; ++r) {
        const double* prob = probs.data() + r * V;
        const std::vector<std::int64_t> order = descending_order(prob, V);
        std::vector<bool> in(static_cast<std::size_t>(V), false);
        double mass = 0;
        for (std::int64_t j : order) {
          in[static_cast<std::size_t>(j)] = true;
          mass += prob[j];
          if (mass >= p) break;
        }
        for (std::int64_t j = 0; j < V; ++j) {
          const double x = logits.data()[r * V + j];
          REQUIRE(kept.data()[r * V + j] == (in[static_cast<std::size_t>(j)] ? x : -inf));
        }
      }
    }
  }
}

TEST_CASE(
    "top-p keeps the most likely token alone when it holds p, and ties by position: 4 equal scores and p = 1/2 keep "
    "the first 2") {
  const double inf = INFINITY;
  // Equal scores have probability exactly 1/4 each, and 1/4 + 1/4 = 1/2 exactly: the mass
  // reaches p = 1/2 at the second token, so a third would not make the set smallest.
  CHECK(test::identical(top_p_filter(zeros({4}), 0.5), tensor({0, 0, -inf, -inf})));
  CHECK(test::identical(top_p_filter(zeros({4}), 0.5000001), tensor({0, 0, 0, -inf})));
  // The most likely token is kept for every p, however small.
  CHECK(test::identical(top_p_filter(tensor({0, 2, 1}), 1e-300), tensor({-inf, 2, -inf})));
  CHECK(test::identical(top_p_filter(tensor({0, 2, 1}), 0.5), tensor({-inf, 2, -inf})));  // 0.665 >= 0.5
  CHECK(test::identical(top_p_filter(tensor({0, 2, 1}), 0.7), tensor({-inf, 2, 1})));
}

TEST_CASE("a top-p draw never falls outside the nucleus, over 100,000 draws and three seeds") {
  for (std::uint64_t seed : {21, 22, 23}) {
    Generator data(seed), gen(seed + 100);
    std::int64_t outside = 0;
    for (int round = 0; round < 100; ++round) {
      const Tensor logits = random_logits(1000, 20, data);
      const double p = 0.05 + 0.009 * round;
      const Tensor nucleus = top_p_filter(logits, p);
      const Tensor ids = sample(logits, {1.0, 0, p}, gen);
      for (std::int64_t r = 0; r < 1000; ++r)
        outside += std::isinf(nucleus.data()[r * 20 + static_cast<std::int64_t>(ids.data()[r])]);
    }
    CHECK(outside == 0);
  }
}

TEST_CASE("sample divides by the temperature, then applies top_k_filter, then top_p_filter, as Hugging Face") {
  for (std::uint64_t seed : {24, 25, 26}) {
    Generator data(seed), gen(seed + 100), reference(seed + 100);
    for (int round = 0; round < 20; ++round) {
      const Tensor logits = random_logits(100, 30, data);
      const SamplingOptions options{0.5 + 0.1 * round, 3 + round, 0.3 + 0.03 * round};
      const Tensor scores = top_p_filter(top_k_filter(logits / options.temperature, options.top_k), options.top_p);
      const Tensor expected = multinomial(softmax(scores, -1), 1, false, reference);
      REQUIRE(test::identical(sample(logits, options, gen), reshape(expected, {100})));
    }
  }
}

TEST_CASE("sample draws one Int64 id per row: [V] gives a 0-d id, [B, T, V] gives [B, T]") {
  Generator gen(27);
  const Tensor one = sample(randn({7}, gen), {}, gen);
  CHECK(one.shape() == Shape{});
  CHECK(one.dtype() == DType::Int64);
  const Tensor many = sample(randn({2, 3, 7}, gen), {0.8, 3, 0.9}, gen);
  CHECK(many.shape() == Shape{2, 3});
  CHECK(many.dtype() == DType::Int64);
  CHECK(sample(randn({2, 3, 7}, gen), {0.0}, gen).shape() == Shape{2, 3});
  CHECK(sample(zeros({0, 7}), {}, gen).shape() == Shape{0});
}

TEST_CASE("sampling records no graph, and a gradient through a filter reaches the kept scores alone") {
  Generator gen(28);
  Tensor logits = tensor({1, 3, 2, 0}).requires_grad_();
  const Tensor ids = sample(logits, {0.7, 2, 0.9}, gen);
  CHECK_FALSE(ids.requires_grad());
  CHECK(ids.is_leaf());
  sum(exp(top_k_filter(logits, 2))).backward();  // d/dx of e^x where kept, 0 where removed
  CHECK(test::identical(logits.grad(), tensor({0, std::exp(3.0), std::exp(2.0), 0})));
}

TEST_CASE("bad options and scores give errors naming the operation and the value, never a crash") {
  Generator gen(29);
  const Tensor logits = zeros({2, 5});
  CHECK_THROWS_WITH_AS(top_k_filter(logits, -1), "top_k_filter: top_k must be >= 0 (0 keeps every token), got -1",
                       ValueError);
  CHECK_THROWS_WITH_AS(top_p_filter(logits, 0.0), "top_p_filter: top_p must be in (0, 1], got 0", ValueError);
  CHECK_THROWS_WITH_AS(top_p_filter(logits, 1.5), "top_p_filter: top_p must be in (0, 1], got 1.5", ValueError);
  CHECK_THROWS_WITH_AS(top_p_filter(logits, NAN), "top_p_filter: top_p must be in (0, 1], got nan", ValueError);
  CHECK_THROWS_WITH_AS(sample(logits, {-1.0}, gen), "sample: temperature must be finite and >= 0 (0 is greedy), got -1",
                       ValueError);
  CHECK_THROWS_WITH_AS(sample(logits, {NAN}, gen), "sample: temperature must be finite and >= 0 (0 is greedy), got nan",
                       ValueError);
  CHECK_THROWS_WITH_AS(sample(logits, {INFINITY}, gen),
                       "sample: temperature must be finite and >= 0 (0 is greedy), got inf", ValueError);
  CHECK_THROWS_WITH_AS(sample(logits, {1.0, -2}, gen), "sample: top_k must be >= 0 (0 keeps every token), got -2",
                       ValueError);
  CHECK_THROWS_WITH_AS(sample(logits, {1.0, 0, -0.5}, gen), "sample: top_p must be in (0, 1], got -0.5", ValueError);
  CHECK_THROWS_WITH_AS(sample(logits.to(DType::Int64)),
                       "sample: logits must be Float64 scores, got Int64 of shape [2,5]", ValueError);
  CHECK_THROWS_WITH_AS(top_k_filter(logits.to(DType::Bool), 1),
                       "top_k_filter: logits must be Float64 scores, got Bool of shape [2,5]", ValueError);
  CHECK_THROWS_WITH_AS(sample(scalar_tensor(1.0)),
                       "sample: logits must have a last dimension of tokens [..., V], got a 0-d tensor", ShapeError);
  CHECK_THROWS_WITH_AS(top_p_filter(scalar_tensor(1.0), 0.5),
                       "top_p_filter: logits must have a last dimension of tokens [..., V], got a 0-d tensor",
                       ShapeError);
  CHECK_THROWS_WITH_AS(sample(zeros({3, 0}), {0.0}), "sample: logits of shape [3,0] have no tokens (V = 0)",
                       ValueError);
  CHECK_THROWS_WITH_AS(top_k_filter(zeros({0}), 1), "top_k_filter: logits of shape [0] have no tokens (V = 0)",
                       ValueError);
  // Scores no distribution comes from: a NaN, +inf, or a row of -inf.
  for (const Tensor& bad : {tensor({0, NAN, 1}), tensor({0, INFINITY, 1}), full({3}, -INFINITY)})
    CHECK_THROWS_WITH_AS(sample(bad, {}, gen),
                         doctest::Contains("sample: the scores give no distribution to draw from (multinomial: "),
                         ValueError);
  // Everything still works after the errors.
  CHECK(sample(tensor({0, 5, 1}), {0.0}, gen).item() == 1);
}
