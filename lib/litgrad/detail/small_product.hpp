#pragma once
// Products with short sums, or few of them: a Linear layer on two features, a matrix times a
// vector, a weight's gradient summed over a batch. Every element of C = op(A) op(B) is the sum
// of its k products in four interleaved partial sums,
//
//   s_r = 0 + a(i,r) b(r,j) + a(i,r+4) b(r+4,j) + ...   (r = 0, 1, 2, 3; p in increasing order)
//   c(i,j) = (s0 + s1) + (s2 + s3)
//
// the same order for every element wherever it sits, so equal inputs give equal bits. Four
// independent sums keep the FPU busy when k is long. small_product_plain is that definition as
// a plain loop; small_product computes the same bits with SIMD along C's rows (or Cᵀ's, for a
// narrow C), or along the sums (a matrix times a vector), and the tests hold the two to it.
// Only the library's own .cpp files include this.

#include <cstdint>

namespace litgrad::detail {

/// C (n x m, row-major, contiguous) gets op(A) op(B), or has it added (each element c + sum)
/// when not `overwrite`. A is row-major with rows `ac` long, read transposed when `ta` (op(A) is
/// n x k); likewise B with `bc` and `tb` (op(B) is k x m).
void small_product(double* c, bool overwrite, const double* a, std::int64_t ac, bool ta, const double* b,
                   std::int64_t bc, bool tb, std::int64_t n, std::int64_t k, std::int64_t m);

/// The same, one element at a time, as the formula above reads.
void small_product_plain(double* c, bool overwrite, const double* a, std::int64_t ac, bool ta, const double* b,
                         std::int64_t bc, bool tb, std::int64_t n, std::int64_t k, std::int64_t m);

}  // namespace litgrad::detail
