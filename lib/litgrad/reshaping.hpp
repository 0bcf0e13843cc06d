#pragma once
/// \file reshaping.hpp
/// \brief The same elements in another arrangement: reshape, squeeze and unsqueeze, permute,
/// transpose. All differentiable; the gradient is rearranged back.

#include <vector>

#include "litgrad/tensor.hpp"

namespace litgrad {

/// \brief The elements of \p x, in the same row-major order, under a new shape.
///
/// One entry of \p shape may be `-1`, meaning "whatever makes the counts match":
/// `reshape(x, {-1})` flattens. The data are shared, not copied.
///
/// \code
/// Tensor x = arange(6);
/// Tensor m = reshape(x, {2, -1});     // [[0, 1, 2], [3, 4, 5]]
/// Tensor t = transpose(m, 0, 1);     // [[0, 3], [1, 4], [2, 5]]
/// \endcode
/// \throws ShapeError when the element counts differ or `-1` cannot be resolved.
Tensor reshape(const Tensor& x, const Shape& shape);
/// \brief Inserts a dimension of size 1 at \p dim: `[3,4]` with dim 1 gives `[3,1,4]`.
/// \throws IndexError when dim is outside `[-(ndim+1), ndim]`.
Tensor unsqueeze(const Tensor& x, std::int64_t dim);
/// \brief Removes dimension \p dim if its size is 1 (otherwise returns x unchanged, as torch).
Tensor squeeze(const Tensor& x, std::int64_t dim);
/// \brief Reorders the dimensions: result dimension i is input dimension `dims[i]`.
/// `permute(x, {1, 0})` of a `[2,3]` tensor is its `[3,2]` transpose. Copies the data.
/// \throws ShapeError when dims is not a permutation of `0..ndim-1`.
Tensor permute(const Tensor& x, const std::vector<std::int64_t>& dims);
/// \brief Swaps two dimensions: `transpose(x, -2, -1)` transposes the matrices of a batch.
Tensor transpose(const Tensor& x, std::int64_t dim0, std::int64_t dim1);

}  // namespace litgrad
