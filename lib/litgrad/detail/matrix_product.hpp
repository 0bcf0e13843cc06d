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
  /// Sums may leave out terms whose factor from A is zero, where that cannot change a bit of
  /// the result (matrix_product.cpp says when); `skip_zero_terms = false` makes every sum add
  /// every term, for the tests that check it changes nothing.
  MatrixProduct(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite, bool skip_zero_terms = true);
  ~MatrixProduct();
  MatrixProduct(const MatrixProduct&) = delete;
  MatrixProduct& operator=(const MatrixProduct&) = delete;

  /// C (n x m, row-major, contiguous) gets op(A) op(B), where A is the row-major ar x ac matrix
  /// at `a`, transposed when `ta` (so op(A) is n x k), and likewise B (op(B) is k x m).
  ///
  /// With `columns` (n counts), row i of C is needed only in its first columns[i] columns: the
  /// product may leave the rest of the row unwritten, and sets columns[i] to how many it
  /// wrote (at least as many as asked). Every element written is the one the whole product has.
  void add(double* c, const double* a, std::int64_t ar, std::int64_t ac, bool ta, const double* b, std::int64_t br,
           std::int64_t bc, bool tb, std::int64_t* columns = nullptr);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace litgrad::detail
