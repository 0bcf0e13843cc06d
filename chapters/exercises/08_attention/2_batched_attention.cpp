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

// %%
// The tests.

TEST_CASE("each sentence's output equals section 1's attention of that sentence "
          "alone") {
  Generator gen(2);
  const Tensor X = randn({3, 5, 4}, gen);  // 3 sentences of 5 tokens of 4 features
  const Tensor out = batched_self_attention(X);
  REQUIRE(out.shape() == X.shape());
  double worst = 0;
  for (std::int64_t b = 0; b < 3; ++b)
    worst = std::max(worst,
                     max(abs(select(out, 0, b) - attend_one(select(X, 0, b)))).item());
  INFO("largest difference from the sentence attended alone: ", worst);
  CHECK(worst <= 1e-14);
}

TEST_CASE("sentences do not mix: changing sentence 1 leaves sentence 0's output "
          "exactly as it was") {
  Generator gen(3);
  const Tensor X = randn({2, 4, 3}, gen);
  const Tensor changed = cat({slice(X, 0, 0, 1), randn({1, 4, 3}, gen)}, 0);
  const Tensor before = select(batched_self_attention(X), 0, 0);
  const Tensor after = select(batched_self_attention(changed), 0, 0);
  INFO("largest change in sentence 0's output: ", max(abs(after - before)).item());
  CHECK(max(abs(after - before)).item() == 0.0);
}
