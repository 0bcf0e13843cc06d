// Exercise 5.1 · A log-sum-exp that never overflows
// =================================================
//
// Cross-entropy needs :math:`\ln \sum_j e^{z_j}`, and section 1 showed that computing
// it as written overflows for scores past 709. Write it so that it is accurate for any
// finite scores: the tests compare yours with litgrad's ``logsumexp`` on rows with
// scores up to :math:`\pm 800`, to :math:`8 u` of the result's size plus :math:`8u`
// (a sum of at most 12 rounded terms, then a logarithm), and check two cases whose
// answers are known: :math:`\ln(e^{1000} + e^{1000}) = 1000 + \ln 2`, and the same at
// :math:`-1000`.

// %% hint
// Take out the largest score m: the sum of e^(z_j) is e^m times the sum of e^(z_j - m),
// and every z_j - m is at most 0, so no term can overflow and the largest term is 1.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/05_classification/1_log_sum_exp.cpp``:

double log_sum_exp(const std::vector<double>& z);

// %% fold: what your answers on small rows point to
namespace {
// Your answers for the rows (3, 3), whose log-sum-exp is 3 + ln 2, (3, 1), whose is
// 3 + ln(1 + e^-2), and (0, -1000), whose is 0 to within e^-1000, and the mistake they
// point to.
std::string lse_problem() {
  const double twin = log_sum_exp({3, 3}), far = log_sum_exp({0, -1000}),
               apart = log_sum_exp({3, 1});
  std::string s = "yours for (3, 3) is " + exercise::number(twin) + " (3 + ln 2 is " +
                  exercise::number(3 + std::log(2.0)) + "), for (0, -1000) " +
                  exercise::number(far) + " (0 is right)";
  if (twin == 3 && apart == 3)
    return s +
           ": the largest score alone; the others add ln Σ e^(z - max) ≥ 0 to it, "
           "here ln 2; this points to the largest score alone";
  if (std::fabs(twin - std::log(2.0)) < 1e-12)
    return s +
           ": the sum of the shifted terms is right, but the shift itself is "
           "missing; this points to the shift not added back";
  if (std::isinf(far))
    return s +
           ": e^1000 overflowed, so a score lay far above the one taken out; this "
           "points to the smallest score taken out instead of the largest";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("it agrees with litgrad's logsumexp on rows of scores up to ±800") {
  const std::string why = exercise::quietly(lse_problem);
  INFO(why);
  Generator gen(5);
  for (int row = 0; row < 20; ++row) {
    const Tensor z = uniform({12}, -800, 800, gen);
    const double expected = logsumexp(z, 0).item();
    const double yours = log_sum_exp(z.to_vector());
    INFO("row ", row, ": expected ", exercise::number(expected), ", got ",
         exercise::number(yours));
    CHECK(std::fabs(yours - expected) <= 8 * 0x1p-53 * (std::fabs(expected) + 1));
  }
}

TEST_CASE(
    "ln(e^1000 + e^1000) is 1000 + ln 2, and ln(e^-1000 + e^-1000) is -1000 + ln 2") {
  const std::string why = exercise::quietly(lse_problem);
  INFO(why);
  const double u = 0x1p-53;
  CHECK(std::fabs(log_sum_exp({1000, 1000}) - (1000 + std::log(2.0))) <= 4 * u * 1000);
  CHECK(std::fabs(log_sum_exp({-1000, -1000}) - (-1000 + std::log(2.0))) <=
        4 * u * 1000);
}
