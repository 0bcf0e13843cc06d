// Exercise 1.3 · A sum whose error grows slowly
// =============================================
//
// Section 5 showed that a sum added first to last can be off by up to
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
// Recursion: the sum of x[begin, end) is the sum of x[begin, mid) plus the sum of
// x[mid, end), with mid halfway; a range of one number is that number, of none is 0.

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
// The function to write, in ``exercises/01_tensors/3_pairwise_sum.cpp``:

double pairwise_sum(const std::vector<double>& x);

// %%
// The test.

TEST_CASE(
    "the pairwise sum of a million uniform numbers is within ceil(log2 n)·u·sum|x| "
    "of the exact sum") {
  Generator gen(7);
  const std::vector<double> x = rand({1000000}, gen).to_vector();
  const double exact = exact_sum(x), u = std::ldexp(1.0, -53);
  const double bound = std::ceil(std::log2(static_cast<double>(x.size()))) * u * exact;
  const double error = std::fabs(pairwise_sum(x) - exact);
  INFO("error ", error, ", bound ", bound);
  CHECK(error <= bound);
}
