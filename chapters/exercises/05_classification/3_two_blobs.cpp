// Exercise 5.3 · The Bayes rate of two blobs
// ==========================================
//
// Section 3 computed the best possible accuracy for three blobs with a grid. For two
// blobs, normal with standard deviation 1 around centres a distance :math:`d` apart,
// in equal numbers, it has a closed form. Find it and write it. The tests compare it
// with 200,000 sampled points at :math:`d` = 1, 2 and 3, each within four standard
// errors, and check that far-apart blobs are told apart almost surely.

// %% hint
// The best rule picks the nearer centre; the boundary is the perpendicular bisector.
// Only the distance along the line between the centres matters, and along it a point
// is normal with standard deviation 1: it is classified right when its noise is less
// than d/2 towards the other centre. The standard normal's distribution function is
// Φ(t) = erfc(-t / √2) / 2, with std::erfc from <cmath>.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/05_classification/3_two_blobs.cpp``:

double two_blob_bayes_rate(double distance);

// %%
// The tests.

TEST_CASE(
    "it matches the nearest-centre rule on 200,000 sampled points, for d = 1, 2, 3") {
  Generator gen(7);
  for (double d : {1.0, 2.0, 3.0}) {
    // Class 0 at (0, 0), class 1 at (d, 0): a class-0 point is right when x < d/2.
    const Tensor x = randn({200000, 2}, gen);
    const double sampled = mean((select(x, 1, 0) < d / 2).to(DType::Float64)).item();
    const double yours = two_blob_bayes_rate(d);
    const double se = std::sqrt(yours * (1 - yours) / 200000);
    INFO("d = ", d, ": sampled ", sampled, ", yours ", yours);
    CHECK(std::fabs(sampled - yours) < 4 * se);
  }
}

TEST_CASE("blobs 10 apart are told apart with accuracy above 1 - 1e-6") {
  CHECK(two_blob_bayes_rate(10) > 1 - 1e-6);
  CHECK(two_blob_bayes_rate(10) <= 1);
}
