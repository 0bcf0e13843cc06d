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
// computes each element of a batched product exactly as the unbatched one), so they
// agree to well within :math:`10^{-14}`, the rounding allowance section 1 derives for
// reordered sums.

// %% hint
// :cpp:func:`litgrad::matmul` multiplies batches: ``[B, T, E] @ [B, E, T]`` is ``[B, T,
// T]``, one score matrix per sentence. Transpose only the last two dimensions of ``X``,
// and take the softmax along the last one.

// %% fold: includes, and section 1's attention of one sentence
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// Section 1: one sentence X [T, E] attends to itself; the output is [T, E].
Tensor attend_one(const Tensor& X) {
  return matmul(softmax(matmul(X, transpose(X, 0, 1)), -1), X);
}
}  // namespace

// %%
// The function to write, in ``exercises/08_attention/2_batched_attention.cpp``:

Tensor batched_self_attention(const Tensor& X);  // [B, T, E] -> [B, T, E]

// %% fold: your output, and what a wrong one points to
namespace {
// Your output for X, or nothing if your function threw (the message says what was
// thrown and what that points to).
std::optional<Tensor> yours_for(const Tensor& X) {
  std::string threw;
  try {
    return batched_self_attention(X);
  } catch (const std::exception& e) {
    threw = e.what();
  }
  const std::string why =
      threw.rfind("matmul", 0) == 0
          ? "; scores of shapes that do not fit: the transpose moved "
            "the batch dimension, which points to the batch "
            "dimension transposed"
          : "";
  FAIL_CHECK("your function threw: ", threw, why);
  return std::nullopt;
}

// What your output for one sentence X [1, T, E] points to.
std::string output_problem(const Tensor& X) {
  const Tensor yours = batched_self_attention(X);
  if (yours.shape() != X.shape()) return "";
  const Tensor one = select(X, 0, 0), mine = select(yours, 0, 0);
  const Tensor scores = matmul(one, transpose(one, 0, 1));
  if (exercise::agrees(mine, matmul(softmax(scores, 0), one), 1e-12))
    return "for one sentence yours weights each key's column to sum to 1, not each "
           "query's row: this points to softmax along the wrong dimension";
  if (exercise::agrees(mine, matmul(exp(scores), one), 1e-12))
    return "for one sentence yours weights the tokens by e^score without dividing by "
           "the row's sum: this points to exponentials that are not normalised";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "each sentence's output equals section 1's attention of that sentence "
    "alone") {
  Generator gen(2);
  const Tensor X = randn({3, 5, 4}, gen);  // 3 sentences of 5 tokens of 4 features
  const std::string why = exercise::quietly(output_problem, slice(X, 0, 0, 1));
  INFO(why);
  const auto out = yours_for(X);
  REQUIRE(out);
  REQUIRE(out->shape() == X.shape());
  for (std::int64_t b = 0; b < 3; ++b) {
    INFO("sentence ", b);
    CHECK(exercise::agrees(select(*out, 0, b), attend_one(select(X, 0, b)), 1e-14));
  }
}

TEST_CASE(
    "sentences do not mix: changing sentence 1 leaves sentence 0's output "
    "exactly as it was") {
  Generator gen(3);
  const Tensor X = randn({2, 4, 3}, gen);
  const std::string why = exercise::quietly(output_problem, slice(X, 0, 0, 1));
  INFO(why);
  const Tensor changed = cat({slice(X, 0, 0, 1), randn({1, 4, 3}, gen)}, 0);
  const auto before = yours_for(X), after = yours_for(changed);
  REQUIRE(before);
  REQUIRE(after);
  CHECK_MESSAGE(exercise::agrees(select(*after, 0, 0), select(*before, 0, 0)),
                "sentence 0's output changed: it attends to tokens of sentence 1");
}
