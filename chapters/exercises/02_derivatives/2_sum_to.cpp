// Exercise 2.2 · The backward of broadcasting
// ===========================================
//
// When an operand of shape ``shape`` was broadcast into a larger result, the gradient
// arriving from the result has the result's shape; section 5 showed that the operand's
// gradient is that gradient summed over every dimension the broadcast stretched, in the
// operand's own shape. Write ``sum_to(grad, shape)``, which does it: litgrad's ``sum``
// (with its ``keepdim``) and ``reshape`` may help. The tests compare with the gradients
// litgrad's autograd gives an operand of each shape in ``operand + zeros(result)``.

// %% hint
// Compare the two shapes from the right, as broadcasting did (exercise 1.2). Which
// dimensions of the gradient have no counterpart in ``shape`` at all, and which are
// there with size 1 where the gradient's is larger? Each kind was stretched, and each
// must leave the result in its own way.

// %% fold: includes, and the reference
#include <doctest/doctest.h>

#include <string>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// The gradient litgrad gives an operand of shape `shape` broadcast into `grad`'s shape.
Tensor reference(const Tensor& grad, const Shape& shape) {
  Tensor operand = zeros(shape).requires_grad_();
  (operand + zeros(grad.shape())).backward(grad);
  return operand.grad();
}
// An incoming gradient of small whole numbers, so that every sum is exact.
Tensor whole_numbers(const Shape& shape) {
  Generator gen(static_cast<std::uint64_t>(numel(shape)));
  return to(randint(-9, 10, shape, gen), DType::Float64);
}
}  // namespace

// %%
// The function to write, in ``exercises/02_derivatives/2_sum_to.cpp``:

Tensor sum_to(const Tensor& grad, const Shape& shape);

// %% fold: one reduction, checked against autograd's
namespace {
// sum_to of a gradient of small whole numbers shaped `from`, down to `to`, against the
// gradient autograd gives an operand of shape `to`: `wrong_shape` says what a wrong
// shape points to, `wrong_values` what wrong numbers do.
void check_sum_to(const Shape& from, const Shape& to, const std::string& wrong_shape,
                  const std::string& wrong_values) {
  const Tensor g = whole_numbers(from), mine = sum_to(g, to), want = reference(g, to);
  INFO("from ", to_string(from), " to ", to_string(to), ": yours ", mine, ", want ",
       want);
  REQUIRE_MESSAGE(mine.shape() == to, wrong_shape);
  CHECK_MESSAGE(max(abs(mine - want)).item() == 0.0, wrong_values);
}
}  // namespace

// %%
// The tests.

TEST_CASE("a dimension of size 1 that was stretched is summed over and kept as 1") {
  for (const auto& [from, to] : {std::pair<Shape, Shape>{{3, 4}, {3, 1}},
                                 std::pair<Shape, Shape>{{3, 4}, {1, 4}},
                                 std::pair<Shape, Shape>{{2, 5, 3}, {2, 1, 3}}})
    check_sum_to(from, to,
                 "the gradient has the operand's shape, a stretched size-1 "
                 "dimension summed over and kept with size 1 (keepdim): the "
                 "incoming shape points to size-1 dimensions not summed, fewer "
                 "dimensions to the stretched dimensions dropped instead of kept",
                 "each element is the sum of the gradients of all its copies, over "
                 "exactly the stretched dimensions: smaller values point to a mean "
                 "instead of a sum");
}

TEST_CASE("a dimension the operand did not have is summed over and dropped") {
  for (const auto& [from, to] :
       {std::pair<Shape, Shape>{{3, 4}, {4}}, std::pair<Shape, Shape>{{2, 3, 4}, {4}},
        std::pair<Shape, Shape>{{3, 2}, {}}})
    check_sum_to(from, to,
                 "dimensions missing on the operand's left were stretched too, "
                 "summed over and gone from its gradient: more dimensions point to "
                 "missing leading dimensions not summed",
                 "each element is the sum over every copy the broadcast made");
}

TEST_CASE(
    "sizes are matched from the right: a 1 on the gradient's left is not the "
    "operand's") {
  // [1] into [1, 3]: the operand's 1 stands against the 3, not against the leading 1;
  // [5, 1, 1] into [1, 5, 1, 4]: its last 1 stands against the 4.
  for (const auto& [from, to] : {std::pair<Shape, Shape>{{1, 3}, {1}},
                                 std::pair<Shape, Shape>{{1, 5, 1, 4}, {5, 1, 1}}})
    check_sum_to(from, to,
                 "a size-1 dimension of the operand was compared with the "
                 "gradient's dimension at the same place from the left, not with "
                 "the one it stands against from the right: this points to the "
                 "stretched dimensions matched from the left",
                 "each element is the sum over every copy the broadcast made");
}

TEST_CASE("both kinds at once, and nothing summed where nothing was stretched") {
  for (const auto& [from, to] : {std::pair<Shape, Shape>{{2, 5, 4, 3}, {5, 1, 1}},
                                 std::pair<Shape, Shape>{{6, 2}, {6, 2}}})
    check_sum_to(from, to, "the gradient has the operand's shape",
                 "only the stretched dimensions are summed: a dimension of the same "
                 "size in both shapes is left alone");
}
