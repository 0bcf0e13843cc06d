// Exercise 5.3 · The Bayes rate of two blobs
// ==========================================
//
// Section 3 computed the best possible accuracy for three blobs with a grid. For two
// blobs, normal with standard deviation 1 around centres a distance :math:`d` apart,
// in equal numbers, it has a closed form. Find it and write it. The tests compare it
// with 200,000 sampled points at :math:`d` = 1, 2 and 3, each within four standard
// errors, and check that far-apart blobs are told apart almost surely.

// %% hint
// The best rule picks the nearer centre, so only the distance along the line through
// the centres matters, and along that line a point's noise is a standard normal. How
// far towards the other centre may the noise carry a point before the point is nearer
// to it? The standard normal's distribution function can be written with ``std::erfc``
// from ``<cmath>``; check what erfc is the integral of before you use it.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/05_classification/3_two_blobs.cpp``:

double two_blob_bayes_rate(double distance);

// %% fold: sampled accuracies, and what yours at d = 1 points to
namespace {
// The accuracy of the nearest-centre rule for blobs d apart, from 200,000 sampled
// points of class 0 (at the origin; class 1 is at (d, 0)).
double sampled_accuracy(double d, Generator& gen) {
  const Tensor x = randn({200000, 2}, gen);
  return mean((select(x, 1, 0) < d / 2).to(DType::Float64)).item();
}

// Yours at d = 1 against the sampled accuracies at 1, √2 and 2, each within four
// standard errors, and the mistake that points to.
std::string rate_problem() {
  Generator gen(11);
  const double at1 = sampled_accuracy(1, gen),
               at_root2 = sampled_accuracy(std::sqrt(2.0), gen),
               at2 = sampled_accuracy(2, gen), yours = two_blob_bayes_rate(1);
  const auto near = [](double a, double b) { return std::fabs(a - b) < 4 * 0.0012; };
  std::string s = "at d = 1 yours is " + exercise::number(yours) +
                  "; sampled: " + exercise::number(at1);
  if (yours > 1)
    return s +
           ": an accuracy above 1; erfc runs from 2 down to 0; this points to "
           "erfc's value not halved";
  if (near(yours, 1 - at1))
    return s +
           ": yours is the share of points on the wrong side; this points to the "
           "error rate instead of the accuracy";
  if (near(yours, at2) && !near(yours, at1))
    return s +
           ": yours is the accuracy of blobs 2 apart; this points to the whole "
           "distance where half of it decides";
  if (near(yours, at_root2) && !near(yours, at1))
    return s +
           ": yours is the accuracy of blobs √2 apart; the normal's distribution "
           "function is erfc of t/√2, not of t; this points to erfc's argument not "
           "divided by √2";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "it matches the nearest-centre rule on 200,000 sampled points, for d = 1, 2, 3") {
  const std::string why = exercise::quietly(rate_problem);
  INFO(why);
  Generator gen(7);
  for (double d : {1.0, 2.0, 3.0}) {
    // Class 0 at (0, 0), class 1 at (d, 0): a class-0 point is right when x < d/2.
    const double sampled = sampled_accuracy(d, gen);
    const double yours = two_blob_bayes_rate(d);
    const double se = std::sqrt(yours * (1 - yours) / 200000);
    INFO("d = ", d, ": sampled ", sampled, ", yours ", yours);
    CHECK(std::fabs(sampled - yours) < 4 * se);
  }
}

TEST_CASE("blobs 10 apart are told apart with accuracy above 1 - 1e-6") {
  const std::string why = exercise::quietly(rate_problem);
  INFO(why);
  CHECK(two_blob_bayes_rate(10) > 1 - 1e-6);
  CHECK(two_blob_bayes_rate(10) <= 1);
}
