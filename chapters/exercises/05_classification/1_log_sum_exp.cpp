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
// Section 1's trick works here too. Which number can you take out of every exponent so
// that no exponential overflows, and what does taking it out do to the logarithm?

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/05_classification/1_log_sum_exp.cpp``:

double log_sum_exp(const std::vector<double>& z);

// %%
// The tests.

TEST_CASE("it agrees with litgrad's logsumexp on rows of scores up to ±800") {
  Generator gen(5);
  for (int row = 0; row < 20; ++row) {
    const Tensor z = uniform({12}, -800, 800, gen);
    const double expected = logsumexp(z, 0).item();
    const double yours = log_sum_exp(z.to_vector());
    INFO("row ", row, ": expected ", expected, ", got ", yours);
    CHECK_MESSAGE(std::isfinite(yours),
                  "an exponential overflowed, or every one underflowed: which "
                  "exponents do you compute? This points to shifted by the first "
                  "score, or to shifted by the smallest score");
    CHECK_MESSAGE(
        std::fabs(yours - expected) <= 8 * 0x1p-53 * (std::fabs(expected) + 1),
        "a result off by the row's largest score points to the shift not "
        "put back");
  }
}

TEST_CASE(
    "ln(e^1000 + e^1000) is 1000 + ln 2, and ln(e^-1000 + e^-1000) is -1000 + ln 2") {
  const double u = 0x1p-53, high = log_sum_exp({1000, 1000});
  const double low = log_sum_exp({-1000, -1000});
  INFO("yours: ", high, " and ", low);
  CHECK_MESSAGE(std::fabs(high - (1000 + std::log(2.0))) <= 4 * u * 1000,
                "what you took out of the exponents must be put back in the result");
  CHECK_MESSAGE(std::fabs(low - (-1000 + std::log(2.0))) <= 4 * u * 1000,
                "what you took out of the exponents must be put back in the result");
}
