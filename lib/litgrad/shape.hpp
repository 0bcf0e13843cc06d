#pragma once
/// \file shape.hpp
/// \brief Shapes: their printing, element counts, broadcasting and dimension wrapping.

#include <cstdint>
#include <string>
#include <vector>

namespace litgrad {

/// \brief The sizes of a tensor's dimensions, outermost first: `{2, 3}` is two rows of three.
using Shape = std::vector<std::int64_t>;

/// \brief `[2,3]`: the way every error message and printout writes a shape.
std::string to_string(const Shape& shape);

/// \brief The number of elements a tensor of this shape holds (1 for the scalar shape `{}`).
std::int64_t numel(const Shape& shape);

/// \brief The shape two operands broadcast to, by NumPy's and torch's rule.
///
/// Shapes are aligned at their last dimension; each pair of sizes must be equal or one of
/// them 1. \code broadcast_shapes("add", {2, 1, 3}, {4, 1}) == Shape{2, 4, 3} \endcode
/// \throws ShapeError naming \p op and both shapes when they do not broadcast.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);

/// \brief Wraps a possibly negative dimension into `[0, ndim)`, as torch does (`-1` is the last).
/// \throws IndexError naming \p op when \p dim is outside `[-ndim, ndim)`.
std::int64_t wrap_dim(const char* op, std::int64_t dim, std::int64_t ndim);

}  // namespace litgrad
