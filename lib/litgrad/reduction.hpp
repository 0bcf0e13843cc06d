#pragma once
/// \file reduction.hpp
/// \brief Reductions over dimensions: sum, mean and max, with torch's `keepdim`.
///
/// `keepdim = true` keeps each reduced dimension with size 1, so the result still broadcasts
/// against the input: `x - max(x, -1, true).values` subtracts each row's maximum.

#include <vector>

#include "litgrad/tensor.hpp"

namespace litgrad {

/// \brief The sum of all elements, as a 0-dimensional tensor.
Tensor sum(const Tensor& x);
/// \brief Sums over the listed dimensions: `[2,3,4]` over `{0, 2}` gives `[3]`, or `[1,3,1]`
/// with \p keepdim. \throws IndexError for a dimension out of range; ShapeError for a repeat.
///
/// \code
/// Tensor x = reshape(arange(6), {2, 3});
/// sum(x, {1});          // [3, 12], shape [2]
/// sum(x, {1}, true);    // shape [2,1], broadcasts against x
/// \endcode
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false);
/// \brief The mean of all elements (NaN for an empty tensor, as torch).
Tensor mean(const Tensor& x);
/// \brief Means over the listed dimensions, shapes as sum().
Tensor mean(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false);

/// \brief The result of max() along a dimension: the values and where they are.
struct MaxResult {
  Tensor values;   ///< the largest element along the dimension (differentiable)
  Tensor indices;  ///< its position along the dimension, Int64 (the first one if tied)
};
/// \brief The largest element along \p dim and its position.
///
/// Shapes: `[..., n, ...]` gives `[..., ...]`, or `[..., 1, ...]` with \p keepdim. A NaN
/// anywhere along the dimension wins, as torch (a NaN is never hidden). The gradient goes to
/// the returned position. \throws ValueError for an empty dimension.
MaxResult max(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// \brief The largest element of the whole tensor, as a 0-dimensional tensor.
Tensor max(const Tensor& x);

}  // namespace litgrad
