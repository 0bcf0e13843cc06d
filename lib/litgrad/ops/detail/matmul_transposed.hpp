#pragma once
// matmul(a, transpose(b, -2, -1)) without copying b's transpose: what attention's scores and
// Linear layers need.
// Only the library's own .cpp files include this.

#include "litgrad/core/tensor.hpp"

namespace litgrad::detail {

/// a: [..., n, k], b: [..., m, k] (batch dimensions broadcast); result: [..., n, m] = a bᵀ,
/// recorded as "matmul" with its gradient. Both operands need at least two dimensions. With a
/// bias [m], a bᵀ + bias (a Linear layer) as one operation, recorded as "linear": the products
/// are added to the bias, which gives the bits of adding it afterwards, without another pass.
Tensor matmul_transposed(const Tensor& a, const Tensor& b, const Tensor& bias = Tensor());

}  // namespace litgrad::detail
