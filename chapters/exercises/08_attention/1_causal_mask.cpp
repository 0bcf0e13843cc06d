// Exercise 8.1 · The causal mask, by hand
// =======================================
//
// Write the causal mask of section 6 yourself: for a sequence of ``length`` positions,
// an ``[length, length]`` tensor whose entry :math:`(i, j)` is :math:`0` where position
// :math:`i` may look at position :math:`j` (that is, :math:`j \le i`) and
// :math:`-\infty` where it may not (:math:`j > i`). Build it from the library's
// elementwise operations, without calling
// :cpp:func:`litgrad::generate_square_subsequent_mask`; the tests compare your mask
// with it, and check that it does the job: under your mask the softmax puts exactly
// zero weight on every later position.

// %% hint
// Each entry answers one question about a pair of positions: does key :math:`j` come
// after query :math:`i`? Hold every :math:`i` in a column and every :math:`j` in a row,
// and broadcasting (chapter 1) asks the question for all pairs at once; what is added
// to a score where the answer is yes must make its weight exactly zero.

// %% fold: includes, and what a wrong answer shows
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// Which of the usual wrong answers a mask [L, L] is, in words.
std::string what_is_wrong(const Tensor& mask) {
  const std::int64_t L = mask.size(0);
  int diagonal_masked = 0, past_masked = 0, future_open = 0, future_finite = 0,
      future_one = 0, future_very_negative = 0;
  for (std::int64_t i = 0; i < L; ++i)
    for (std::int64_t j = 0; j < L; ++j) {
      const double v = mask.at({i, j});
      diagonal_masked += j == i && v == -INFINITY;
      past_masked += j < i && v == -INFINITY;
      future_open += j > i && v == 0.0;
      future_finite += j > i && std::isfinite(v) && v != 0.0;
      future_one += j > i && v == 1.0;
      future_very_negative += j > i && std::isfinite(v) && v <= -1e3;
    }
  if (past_masked > 0 && future_open > 0)
    return "the earlier positions are masked and the later ones left open: this points "
           "to the mask's values swapped";
  if (diagonal_masked > 0)
    return "the diagonal is masked, but a position may always look at itself: this "
           "points to an off-by-one mask (the comparison of j with i)";
  if (future_finite > 0 && future_one == future_finite)
    return "later positions get 1: added to a score it moves the weight but cannot "
           "make it exactly zero; this points to a boolean mask added as numbers";
  if (future_finite > 0 && future_very_negative == future_finite)
    return "later positions get a finite number: a score large enough still outweighs "
           "it, and the mask is not torch's; this points to a large negative number "
           "in place of minus infinity";
  if (future_finite > 0)
    return "later positions get a finite number: added to a score it moves the weight "
           "but cannot make it exactly zero";
  if (future_open > 0) return "later positions are left open: nothing hides the future";
  return "";
}
}  // namespace

// %%
// The function to write, in ``exercises/08_attention/1_causal_mask.cpp``:

Tensor causal_mask(std::int64_t length);  // [length, length]

// %%
// The tests.

TEST_CASE(
    "the mask is 0 on and below the diagonal and -inf above it, "
    "for lengths 1 to 8") {
  for (std::int64_t L = 8; L >= 1; --L) {  // the longest first: it tells most
    const Tensor mask = causal_mask(L);
    REQUIRE(mask.shape() == Shape{L, L});
    int wrong = 0;
    for (std::int64_t i = 0; i < L; ++i)
      for (std::int64_t j = 0; j < L; ++j)
        wrong += mask.at({i, j}) != (j > i ? -INFINITY : 0.0);
    INFO("length ", L, ": ", wrong, " of the ", L * L, " entries are wrong");
    INFO(what_is_wrong(mask));
    CHECK(wrong == 0);
  }
}

TEST_CASE("the mask equals generate_square_subsequent_mask bit for bit") {
  const Tensor mine = causal_mask(6), library = generate_square_subsequent_mask(6);
  REQUIRE(mine.shape() == library.shape());
  for (std::int64_t i = 0; i < mine.numel(); ++i)
    CHECK(mine.data()[i] == library.data()[i]);
}

TEST_CASE("under the mask, softmax puts exactly zero weight on every later position") {
  Generator gen(1);
  const Tensor scores = randn({5, 5}, gen) * 3.0;
  const Tensor weights = softmax(scores + causal_mask(5), -1);
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = i + 1; j < 5; ++j) {
      INFO("weight of position ", i, " on the later position ", j);
      CHECK(weights.at({i, j}) == 0.0);
    }
}
