// Exercise 8.1 · The causal mask, by hand
// =======================================
//
// Write the causal mask of section 3 yourself: for a sequence of ``length`` positions,
// an ``[length, length]`` tensor whose entry :math:`(i, j)` is :math:`0` where position
// :math:`i` may look at position :math:`j` (that is, :math:`j \le i`) and
// :math:`-\infty` where it may not (:math:`j > i`). Build it from the library's
// elementwise operations, without calling
// :cpp:func:`litgrad::generate_square_subsequent_mask`; the tests compare your mask
// with it, and check that it does the job: under your mask the softmax puts exactly
// zero weight on every later position.

// %% hint
// Two index tensors do it: ``arange(length)`` reshaped to a column ``[length, 1]``
// holds :math:`i` and reshaped to a row ``[1, length]`` holds :math:`j`. Broadcasting
// compares every pair at once (``gt(columns_j, rows_i)`` is true exactly above the
// diagonal), and ``masked_fill`` writes :math:`-\infty` where it is true.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/08_attention/1_causal_mask.cpp``:

Tensor causal_mask(std::int64_t length);  // [length, length]

// %% fold: what is wrong with a mask, in words
namespace {
// The first entry of `mask` [L, L] that is not the causal mask's; empty if none is.
std::string first_wrong_entry(const Tensor& mask) {
  for (std::int64_t i = 0; i < mask.size(0); ++i)
    for (std::int64_t j = 0; j < mask.size(1); ++j) {
      const double got = mask.at({i, j}), expected = j > i ? -INFINITY : 0.0;
      if (got != expected)
        return "entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
               exercise::number(got) + " where " + exercise::number(expected) +
               " belongs";
    }
  return "";
}

// The mistake that the pattern of your mask for length 4 points to, if it is one of the
// catalogued ones.
std::string mistake_behind() {
  const Tensor mask = causal_mask(4);
  if (mask.shape() != Shape{4, 4}) return "";
  bool diagonal_hidden = false, past_hidden = false, future_seen = false;
  bool future_one = false;  // 1 where -inf belongs, as a boolean mask converted gives
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 4; ++j) {
      const double got = mask.at({i, j});
      diagonal_hidden |= i == j && got != 0;
      past_hidden |= j < i && got != 0;
      future_seen |= j > i && got == 0;
      future_one |= j > i && got == 1;
    }
  if (diagonal_hidden && !past_hidden && !future_seen && !future_one)
    return "no position may see itself, and row 0 sees nothing at all: this points to "
           "an off-by-one mask";
  if (future_one && !diagonal_hidden && !past_hidden)
    return "1 above the diagonal only raises a later position's score, which keeps "
           "its weight: this points to a boolean mask added as numbers";
  if (diagonal_hidden && past_hidden && future_seen)
    return "the past is hidden and the future seen: this points to the mask's values "
           "swapped";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the mask is 0 on and below the diagonal and -inf above it, "
    "for lengths 1 to 8") {
  const std::string why = exercise::quietly(mistake_behind);
  INFO(why);
  for (std::int64_t L = 1; L <= 8; ++L) {
    const Tensor mask = causal_mask(L);
    INFO("length ", L);
    REQUIRE(mask.shape() == Shape{L, L});
    const std::string wrong = first_wrong_entry(mask);
    CHECK_MESSAGE(wrong.empty(), wrong);
  }
}

TEST_CASE("the mask equals generate_square_subsequent_mask bit for bit") {
  const Tensor mine = causal_mask(6), library = generate_square_subsequent_mask(6);
  CHECK(exercise::agrees(mine, library));
}

TEST_CASE(
    "under the mask, softmax puts exactly zero weight on every later position, "
    "and the weights of each row sum to 1") {
  Generator gen(1);
  const Tensor scores = randn({5, 5}, gen) * 3.0, mask = causal_mask(5);
  const Tensor weights = softmax(scores + mask, -1);
  const std::string why = exercise::quietly(mistake_behind);
  INFO(why);
  for (std::int64_t i = 0; i < 5; ++i) {
    INFO("row ", i, " of the weights: ", select(weights, 0, i));
    CHECK(std::fabs(sum(select(weights, 0, i)).item() - 1) < 1e-15);
    for (std::int64_t j = i + 1; j < 5; ++j) CHECK(weights.at({i, j}) == 0.0);
  }
}
