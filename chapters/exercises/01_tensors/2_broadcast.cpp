// Exercise 1.2 · Broadcast two shapes
// ===================================
//
// Write the broadcasting rule of section 2: the shape of ``a + b`` for tensors of
// shapes ``a`` and ``b``. Compare the sizes from the right; two sizes fit when they are
// equal or one of them is 1, and the result has the larger; a dimension missing on the
// left counts as
// 1. When two sizes do not fit, throw litgrad's ``ShapeError``.

// %% hint
// Make the shorter shape as long as the longer one by putting 1s in front. Then go
// dimension by dimension: equal sizes stay, a 1 gives way to the other size, anything
// else is an error.

// %% fold: includes
#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/01_tensors/2_broadcast.cpp``:

Shape broadcast(const Shape& a, const Shape& b);

// %%
// The tests.

TEST_CASE(
    "the broadcast shape is litgrad's for columns, rows, missing and stretched "
    "dimensions") {
  const std::vector<std::pair<Shape, Shape>> pairs = {{{3, 1}, {1, 4}},
                                                      {{2, 3}, {3}},
                                                      {{4, 1, 5}, {2, 1}},
                                                      {{1}, {6, 2}},
                                                      {{}, {2, 2}}};
  for (const auto& [a, b] : pairs) {
    INFO(to_string(a), " and ", to_string(b));
    CHECK(broadcast(a, b) == broadcast_shapes("add", a, b));
    CHECK(broadcast(b, a) == broadcast_shapes("add", b, a));
  }
}

TEST_CASE("sizes that are neither equal nor 1 are refused with a ShapeError") {
  CHECK_THROWS_AS(broadcast({2, 3}, {2}), ShapeError);
  CHECK_THROWS_AS(broadcast({4, 2}, {3, 1, 3}), ShapeError);
}
