// Exercise 8.3 · The largest mask that leaks nothing
// ==================================================
//
// Section 3 showed that a mask of :math:`-20` leaks a tiny weight and that
// :math:`-\infty` leaks none, and that somewhere below :math:`-700` a finite mask leaks
// none either. Find exactly where: the largest double :math:`m` for which the softmax
// of the two scores :math:`(0, m)` puts a weight of exactly 0.0 on the second. Then
// explain the number.
//
// The weight on the second score is :math:`e^{m} / (1 + e^{m})`, and it is 0.0 only
// when :math:`e^{m}`, computed in double precision, is 0.0. The smallest positive
// double is :math:`2^{-1074}`; a result below half of it rounds to zero. So :math:`m`
// should sit within a hair of :math:`\ln 2^{-1075} = -1075 \ln 2 \approx -745.1332`:
// the tests hold it within 0.01 of that, since litgrad's own :math:`e^x` rounds a
// little differently from the exact one, and they demand that the next double above
// your :math:`m` leaks.

// %% hint
// The weight leaks at :math:`m = -700` and not at :math:`m = -800`. Halve that interval
// while it holds more than one double: ``std::nextafter(m, 0.0)`` is the next double
// towards zero, and in the end one double leaks and the one below it does not.

// %% fold: includes, and the leak of a mask value
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// The weight that softmax of the scores (0, m) puts on the second.
double leak(double m) { return softmax(tensor({0.0, m}), 0).at({1}); }
}  // namespace

// %%
// The function to write, in ``exercises/08_attention/3_silent_mask.cpp``:

double largest_silent_mask();

// %%
// The tests.

TEST_CASE("the mask leaks nothing, and the next double above it leaks") {
  const double m = largest_silent_mask();
  const double next = std::nextafter(m, 0.0);  // the next double towards zero
  INFO("m = ", m, ", its leak ", leak(m), ", the next double's leak ", leak(next));
  CHECK(leak(m) == 0.0);
  CHECK(leak(next) > 0.0);
}

TEST_CASE("the mask is within 0.01 of ln 2^-1075, where e^m drops below half the "
          "smallest double") {
  const double m = largest_silent_mask(), threshold = -1075 * std::log(2.0);
  INFO("m = ", m, ", ln 2^-1075 = ", threshold);
  CHECK(std::fabs(m - threshold) < 0.01);
}
