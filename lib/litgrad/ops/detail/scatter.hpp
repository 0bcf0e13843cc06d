#pragma once
// The operations that undo a selection, as gradients written with operations need them (backward
// with create_graph): each puts a gradient back where the selection took its numbers from, and
// is itself differentiable (its gradient is the selection again). Only the library's own .cpp
// files include this.

#include <cstdint>
#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad::detail {

/// `zeros(shape)` with g in the positions start, start + step, ... of dimension dim: the
/// gradient of slice(x, dim, start, ..., step) for x of `shape`.
Tensor unslice(const Tensor& g, const Shape& shape, std::int64_t dim, std::int64_t start, std::int64_t step);

/// `zeros(shape)` with each element of g added at the position gather(x, dim, index) read it
/// from: the gradient of gather for x of `shape`.
Tensor scatter_add(const Tensor& g, const Shape& shape, std::int64_t dim, const Tensor& index);

/// `zeros(shape)` with slice j of g along dim added to slice rows[j]: the gradient of
/// index_select(x, dim, rows) for x of `shape`.
Tensor index_add(const Tensor& g, const Shape& shape, std::int64_t dim, const std::vector<std::int64_t>& rows);

}  // namespace litgrad::detail
