// Exercise 1.3 · A sum whose error grows slowly
// =============================================
//
// Section 5 showed that a sum added first to last can be off by up to
// :math:`(n - 1) u \sum |x|`, and in practice its error grows with :math:`n`. Adding in
// pairs does much better: split the numbers in two halves, sum each half the same way,
// and add the two results. Every number then takes part in only about :math:`\log_2 n`
// additions, so the error is at most :math:`\lceil \log_2 n \rceil u \sum |x|` (Higham,
// §4.2). Write ``pairwise_sum``; the tests hold it to that bound on a million uniform
// numbers and on a million copies of one number, bounds which the plain loop misses.
//
// The exact sum to compare with is computed in integers: litgrad's uniform numbers (and
// the copied number) are multiples of :math:`2^{-53}`, so their sum is an integer times
// :math:`2^{-53}`, added exactly in 128 bits.

// %% hint
// Recursion: the sum of x[begin, end) is the sum of x[begin, mid) plus the sum of
// x[mid, end), with mid halfway; a range of one number is that number, of none is 0.

// %% fold: includes, and the exact sum
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <exercise_checks.hpp>
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

// %% fold: what the size of your error points to
namespace {
std::string error_problem(double yours, double exact, double bound) {
  const double relative = std::fabs(yours - exact) / exact;
  std::string s = "your error is " + exercise::number(relative) +
                  " of the sum, the bound " + exercise::number(bound / exact);
  if (yours == 0)
    return s + ": nothing was added; this points to the base case returning 0";
  if (relative > 1e-3)
    return s +
           ": a part of the numbers is missing; this points to an element skipped "
           "at each split";
  if (relative > 1e-9)
    return s +
           ": that is about float's precision (6e-8), not double's; this points to "
           "the sum kept in float";
  return s +
         ": some additions still pile up their roundings, as a loop "
         "does; this points to pairs only at the top, loops below";
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the pairwise sum of a million uniform numbers is within ceil(log2 n)·u·sum|x| "
    "of the exact sum") {
  Generator gen(7);
  const std::vector<double> x = rand({1000000}, gen).to_vector();
  const double exact = exact_sum(x), u = std::ldexp(1.0, -53);
  const double bound = std::ceil(std::log2(static_cast<double>(x.size()))) * u * exact;
  const double yours = pairwise_sum(x);
  INFO("yours ", exercise::number(yours), ", exact ", exercise::number(exact));
  CHECK_MESSAGE(std::fabs(yours - exact) <= bound, error_problem(yours, exact, bound));
}

TEST_CASE(
    "the pairwise sum of a million copies of one number is within ceil(log2 "
    "n)·u·sum|x| "
    "of the exact sum") {
  // A loop's roundings do not cancel here: each addition of the same number to a
  // growing total rounds the same way again and again.
  const double v = std::ldexp(std::round(std::ldexp(0.1, 53)), -53);  // 0.1 in 2^-53s
  const std::vector<double> x(1000000, v);
  const double exact = exact_sum(x), u = std::ldexp(1.0, -53);
  const double bound = std::ceil(std::log2(static_cast<double>(x.size()))) * u * exact;
  const double yours = pairwise_sum(x);
  INFO("yours ", exercise::number(yours), ", exact ", exercise::number(exact));
  CHECK_MESSAGE(std::fabs(yours - exact) <= bound, error_problem(yours, exact, bound));
}
