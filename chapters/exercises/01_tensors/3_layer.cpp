// Exercise 1.3 · A layer by loops
// ===============================
//
// Write section 6's layer with your own loops: for a batch of inputs ``X [batch, in]``,
// weights ``W [in, out]`` and a bias ``b [out]``, return ``Y = X W + b``,
// ``[batch, out]``, with :math:`y_{rj} = \sum_l x_{rl} w_{lj} + b_j`. Read the three
// tensors' numbers through ``data()``, in the row-major order of section 1, and write
// into the ``data()`` of a tensor you make with ``zeros``; do not call ``matmul``. When
// ``X``'s rows and ``W``'s columns differ in length, or ``b`` has not ``out`` numbers,
// throw litgrad's ``ShapeError``.

// %% hint
// Each element of Y is one dot product, of a row of X with a column of W, plus one
// number of b. A row of X is contiguous in memory; a column of W is not. Where, in W's
// row of numbers, is :math:`w_{lj}`, and which of the three indices :math:`r, l, j`
// says which number of b belongs to :math:`y_{rj}`?

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/01_tensors/3_layer.cpp``:

Tensor layer(const Tensor& X, const Tensor& W, const Tensor& b);

// %%
// The tests. The first three use inputs for which every product and sum is exact, so
// that only the right elements give the right numbers.

TEST_CASE(
    "Y has shape [batch, out], and a W that does not fit X, or a b that does not fit "
    "W, is refused") {
  const Tensor Y = layer(ones({2, 3}), ones({3, 4}), zeros({4}));
  CHECK_MESSAGE((Y.shape() == Shape{2, 4}),
                "[2,3] @ [3,4] + [4] is [2,4]: one row per "
                "input, one column per output");
  CHECK_THROWS_AS_MESSAGE(
      layer(ones({2, 3}), ones({4, 3}), zeros({3})), ShapeError,
      "X [2,3] and W [4,3]: rows of 3 numbers cannot be dotted with "
      "columns of 4; no ShapeError points to shapes not checked");
  CHECK_THROWS_AS_MESSAGE(
      layer(ones({2, 3}), ones({3, 4}), zeros({3})), ShapeError,
      "W [3,4] makes 4 outputs, and b [3] has a number for only 3 of them; no "
      "ShapeError points to b's length not checked (your loops would read past its "
      "end)");
}

TEST_CASE("input e_l, with b = 0, gives row l of W") {
  // X's rows are e_0, e_1, e_2: one 1 each, at position 0, 1 and 2.
  const Tensor X = eye(3), W = reshape(arange(12), {3, 4}) + 1.0, b = zeros({4});
  const Tensor Y = layer(X, W, b);
  REQUIRE(Y.shape() == Shape{3, 4});
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t j = 0; j < 4; ++j) {
      INFO("Y(", r, ", ", j, ") = ", Y.at({r, j}), ", want W(", r, ", ", j,
           ") = ", W.at({r, j}));
      CHECK_MESSAGE(Y.at({r, j}) == W.at({r, j}),
                    "w_lj is number l·out + j of W's data: another number points to W "
                    "read as if it were [out, in], or to the sum not restarted for "
                    "each element");
    }
}

TEST_CASE("input 0 gives b in every row: the bias is added once, by output column") {
  const Tensor X = zeros({2, 3}), W = ones({3, 4}), b = tensor({1, 2, 3, 4});
  const Tensor Y = layer(X, W, b);
  REQUIRE(Y.shape() == Shape{2, 4});
  for (std::int64_t r = 0; r < 2; ++r)
    for (std::int64_t j = 0; j < 4; ++j) {
      INFO("Y(", r, ", ", j, ") = ", Y.at({r, j}), ", want b(", j, ") = ", b.at({j}));
      CHECK_MESSAGE(Y.at({r, j}) == b.at({j}),
                    "with X = 0 every row of Y is b, indexed by the output column j "
                    "and added once to each element: this points to the bias indexed "
                    "by the input's row, or to the bias added once per term");
    }
}

TEST_CASE("on random numbers Y is matmul(X, W) + b to rounding") {
  // Two dot products of 5 terms, each within 5u·sum|x w| of the exact one, and one
  // rounding each for the bias: within (2·5 + 2)u (sum|x w| + |b|) of each other.
  Generator gen(3);
  const Tensor X = randn({4, 5}, gen), W = randn({5, 6}, gen), b = randn({6}, gen);
  const Tensor Y = layer(X, W, b), reference = matmul(X, W) + b;
  REQUIRE(Y.shape() == reference.shape());
  const Tensor size = matmul(abs(X), abs(W)) + abs(b);
  const double u = std::ldexp(1.0, -53);
  for (std::int64_t r = 0; r < 4; ++r)
    for (std::int64_t j = 0; j < 6; ++j) {
      INFO("Y(", r, ", ", j, ") = ", Y.at({r, j}), ", want ", reference.at({r, j}));
      CHECK(std::fabs(Y.at({r, j}) - reference.at({r, j})) <= 12 * u * size.at({r, j}));
    }
}
