// Exercise 8.2 · Attention for a batch of sentences
// =================================================
//
// Section 1's three lines attend within one sentence ``X`` of shape ``[T, E]``. Write
// them for a batch of ``B`` sentences at once, ``X`` of shape ``[B, T, E]``: each
// sentence's tokens attend to the tokens of the same sentence and to no other. The
// output has the shape of ``X``.
//
// The starter has a first attempt that many people write: it lays the batch out as one
// long sentence of :math:`B \cdot T` tokens, attends, and cuts the result back into
// sentences. Its shapes are right and its numbers are not. The tests say how.
//
// Your output should equal section 1's attention run on each sentence alone. The two
// add the same products in the same order (litgrad's :cpp:func:`litgrad::matmul`
// computes each member of a batched product exactly as the product alone), so they
// agree to well within :math:`10^{-14}`, the rounding allowance section 1 derives for
// reordered sums.

// %% hint
// Section 1's lines act on the last two dimensions of a sentence, tokens and features.
// litgrad's products and softmax treat any dimensions in front of those as a batch, one
// matrix per member, if each operand is laid out the same way. Which dimensions of the
// scores are one sentence's rows and columns, and along which does each token's
// distribution run?

// %% fold: includes, section 1's attention of one sentence, what a wrong answer shows
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

namespace {
// Section 1: one sentence X [T, E] attends to itself; the output is [T, E].
Tensor attend_one(const Tensor& X) {
  return matmul(softmax(matmul(X, transpose(X, 0, 1)), -1), X);
}

double largest_gap(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() ? max(abs(a - b)).item() : INFINITY;
}

// Which of the usual wrong answers `out` is, for the batch X [B, T, E], in words.
std::string mistake_behind(const Tensor& X, const Tensor& out) {
  const std::int64_t B = X.size(0), T = X.size(1), E = X.size(2);
  const Tensor flat = reshape(X, {B * T, E});
  const Tensor flat_scores = matmul(flat, transpose(flat, 0, 1));
  const Tensor one_sentence =
      reshape(matmul(softmax(flat_scores, -1), flat), {B, T, E});
  const Tensor scores = matmul(X, transpose(X, 1, 2));
  if (largest_gap(out, one_sentence) < 1e-12)
    return "a token's weights run over the tokens of every sentence: this points to "
           "the batch attended as one long sentence";
  if (largest_gap(out, matmul(softmax(scores, 1), X)) < 1e-12)
    return "these are weights that sum to one down each column of a sentence's map: "
           "this points to softmax along the queries, not along the keys";
  if (largest_gap(out, matmul(scores, X)) < 1e-12)
    return "this is the scores times the tokens, nothing turned into weights: this "
           "points to the scores used as weights";
  return "";
}
}  // namespace

// %%
// The function to write, in ``exercises/08_attention/2_batched_attention.cpp``:

Tensor batched_self_attention(const Tensor& X);  // [B, T, E] -> [B, T, E]

// %%
// The tests.

namespace {
// Your function on X; a product of the wrong shapes is named, not only thrown.
Tensor attended(const Tensor& X) {
  try {
    return batched_self_attention(X);
  } catch (const ShapeError& e) {
    const std::string swapped = to_string(transpose(X, 0, 1).shape());
    if (std::string(e.what()).find(swapped) != std::string::npos)
      FAIL("matmul got ", swapped,
           ", X with its sentences and tokens swapped: this "
           "points to the batch dimension transposed, where each sentence's own map "
           "needs its tokens and features swapped (",
           e.what(), ")");
    throw;
  }
}
}  // namespace

TEST_CASE(
    "each sentence's output equals section 1's attention of that sentence "
    "alone") {
  Generator gen(2);
  const Tensor X = randn({3, 5, 4}, gen);  // 3 sentences of 5 tokens of 4 features
  const Tensor out = attended(X);
  REQUIRE(out.shape() == X.shape());
  double worst = 0;
  for (std::int64_t b = 0; b < 3; ++b) {
    const Tensor alone = attend_one(select(X, 0, b));
    worst = std::max(worst, largest_gap(select(out, 0, b), alone));
  }
  const std::string why = exercise::quietly(mistake_behind, X, out);
  INFO(why);  // first: a later empty INFO would end doctest's report of the check
  INFO("largest difference from the sentence attended alone: ", worst);
  CHECK(worst <= 1e-14);
}

TEST_CASE(
    "sentences do not mix: changing sentence 1 leaves sentence 0's output "
    "exactly as it was") {
  Generator gen(3);
  const Tensor X = randn({2, 4, 3}, gen);
  const Tensor changed = cat({slice(X, 0, 0, 1), randn({1, 4, 3}, gen)}, 0);
  const Tensor before = select(attended(X), 0, 0);
  const Tensor after = select(attended(changed), 0, 0);
  const std::string why = exercise::quietly(mistake_behind, X, attended(X));
  INFO(why);
  INFO("largest change in sentence 0's output: ", largest_gap(after, before));
  CHECK(largest_gap(after, before) == 0.0);
}

// A token's weights are each 1/5 here, rounded once; each of the five products rounds
// once more, and their sum adds at most 4u of the total, so every output is within
// 6u |x| of the token x; the test allows 8u.

TEST_CASE(
    "a token's weights sum to one: in a sentence of one repeated token, every "
    "output is that token, to within 8u of its size") {
  Generator gen(4);
  const Tensor tokens = randn({2, 1, 4}, gen);  // one token for each sentence
  const Tensor X = tokens * ones({2, 5, 1});    // 2 sentences, each its token 5 times
  const Tensor out = attended(X);
  REQUIRE(out.shape() == X.shape());
  const std::string why = exercise::quietly(mistake_behind, X, out);
  INFO(why);
  INFO("largest difference from the repeated token: ", largest_gap(out, X));
  CHECK(largest_gap(out, X) <= 8 * 0x1p-53 * max(abs(X)).item());
}
