#pragma once
/// \file matmul.hpp
/// \brief Matrix products, batched over leading dimensions with broadcasting, through Eigen's GEMM.

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief The matrix product with torch's rules.
///
/// Shapes: `[..., n, k] @ [..., k, m] -> [..., n, m]`, where the leading (batch) dimensions
/// broadcast: `[8, 1, n, k] @ [4, k, m] -> [8, 4, n, m]`. A 1-D left operand `[k]` acts as a
/// row `[1, k]` and a 1-D right operand `[k]` as a column `[k, 1]`; the added dimension is
/// removed from the result, so `[k] @ [k]` is the dot product, a 0-dimensional tensor.
///
/// \code
/// Tensor scores = matmul(q, transpose(k, -2, -1));   // [B, L, d] @ [B, d, S] -> [B, L, S]
/// \endcode
/// \throws ShapeError naming both shapes when the inner sizes differ, the batch dimensions do
///   not broadcast, or an operand is 0-dimensional.
Tensor matmul(const Tensor& a, const Tensor& b);

}  // namespace litgrad
