#pragma once
// The fast room's products with short sums (k <= 8), such as a Linear layer on two features,
// and those with few rows or columns (plan() in kernels/product.hpp): the chain of
// kernels/product.hpp for every element, independent chains side by side in SIMD lanes.

#include <cstdint>

#include "litgrad/kernels/product.hpp"

namespace litgrad::kernels::fast {

/// C (n x m, row-major, contiguous) gets op(A) op(B), or has it added (each element c + sum)
/// when not `overwrite`; op(A) is n x k, op(B) k x m, and k is at most kDepthBlock.
void small_product(double* c, bool overwrite, const Matrix& A, const Matrix& B, std::int64_t n, std::int64_t k,
                   std::int64_t m);

}  // namespace litgrad::kernels::fast
