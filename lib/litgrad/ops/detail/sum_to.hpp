#pragma once
// The sum that undoes broadcasting, for gradients written with operations (backward with
// create_graph). Only the library's own .cpp files include this.

#include "litgrad/core/tensor.hpp"

namespace litgrad::detail {

/// Sums g over the dimensions it has beyond `shape`, or of size 1 in `shape`: the gradient of
/// an operand that was broadcast to g's shape, recorded (so that it can be differentiated).
Tensor sum_to(const Tensor& g, const Shape& shape);

}  // namespace litgrad::detail
