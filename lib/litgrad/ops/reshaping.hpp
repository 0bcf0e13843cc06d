#pragma once
/// \file reshaping.hpp
/// \brief The same elements in another arrangement: reshape, squeeze and unsqueeze, permute,
/// transpose. All differentiable; the gradient is rearranged back.

#include <vector>

#include "litgrad/core/tensor.hpp"

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
/// \brief Dimensions \p start_dim to \p end_dim merged into one, as `torch.flatten`:
/// `[2,3,4]` gives `[24]`, or `[2,12]` with start_dim 1. The data are shared.
Tensor flatten(const Tensor& x, std::int64_t start_dim = 0, std::int64_t end_dim = -1);
/// \brief \p x broadcast to \p sizes, as `torch.Tensor.expand`: dimensions of size 1 stretch,
/// new ones are added in front, and -1 keeps a size. The result holds its own copy; its
/// gradient is summed back over the stretched dimensions.
/// \throws ShapeError when \p x does not broadcast to \p sizes.
Tensor expand(const Tensor& x, const Shape& sizes);
/// \brief \p x tiled, as `torch.Tensor.repeat`: dimension i repeated `repeats[i]` times
/// (`[2,3]` with `{2, 1}` gives `[4,3]`, the rows 0, 1, 0, 1); extra leading repeats add
/// dimensions. The gradient of each element is the sum over its copies.
/// \throws ShapeError when \p repeats has fewer entries than \p x has dimensions.
Tensor repeat(const Tensor& x, const std::vector<std::int64_t>& repeats);

}  // namespace litgrad
