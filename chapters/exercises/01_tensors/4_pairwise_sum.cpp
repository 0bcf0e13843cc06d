// Exercise 1.4 · A sum whose error grows slowly
// =============================================
//
// Section 7 showed that a sum added first to last can be off by up to
// :math:`(n - 1) u \sum |x|`, and in practice its error grows with :math:`n`. Adding in
// pairs does much better: split the numbers in two halves, sum each half the same way,
// and add the two results. Every number then takes part in only about :math:`\log_2 n`
// additions, so the error is at most :math:`\lceil \log_2 n \rceil u \sum |x|` (Higham,
// §4.2). Write ``pairwise_sum``; the test holds it to that bound on a million numbers,
// which the plain loop misses.
//
// The exact sum to compare with is computed in integers: litgrad's uniform numbers are
// multiples of :math:`2^{-53}`, so their sum is an integer times :math:`2^{-53}`, added
// exactly in 128 bits.

// %% hint
// A term's rounding error is passed on through every addition that follows it on the
// way to the total. In a loop the first term goes through all :math:`n - 1`. Which
// arrangement of the additions, drawn as a tree with the terms as leaves, keeps every
// leaf close to the root?

// %% fold: includes, and the exact sum
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// The exact sum of multiples of 2^-53 in [0, 1), rounded once to a double.
double exact_sum(const std::vector<double>& x) {
  __int128 units = 0;
  for (double v : x) units += static_cast<__int128>(std::ldexp(v, 53));
  return std::ldexp(static_cast<double>(units), -53);
}
}  // namespace

// %%
// The function to write, in ``exercises/01_tensors/4_pairwise_sum.cpp``:

double pairwise_sum(const std::vector<double>& x);

// %%
// The test.

TEST_CASE(
    "the pairwise sum of a million uniform numbers is within ceil(log2 n)·u·sum|x| "
    "of the exact sum, and small sums are exact") {
  CHECK_MESSAGE(pairwise_sum({}) == 0.0, "the sum of no numbers is 0");
  CHECK_MESSAGE(pairwise_sum({7}) == 7.0,
                "the sum of one number is that number: 0 points to a single term "
                "summed to zero");
  CHECK_MESSAGE(pairwise_sum({1, 2, 3, 4, 5}) == 15.0,
                "1 + 2 + 3 + 4 + 5 = 15 (exact in doubles): a term dropped or counted "
                "twice where the halves meet (the middle term dropped?), or an odd "
                "count split badly, changes it");
  CHECK_MESSAGE(pairwise_sum({1, 2, 3, 4, 5, 6, 7}) == 28.0,
                "1 + ... + 7 = 28: every term once, however the count splits");
  Generator gen(7);
  const std::vector<double> x = rand({1000000}, gen).to_vector();
  const double exact = exact_sum(x), u = std::ldexp(1.0, -53);
  const double bound = std::ceil(std::log2(static_cast<double>(x.size()))) * u * exact;
  const double error = std::fabs(pairwise_sum(x) - exact);
  INFO("error ", error, ", bound ", bound,
       ": over the bound, but small, means some terms go through more than about "
       "log2 n additions: a sum not split into halves all the way down, such as "
       "the plain loop, first to last");
  CHECK(error <= bound);
}
