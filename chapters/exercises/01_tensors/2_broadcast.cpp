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

#include <optional>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/01_tensors/2_broadcast.cpp``:

Shape broadcast(const Shape& a, const Shape& b);

// %% fold: what each pair of shapes tries, and what your answers point to
namespace {
struct Pair {
  Shape a, b;
  std::string rule;  // what the pair needs of the rule
};

// Your shape for a and b, or nothing if you refused them.
std::optional<Shape> yours_or_refused(const Shape& a, const Shape& b) {
  try {
    return broadcast(a, b);
  } catch (const ShapeError&) {
    return std::nullopt;
  }
}

// The catalogued mistake that your answers for four pairs point to, if any.
std::string broadcast_problem() {
  const auto stretched = yours_or_refused({3, 1}, {1, 4}),
             missing = yours_or_refused({2, 3}, {3}),
             shorter_first = yours_or_refused({1}, {6, 2});
  if (!stretched)
    return "you refuse [3, 1] and [1, 4], where each 1 stretches to the other size: "
           "this points to a size of 1 refused instead of stretched";
  if (*stretched == Shape{3, 4} && !missing && !shorter_first)
    return "you refuse [2, 3] with [3] and [1] with [6, 2], where a dimension is "
           "missing on the left and should count as 1: this points to a missing "
           "dimension counted as size 0";
  if (*stretched == Shape{3, 1})
    return "yours for [3, 1] and [1, 4] is [3, 1]: the first shape's 1 did not give "
           "way to the 4; this points to the first shape's size kept where it is 1";
  if (shorter_first && shorter_first->size() == 1)
    return "yours for [1] and [6, 2] has one dimension, where the result has as many "
           "as the longer shape: this points to the result as long as the first shape "
           "only";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the broadcast shape is litgrad's for columns, rows, missing and stretched "
    "dimensions") {
  const std::string why = exercise::quietly(broadcast_problem);
  INFO(why);
  const Pair pairs[] = {
      {{3, 1}, {1, 4}, "a size of 1 stretches to the other size"},
      {{2, 3}, {3}, "a dimension missing on the left counts as 1"},
      {{4, 1, 5}, {2, 1}, "missing and stretched dimensions together"},
      {{1}, {6, 2}, "the shorter shape first"},
      {{}, {2, 2}, "a scalar's shape, with no dimension at all"}};
  for (const Pair& p : pairs)
    for (const auto& [a, b] : {std::pair{p.a, p.b}, std::pair{p.b, p.a}}) {
      INFO(to_string(a), " and ", to_string(b), ": ", p.rule);
      std::optional<Shape> yours;
      CHECK_NOTHROW(yours = broadcast(a, b));
      if (yours)
        CHECK_MESSAGE(*yours == broadcast_shapes("add", a, b), "yours is ",
                      to_string(*yours));
    }
}

TEST_CASE("sizes that are neither equal nor 1 are refused with a ShapeError") {
  INFO("sizes 3 and 2 cannot both fill one dimension: refuse them");
  CHECK_THROWS_AS(broadcast({2, 3}, {2}), ShapeError);
  CHECK_THROWS_AS(broadcast({4, 2}, {3, 1, 3}), ShapeError);
}
