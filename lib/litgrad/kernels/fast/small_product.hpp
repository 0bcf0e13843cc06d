#pragma once
// The fast room's products in four sums (kernels/product.hpp): products with short sums
// (k <= 8), such as a Linear layer on two features. Every element is the sum of its k products in four interleaved partial
// sums, s_r = 0 + a(i,r) b(r,j) + a(i,r+4) b(r+4,j) + ... (r = 0..3), then (s0 + s1) + (s2 + s3),
// with SIMD along C's rows (or Cᵀ's, for a narrow C), or along the sums (a matrix times a
// vector). Four independent sums keep the FPU busy when k is long.

#include <cstdint>

namespace litgrad::kernels::fast {

/// C (n x m, row-major, contiguous) gets op(A) op(B), or has it added (each element c + sum)
/// when not `overwrite`. A is row-major with rows `ac` long, read transposed when `ta` (op(A) is
/// n x k); likewise B with `bc` and `tb` (op(B) is k x m).
void small_product(double* c, bool overwrite, const double* a, std::int64_t ac, bool ta, const double* b,
                   std::int64_t bc, bool tb, std::int64_t n, std::int64_t k, std::int64_t m);

}  // namespace litgrad::kernels::fast
