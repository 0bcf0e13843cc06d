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

// %% fold: what each pair of shapes tries, and what a wrong answer points to
namespace {
struct Pair {
  Shape a, b;
  std::string rule;  // what the pair needs of the rule, and what refusing it points to
};

// Why `yours` differs from the `expected` shape, in words.
std::string shape_problem(const Shape& yours, const Shape& expected, const Shape& a) {
  std::string s = "yours is " + to_string(yours) + ", litgrad's " + to_string(expected);
  if (yours.size() != expected.size())
    return s + ": the result has as many dimensions as the longer shape; " +
           (yours.size() == a.size() ? "this points to the result as long as the first "
                                       "shape only"
                                     : std::string("yours has another number"));
  for (std::size_t d = 0; d < yours.size(); ++d)
    if (yours[d] == 1 && expected[d] != 1)
      return s +
             ": a size of 1 gives way to the other size; this points to the first "
             "shape's size kept where it is 1";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the broadcast shape is litgrad's for columns, rows, missing and stretched "
    "dimensions") {
  const Pair pairs[] = {
      {{3, 1},
       {1, 4},
       "a size of 1 stretches to the other size; refusing it points to "
       "a size of 1 refused instead of stretched"},
      {{2, 3},
       {3},
       "a dimension missing on the left counts as 1; refusing these points "
       "to a missing dimension counted as size 0"},
      {{4, 1, 5}, {2, 1}, "missing and stretched dimensions together"},
      {{1}, {6, 2}, "the shorter shape first"},
      {{}, {2, 2}, "a scalar's shape, with no dimension at all"}};
  for (const Pair& p : pairs)
    for (const auto& [a, b] : {std::pair{p.a, p.b}, std::pair{p.b, p.a}}) {
      INFO(to_string(a), " and ", to_string(b), ": ", p.rule);
      std::optional<Shape> yours;
      CHECK_NOTHROW(yours = broadcast(a, b));
      const Shape expected = broadcast_shapes("add", a, b);
      if (yours) CHECK_MESSAGE(*yours == expected, shape_problem(*yours, expected, a));
    }
}

TEST_CASE("sizes that are neither equal nor 1 are refused with a ShapeError") {
  INFO("sizes 3 and 2 cannot both fill one dimension: refuse them");
  CHECK_THROWS_AS(broadcast({2, 3}, {2}), ShapeError);
  CHECK_THROWS_AS(broadcast({4, 2}, {3, 1, 3}), ShapeError);
}
