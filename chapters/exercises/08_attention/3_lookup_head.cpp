// Exercise 8.3 · A head that looks things up, by hand
// ===================================================
//
// Section 3 trained a head of self-attention to look things up: each of six tokens is a
// colour, wants a colour and carries a value, and its answer is the value of the token
// whose colour it wants. Training found query, key and value projections that do it.
// You can write them yourself.
//
// Write ``lookup_head()``, which returns the eight parameters of section 3's head: the
// matrices :math:`W_q, W_k, W_v, W_o` of shape ``[13, 13]`` (a token :math:`x`, a row
// of 13 numbers, becomes :math:`x W`) and the biases :math:`b_q, b_k, b_v, b_o` of
// shape ``[13]``. A token's 13 features are, in order, the one-hot code of the colour
// it is (features 0 to 5), the one-hot code of the colour it wants (6 to 11), and its
// value (12). The head is section 3's, unchanged: scores
// :math:`q_i \cdot k_j / \sqrt{13}`, a softmax along each row, the weighted average of
// the values, then :math:`W_o` and :math:`b_o`; its answer for a token is the last
// feature of the token's output.
//
// The tests ask for more than training reached: over 0.99 of every token's weight on
// the token it asked for, and each answer within 0.01 of the right value, on 256 fresh
// sequences.

// %% hint
// Ask what each of the three vectors is for. The score of token :math:`i` for token
// :math:`j` must be large exactly when what :math:`i` wants is what :math:`j` is, so
// think of a query as built from one group of a token's features and a key from
// another, both landing in the same few coordinates. How much larger must the matching
// score be than the others for 0.99 of the weight, with five others to share the
// rest, and what does the head do to every score before the softmax? The value only has
// to travel from where it sits in a token to where the answer is read.

// %% fold: includes, and section 3's head and task
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

// The eight parameters of a head over tokens of 13 features.
struct HeadWeights {
  Tensor W_q, W_k, W_v, W_o;  // [13, 13]: a token x becomes x W
  Tensor b_q, b_k, b_v, b_o;  // [13]
};

namespace {
constexpr std::int64_t kColours = 6, kWidth = 13;

// Section 3's head on tokens X [n, 6, 13]: the weights [n, 6, 6] and answers [n, 6].
struct Looked {
  Tensor weights, answer;
};

Looked look(const HeadWeights& h, const Tensor& X) {
  const Tensor Q = matmul(X, h.W_q) + h.b_q, K = matmul(X, h.W_k) + h.b_k;
  const Tensor V = matmul(X, h.W_v) + h.b_v;
  const Tensor scores = matmul(Q / std::sqrt(13.0), transpose(K, -2, -1));
  const Tensor weights = softmax(scores, -1);
  const Tensor output = matmul(matmul(weights, V), h.W_o) + h.b_o;
  return {weights, select(output, -1, kWidth - 1)};
}

// Section 3's task: tokens [n, 6, 13], answers [n, 6], and asked [n, 6, 6], 1 where
// token i wants token j's colour.
struct LookupBatch {
  Tensor tokens, answer, asked;
};

LookupBatch lookup_batch(std::int64_t n, Generator& gen) {
  std::vector<Tensor> orders;
  for (std::int64_t b = 0; b < n; ++b) orders.push_back(randperm(kColours, gen));
  const auto code = [](const Tensor& c) {
    return one_hot(to(c, DType::Int64), kColours).to(DType::Float64);
  };
  const Tensor is = code(stack(orders));
  const Tensor wants = code(randint(0, kColours, {n, kColours}, gen));
  const Tensor value = randn({n, kColours, 1}, gen);
  const Tensor asked = matmul(wants, transpose(is, 1, 2));
  return {cat({is, wants, value}, 2), reshape(matmul(asked, value), {n, kColours}),
          asked};
}

bool shaped_right(const HeadWeights& h) {
  for (const Tensor* W : {&h.W_q, &h.W_k, &h.W_v, &h.W_o})
    if (!W->defined() || W->shape() != Shape{kWidth, kWidth}) return false;
  for (const Tensor* b : {&h.b_q, &h.b_k, &h.b_v, &h.b_o})
    if (!b->defined() || b->shape() != Shape{kWidth}) return false;
  return true;
}

// Where the weights of a wrong head go, in words.
std::string where_the_weight_goes(const Looked& l, const LookupBatch& b) {
  const double n = static_cast<double>(b.asked.size(0) * kColours);
  const Tensor eye6 = eye(kColours);
  const double on_asked = sum(l.weights * b.asked).item() / n;
  const double on_self = sum(l.weights * eye6).item() / n;
  const double on_askers = sum(l.weights * transpose(b.asked, 1, 2)).item() / n;
  const Tensor best = argmax(l.weights, -1), right = argmax(b.asked, -1);
  const bool argmax_right = sum(ne(best, right)).item() == 0;
  if (argmax_right)
    return "every token gives the token it asked for its largest weight, but not "
           "enough of it: the scores are too close together. What does the head do to "
           "every score before the softmax? This points to the division by the square "
           "root of 13 forgotten";
  if (on_self > on_asked && on_self > on_askers)
    return "tokens attend mostly to themselves (mean weight " +
           std::to_string(on_self) +
           "): this points to the query made from the colour a token is, not the one "
           "it wants";
  if (on_askers > on_asked)
    return "tokens attend to the tokens that want *their* colour (mean weight " +
           std::to_string(on_askers) + "): this points to queries and keys swapped";
  return "mean weight on the token asked for: " + std::to_string(on_asked);
}
}  // namespace

// %%
// The function to write, in ``exercises/08_attention/3_lookup_head.cpp``:

HeadWeights lookup_head();

// %%
// The tests.

TEST_CASE(
    "every token puts over 0.99 of its weight on the token of the colour it "
    "wants") {
  const HeadWeights h = lookup_head();
  REQUIRE(shaped_right(h));
  Generator gen(1);
  const LookupBatch b = lookup_batch(256, gen);
  const Looked l = look(h, b.tokens);
  const double least = min(sum(l.weights * b.asked, {-1})).item();
  const std::string why = exercise::quietly(where_the_weight_goes, l, b);
  INFO(why);
  INFO("the least weight a token put on the token it asked for: ", least);
  CHECK(least > 0.99);
}

TEST_CASE(
    "the last feature of every output is the value of the token asked for, "
    "within 0.01") {
  const HeadWeights h = lookup_head();
  REQUIRE(shaped_right(h));
  Generator gen(2);
  const LookupBatch b = lookup_batch(256, gen);
  const Looked l = look(h, b.tokens);
  const double worst = max(abs(l.answer - b.answer)).item();
  const Tensor own_values = select(b.tokens, -1, kWidth - 1);  // [256, 6]
  std::string why;
  if (max(abs(l.answer)).item() == 0.0)
    why =
        "every answer is 0: the value never reaches the output's last feature (what "
        "do W_v and W_o do with feature 12?); this points to the value carried to "
        "the wrong feature";
  else if (max(abs(l.answer - own_values)).item() < 0.01)
    why =
        "the answers are the tokens' own values: the weight is not on the token "
        "asked for";
  INFO(why);
  INFO("the largest error of an answer: ", worst);
  CHECK(worst < 0.01);
}
