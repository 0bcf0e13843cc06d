#pragma once
// matmul(a, transpose(b, -2, -1)) without copying b's transpose: what attention's scores need.
// Only the library's own .cpp files include this.

#include "litgrad/tensor.hpp"

namespace litgrad::detail {

/// a: [..., n, k], b: [..., m, k] (batch dimensions broadcast); result: [..., n, m] = a bᵀ,
/// recorded as "matmul" with its gradient. Both operands need at least two dimensions.
Tensor matmul_transposed(const Tensor& a, const Tensor& b);

}  // namespace litgrad::detail
