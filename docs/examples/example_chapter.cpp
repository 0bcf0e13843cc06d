// An example chapter
// ==================
//
// The smallest chapter that uses every part of the layout: a title and introduction,
// what the course page says of it, a fold, a section, two claims with their prose, a
// measured number with its bound, printed output and a figure. The build compiles and
// runs it like any chapter, so the guide that shows it cannot drift from what the book
// accepts.

// %% about: Four scores become four weights, and adding one to every score changes
// none of them.
// %% assumes: nothing

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

// %% 1 · Four scores, four weights
//
// A softmax turns the scores 1, 2, 3, 4 into weights that are positive and sum to one.
// Adding four rounded numbers is off from their exact sum by at most about :math:`4u`,
// with :math:`u = 2^{-53} \approx 1.1 \cdot 10^{-16}`, so the sum is within
// :math:`10^{-15}` of one. That bound is a worst case, every rounding erring fully and
// the same way, so the sum measured is usually far closer; the check says so, and the
// Claims page does not list it as a claim that could say more.
//
// .. figure:: weights
//
//    The four weights, one cell each: the largest score gets most of the weight.

const Tensor kScores = tensor({1, 2, 3, 4});  // [4]

TEST_CASE("the softmax of four scores sums to one, to rounding") {
  const Tensor w = softmax(kScores, 0);  // [4]
  book::out() << w << "\n";
  const double gap = std::fabs(sum(w).item() - 1);
  book::check("|sum - 1|", gap, "how far the four weights' sum is from one",
              book::at_most(1e-15).large_margin_because(book::kWorstCaseRounding));
  const Tensor strip = reshape(w, {1, 4});  // one row: drawn as a strip
  book::figure("weights",
               book::heatmap(strip, {"weight"}, book::numbered(4), "score index", ""));
}

// %%
// Adding one to every score changes no weight, and not only approximately: the softmax
// subtracts the largest score first, and for small whole numbers :math:`(s + 1) - (4 +
// 1)` is computed exactly, so both softmaxes see the very same numbers.

TEST_CASE("adding one to every score leaves the weights the same, bit for bit") {
  const Tensor a = softmax(kScores, 0), b = softmax(kScores + 1.0, 0);
  for (std::int64_t i = 0; i < 4; ++i) CHECK(a.at({i}) == b.at({i}));
}

// %% fold: the end of the file's namespace
}  // namespace
