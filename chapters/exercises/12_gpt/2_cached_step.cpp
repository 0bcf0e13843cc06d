// Exercise 12.2 · A decoding step with a cache
// ============================================
//
// Write one attention head's decoding step with a cache of keys and values (section
// 5). The new token comes with its query :math:`q`, key :math:`k` and value :math:`v`,
// each of shape :math:`[d]`; the cache holds the keys and the values of the
// :math:`s` tokens before it, each ``[s, d]`` (undefined tensors when :math:`s = 0`).
// Append the new key and value to the cache, then return what the new token's query
// gathers: the values, weighted by :math:`\operatorname{softmax}(K q / \sqrt{d})` over
// all :math:`s + 1` keys, its own included, a vector of shape :math:`[d]`. The tests
// feed a sequence one token at a time and check what the cache holds, that the first
// step gives the token its own value, and that every step's output is the row that
// causal attention over the whole sequence computes for that token.

// %% hint
// The new token may attend to itself: by the time its scores are computed, its key must
// already be in the cache. Keep the shapes in mind: the query against every key is one
// row of scores, and softmax normalises along that row.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

// %%
// The cache and the function to write, in ``exercises/12_gpt/2_cached_step.cpp``:

// struct HeadCache {         (in chapters/exercises/your_gpt.hpp)
//   Tensor keys, values;  // [s, d] each; undefined before the first token
// };

Tensor decode_step(const Tensor& q, const Tensor& k, const Tensor& v, HeadCache& cache);

// %% fold: a sequence to decode, and what a wrong step points to
namespace {
constexpr std::int64_t kTokens = 6, kWidth = 4;

struct Sequence {
  Tensor q, k, v;  // [6, 4] each
};

Sequence sequence(std::uint64_t seed) {
  Generator gen(seed);
  return {randn({kTokens, kWidth}, gen), randn({kTokens, kWidth}, gen),
          randn({kTokens, kWidth}, gen)};
}

// Each step's output [6, 4], decoded one token at a time from an empty cache.
Tensor decoded(const Sequence& x, HeadCache& cache) {
  std::vector<Tensor> rows;
  for (std::int64_t t = 0; t < kTokens; ++t)
    rows.push_back(
        decode_step(select(x.q, 0, t), select(x.k, 0, t), select(x.v, 0, t), cache)
            .reshape({1, kWidth}));
  return cat(rows, 0);
}

// The rows causal attention gives with the queries scaled by `scale` instead of 1/√d.
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale) {
  const Tensor scores =
      matmul(q, k.transpose(0, 1)) * scale + generate_square_subsequent_mask(kTokens);
  return matmul(softmax(scores, 1), v);
}

std::string step_problem() {
  const Sequence x = sequence(1);
  HeadCache cache;
  const Tensor out = decoded(x, cache);
  if (out.shape() != Shape{kTokens, kWidth}) return "";
  auto near = [&](const Tensor& expected) {
    return max(abs(out - expected)).item() < 1e-12;
  };
  if (near(attention(x.q, x.k, x.v, 1.0)))
    return "your outputs are causal attention without the scale: this points to the "
           "scores not divided by the square root of d";
  if (near(attention(x.q, x.k, x.v, 1.0 / kWidth)))
    return "your outputs are causal attention with the scores divided by d: this "
           "points "
           "to the scale by d instead of its square root";
  if (near(attention(x.q, x.k, x.k, 1.0 / std::sqrt(kWidth))))
    return "your outputs are the keys averaged with attention's weights: this points "
           "to "
           "the keys and values swapped";
  // each token attending only to the tokens before it (the first to itself)
  std::vector<Tensor> rows = {slice(x.v, 0, 0, 1)};
  for (std::int64_t t = 1; t < kTokens; ++t) {
    const Tensor s =
        matmul(slice(x.q, 0, t, t + 1), slice(x.k, 0, 0, t).transpose(0, 1)) /
        std::sqrt(double(kWidth));
    rows.push_back(matmul(softmax(s, 1), slice(x.v, 0, 0, t)));
  }
  if (near(cat(rows, 0)))
    return "each output attends to the tokens before it but not to itself: this "
           "points to the new key appended after attending";
  // softmax down a column of one: every weight 1, so the output sums the values
  const Tensor summed = matmul(tril(ones({kTokens, kTokens})), x.v);
  if (near(summed))
    return "each output is the sum of the values so far: every weight is 1, this "
           "points "
           "to softmax along the wrong dimension";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE("after each step the cache holds exactly the keys and values fed so far") {
  INFO(step_problem());
  const Sequence x = sequence(2);
  HeadCache cache;
  for (std::int64_t t = 0; t < kTokens; ++t) {
    decode_step(select(x.q, 0, t), select(x.k, 0, t), select(x.v, 0, t), cache);
    REQUIRE_MESSAGE(cache.keys.defined(), "after step " << t);
    REQUIRE_MESSAGE(cache.keys.shape() == (Shape{t + 1, kWidth}), "after step " << t);
    REQUIRE_MESSAGE(cache.values.shape() == (Shape{t + 1, kWidth}), "after step " << t);
    CHECK_MESSAGE(max(abs(cache.keys - slice(x.k, 0, 0, t + 1))).item() == 0.0,
                  "the keys after step " << t);
    CHECK_MESSAGE(max(abs(cache.values - slice(x.v, 0, 0, t + 1))).item() == 0.0,
                  "the values after step " << t);
  }
}

TEST_CASE("each step's output is causal attention's row for that token, to 1e-14") {
  INFO(step_problem());
  for (std::uint64_t seed : {3, 4, 5}) {
    const Sequence x = sequence(seed);
    HeadCache cache;
    const Tensor out = decoded(x, cache);
    REQUIRE(out.shape() == (Shape{kTokens, kWidth}));
    const Tensor expected =
        scaled_dot_product_attention(x.q, x.k, x.v, Tensor(), 0.0, true).output;
    for (std::int64_t t = 0; t < kTokens; ++t)
      CHECK_MESSAGE(max(abs(select(out, 0, t) - select(expected, 0, t))).item() < 1e-14,
                    "step " << t << " of seed " << seed);
  }
}

TEST_CASE(
    "the first step, with only its own key, returns its own value [d], to 1e-15") {
  INFO(step_problem());
  const Sequence x = sequence(6);
  HeadCache cache;
  const Tensor first =
      decode_step(select(x.q, 0, 0), select(x.k, 0, 0), select(x.v, 0, 0), cache);
  REQUIRE_MESSAGE(first.shape() == Shape{kWidth}, "your step returned the shape ",
                  to_string(first.shape()), " where one vector, [", kWidth,
                  "], was expected");
  CHECK(max(abs(first - select(x.v, 0, 0))).item() < 1e-15);
}
