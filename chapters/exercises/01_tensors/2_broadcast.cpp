// Exercise 1.2 · Broadcast two shapes
// ===================================
//
// Write the broadcasting rule of section 4: the shape of ``a + b`` for tensors of
// shapes ``a`` and ``b``. Compare the sizes from the right; two sizes fit when they are
// equal or one of them is 1, and the result has the larger; a dimension missing on the
// left counts as 1. When two sizes do not fit, throw litgrad's ``ShapeError``.

// %% hint
// Write ``[4, 1, 5]`` above ``[2, 1]`` the way you would write two numbers above each
// other to add them: which sizes stand in the same column, and what stands above an
// empty place?

// %% fold: includes
#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/01_tensors/2_broadcast.cpp``:

Shape broadcast(const Shape& a, const Shape& b);

// %%
// The tests.

// %% fold: a helper: does the answer refuse two shapes?
bool refused(const Shape& a, const Shape& b) {
  try {
    broadcast(a, b);
    return false;
  } catch (const ShapeError&) {
    return true;
  }
}

// %%
TEST_CASE("shapes of different lengths are lined up from the right") {
  CHECK_MESSAGE(!refused({2, 3}, {3}),
                "[2,3] and [3] fit: refusing them points to shapes lined up from the "
                "left, or to a missing dimension counted as 0 (it counts as 1, and 1 "
                "fits any size)");
  CHECK_MESSAGE(!refused({}, {2, 2}),
                "a scalar, shape [], fits anything: each of its missing dimensions "
                "counts as 1");
  CHECK_MESSAGE((broadcast({2, 3}, {3}) == Shape{2, 3}),
                "[2,3] + [3] adds the row to every row: the [3] lines up with the "
                "last dimension, not the first");
  CHECK_MESSAGE((broadcast({4, 1, 5}, {2, 1}) == Shape{4, 2, 5}),
                "[4,1,5] and [2,1]: the 1 of [2,1] stands under the 5, the 2 under the "
                "1, and nothing under the 4; a 1 left in the result points to a size 1 "
                "that does not give way");
  CHECK_MESSAGE((broadcast({}, {2, 2}) == Shape{2, 2}),
                "a scalar, shape [], broadcasts to anything");
}

TEST_CASE("a size 1 stretches to the other size, on either side") {
  CHECK_MESSAGE((broadcast({3, 1}, {1, 4}) == Shape{3, 4}),
                "a column [3,1] and a row [1,4] make a [3,4] table: each 1 gives way "
                "to the other operand's size");
  CHECK_MESSAGE((broadcast({1, 4}, {3, 1}) == Shape{3, 4}),
                "the rule is symmetric: [1,4] and [3,1] also make [3,4]");
}

TEST_CASE(
    "the shape is litgrad's for columns, rows, missing and stretched dimensions") {
  const std::vector<std::pair<Shape, Shape>> pairs = {{{3, 1}, {1, 4}},
                                                      {{2, 3}, {3}},
                                                      {{4, 1, 5}, {2, 1}},
                                                      {{1}, {6, 2}},
                                                      {{}, {2, 2}}};
  for (const auto& [a, b] : pairs) {
    INFO(to_string(a), " and ", to_string(b), ": litgrad gives ",
         to_string(broadcast_shapes("add", a, b)));
    CHECK(broadcast(a, b) == broadcast_shapes("add", a, b));
    CHECK(broadcast(b, a) == broadcast_shapes("add", b, a));
  }
}

TEST_CASE("sizes that are neither equal nor 1 are refused with a ShapeError") {
  CHECK_THROWS_AS_MESSAGE(broadcast({2, 3}, {2}), ShapeError,
                          "[2,3] and [2] do not fit (3 against 2): a shape returned "
                          "points to sizes that do not fit accepted (taking the larger "
                          "size is a guess, and broadcasting never guesses)");
  CHECK_THROWS_AS_MESSAGE(broadcast({4, 2}, {3, 1, 3}), ShapeError,
                          "[4,2] and [3,1,3] do not fit (2 against 3)");
}
