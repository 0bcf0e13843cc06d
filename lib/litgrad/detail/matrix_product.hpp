#pragma once
// One matrix product C = op(A) op(B), or C += op(A) op(B), on raw row-major arrays: the
// arithmetic behind matmul and the fused attention weights. Every element of C depends only on
// its row of op(A) and its column of op(B), never on where they sit, so equal inputs give
// bit-identical outputs anywhere in a batch (the book's exact claims rest on it; matrix_product.cpp
// says how). Only the library's own .cpp files include this; it keeps Eigen out of them.

#include <cstdint>
#include <memory>

namespace litgrad::detail {

/// Multiplies n x k by k x m matrices, one product per add(), reusing its buffers from one
/// call to the next, so a batch of equal-sized products makes one MatrixProduct.
class MatrixProduct {
 public:
  /// With `overwrite`, add() writes C (which then need not be initialised); otherwise it adds.
  MatrixProduct(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite);
  ~MatrixProduct();
  MatrixProduct(const MatrixProduct&) = delete;
  MatrixProduct& operator=(const MatrixProduct&) = delete;

  /// C (n x m, row-major, contiguous) gets op(A) op(B), where A is the row-major ar x ac matrix
  /// at `a`, transposed when `ta` (so op(A) is n x k), and likewise B (op(B) is k x m).
  void add(double* c, const double* a, std::int64_t ar, std::int64_t ac, bool ta, const double* b, std::int64_t br,
           std::int64_t bc, bool tb);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace litgrad::detail
