// Exercise 7.1 · Cosine similarity
// ================================
//
// Write the cosine similarity of section 2, :math:`\cos(a, b) = a \cdot b /
// (|a|\,|b|)`, for two vectors of one length :math:`D` (tensors of shape :math:`[D]`).
// The tests check that it ignores the vectors' lengths, that it is 1 for a vector and
// any positive multiple of it and :math:`-1` for a negative one, 0 for perpendicular
// vectors, and that it agrees with a loop over random vectors to :math:`10^{-15}`.

// %% hint
// ``sum(a * b)`` is the dot product and ``norm(a)`` the length; ``.item()`` turns a
// one-element tensor into a number. A dot product alone is not enough: it grows with
// the lengths.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/07_words_as_vectors/1_cosine.cpp``:

double cosine(const Tensor& a, const Tensor& b);

// %%
// The tests.

TEST_CASE(
    "a vector and its positive multiples have cosine 1, its negatives -1, and "
    "perpendicular vectors 0") {
  const Tensor q = tensor({0.3, -1.2, 2.0, 0.7});
  CHECK(std::fabs(cosine(q, q) - 1) < 1e-15);
  CHECK(std::fabs(cosine(q, 5.0 * q) - 1) < 1e-15);
  CHECK(std::fabs(cosine(0.01 * q, q) - 1) < 1e-15);
  CHECK(std::fabs(cosine(q, -3.0 * q) + 1) < 1e-15);
  CHECK(cosine(tensor({1, 0, 0}), tensor({0, 4, 0})) == 0.0);
  CHECK(cosine(tensor({1, 1}), tensor({2, -2})) == 0.0);
}

TEST_CASE("on random vectors, it agrees with a loop to 1e-15 and lies in [-1, 1]") {
  Generator gen(4);
  for (int trial = 0; trial < 20; ++trial) {
    const Tensor a = randn({16}, gen), b = 3.0 * randn({16}, gen);
    double dot = 0, aa = 0, bb = 0;
    for (std::int64_t j = 0; j < 16; ++j) {
      dot += a.at({j}) * b.at({j});
      aa += a.at({j}) * a.at({j}), bb += b.at({j}) * b.at({j});
    }
    const double c = cosine(a, b);
    CHECK(std::fabs(c - dot / std::sqrt(aa * bb)) < 1e-15);
    CHECK(std::fabs(c) <= 1.0 + 1e-15);
  }
}
