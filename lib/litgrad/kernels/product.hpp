#pragma once
// Matrix products on raw row-major arrays: the arithmetic behind matmul, Linear layers and
// attention. Only the library's own .cpp files (and the kernels' tests) include this.
//
// The arithmetic, which both rooms (kernels/room.hpp) do in the same order: every element of
// C = op(A) op(B), n x k times k x m, is a sum of its k products a(i,p) b(p,j), added as a
// chain: s = +0, then s = s + a(i,p) b(p,j) for p = 0, 1, 2, ..., each step one fused
// multiply-add, rounded once (as Eigen's kernels add with FMA), on every CPU: a build for a CPU
// without FMA computes the same steps more slowly (kernels/plain/product.cpp), not others; in
// blocks of kDepthBlock terms, each block's chain added to the total in turn,
// c = ((+0 + chain_1) + chain_2) + ... (one block, a single chain, when k <= kDepthBlock).
// With `overwrite` C gets the sum; otherwise each element becomes c + sum, rounded once.
// An element depends only on its row of op(A) and its column of op(B), never on where they sit
// or how many rows and columns are computed beside it, and terms that are zero at the end of a
// sum change nothing (s + 0 b is s). So a row computed alone has the bits it has among other
// rows: a decoder that feeds one new token through its layers gets exactly the bits of feeding
// the whole sequence (the KV cache's promise), and the book's exact claims rest on the same.

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "litgrad/base/flop_counter.hpp"
#include "litgrad/base/shape.hpp"
#include "litgrad/kernels/broadcast.hpp"
#include "litgrad/kernels/parallel.hpp"
#include "litgrad/kernels/room.hpp"

namespace litgrad::kernels {

/// Terms per block of a GEMM chain. Fixed, rather than left to Eigen (which sizes its blocks
/// from the CPU's caches), so that the bits depend on no cache size.
constexpr std::int64_t kDepthBlock = 512;

/// One operand of a product: the row-major `rows` x `cols` matrix at `data`, read transposed
/// when `transposed` (so that op(M) is cols x rows).
struct Matrix {
  const double* data;
  std::int64_t rows, cols;
  bool transposed = false;
};

/// Which code the fast room runs for an n x k times k x m product (the order is always the
/// chain of the top of this file; only the speed depends on the path).
struct ProductPlan {
  enum class Path { Small, Gemm };
  Path path;
  std::int64_t block;  // terms per block of the chain: kDepthBlock
};

inline ProductPlan plan(std::int64_t n, std::int64_t k, std::int64_t m) {
  using Path = ProductPlan::Path;
  // Short sums, and sums of one block with few rows or columns: SIMD rows of chains.
  if (k <= 8 || (k <= kDepthBlock && (n < 16 || m < 16))) return {Path::Small, kDepthBlock};
  return {Path::Gemm, kDepthBlock};  // large; or a long sum with few rows or columns, padded
}

namespace plain {
/// The plain room's products: the sums of the top of this file, one element at a time.
class Product {
 public:
  Product(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite, bool skip_zero_terms = true);
  void add(double* c, const Matrix& a, const Matrix& b, std::int64_t* columns = nullptr);
  std::int64_t n() const { return n_; }
  std::int64_t k() const { return k_; }
  std::int64_t m() const { return m_; }

 private:
  std::int64_t n_, k_, m_;
  bool overwrite_;
  ProductPlan plan_;
};
}  // namespace plain

namespace fast {
/// Whether the fast room has products of its own in this build: Eigen's GEMM and SIMD rows of
/// chains, which need FMA, so only in a build for a CPU with it (-march=native on one). Without,
/// fast::Product runs the plain room's fused chains, so that the bits are the same.
constexpr bool kOwnProducts =
#if defined(__FMA__)
    true;
#else
    false;
#endif

/// The fast room's products: Eigen's GEMM, and SIMD rows of chains.
class Product {
 public:
  Product(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite, bool skip_zero_terms = true);
  ~Product();
  Product(const Product&) = delete;
  Product& operator=(const Product&) = delete;
  void add(double* c, const Matrix& a, const Matrix& b, std::int64_t* columns = nullptr);
  std::int64_t n() const { return n_; }
  std::int64_t k() const { return k_; }
  std::int64_t m() const { return m_; }

 private:
  std::int64_t n_, k_, m_;
  bool overwrite_;
  class Impl;                   // the GEMM path, with its buffers
  std::unique_ptr<Impl> impl_;  // none for a small product: most of a small model's, made per call
};
}  // namespace fast

/// Multiplies n x k by k x m matrices, one product per add(), reusing its buffers from one call
/// to the next, so a batch of equal-sized products makes one Product.
///
/// With `overwrite`, add() writes C (which then need not be initialised); otherwise it adds.
/// The fast room may leave out of a sum terms whose factor from A is zero, where that cannot
/// change a bit of the result (kernels/fast/product.cpp says when); `skip_zero_terms = false`
/// makes every sum add every term, for the tests that check it changes nothing.
///
/// add(): C (n x m, row-major, contiguous) gets op(A) op(B) (op(A) is n x k, op(B) k x m).
/// With `columns` (n counts), row i of C is needed only in its first columns[i] columns: the
/// product may leave the rest of the row unwritten, and sets columns[i] to how many it wrote
/// (at least as many as asked). Every element written is the one the whole product has.
/// Every add() counts its n k m multiply-adds (or k times the columns asked for, with
/// `columns`) for FlopCounter: this class holds the room's product and counts, then asks it.
class Product {
 public:
  Product(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite, bool skip_zero_terms = true)
      : product_(n, k, m, overwrite, skip_zero_terms) {}
  void add(double* c, const Matrix& a, const Matrix& b, std::int64_t* columns = nullptr) {
    std::int64_t asked = product_.n() * product_.m();
    if (columns) {
      asked = 0;
      for (std::int64_t i = 0; i < product_.n(); ++i) asked += columns[i];
    }
    detail::count_multiply_adds(asked * product_.k());
    product_.add(c, a, b, columns);
  }

 private:
  room::Product product_;
};

/// A batch of matrices stored one after another: `batch` of them (its shape), each `rows` x
/// `cols`, row-major, read transposed when `transposed`.
struct Matrices {
  const double* data;
  Shape batch;
  std::int64_t rows, cols;
  bool transposed = false;
  Matrix at(std::int64_t i) const { return {data + i * rows * cols, rows, cols, transposed}; }
};

/// C = the sum, over every index of `batch`, of op(A[a]) op(B[b]) placed in C[c], where op
/// transposes when asked and the batch shapes of C, A and B (cb, A.batch, B.batch) each
/// broadcast to `batch`: summing into C is what sums a gradient over the batch dimensions its
/// operand was broadcast along. Each of C's matrices is n x m (op(A) is n x k, op(B) k x m).
/// When each of C's matrices gets one product, or one product sums them all, C is written
/// directly; otherwise it is zeroed and the products added, in the batch's row-major order. C
/// need not be initialised, unless `accumulate`: then the products are added to what C holds (a
/// bias, say). A batch sharing one matrix (a Linear layer's weight, say) is stacked into one
/// tall product: that changes only n, so the bits are those of the products one at a time.
inline void batched_product(const Shape& batch, double* c, const Shape& cb, const Matrices& A, const Matrices& B,
                            bool accumulate = false) {
  const std::int64_t n = A.transposed ? A.cols : A.rows, k = A.transposed ? A.rows : A.cols;
  const std::int64_t m = B.transposed ? B.rows : B.cols;
  const std::int64_t count = numel(batch), c_size = numel(cb) * n * m;
  if (c_size == 0) return;  // no elements (and empty data may be null)
  if (count == 0) {         // a sum of no products (one of no terms, k = 0, is Product's)
    if (!accumulate) std::fill(c, c + c_size, 0.0);
    return;
  }
  const Matrix b0 = B.at(0);
  if (count > 1 && numel(B.batch) == 1 && !A.transposed && A.batch == batch && cb == batch) {  // C_i = A_i B
    Product(count * n, k, m, !accumulate).add(c, {A.data, count * A.rows, A.cols}, b0);
    return;
  }
  if (count > 1 && numel(cb) == 1 && A.transposed && !B.transposed && A.batch == batch &&
      B.batch == batch) {  // C = sum_i A_iᵀ B_i
    Product(n, count * A.rows, m, !accumulate)
        .add(c, {A.data, count * A.rows, A.cols, true}, {B.data, count * B.rows, B.cols});
    return;
  }
  const bool once = cb == batch;  // each of C's matrices gets exactly one product
  const std::int64_t cs = n * m;
  // Products into different matrices of C share no sum, so they may go to different threads
  // (kernels/parallel.hpp), each part a run of the batch with its own buffers.
  const std::int64_t parts = once ? parts_for(count * n * k * m, count) : 1;
  if (parts > 1) {
    std::vector<std::array<std::int64_t, 3>> at;  // each product's matrices of C, A and B
    at.reserve(static_cast<std::size_t>(count));
    for_each_broadcast<3>(batch, {&cb, &A.batch, &B.batch}, [&](std::int64_t, const auto& o) {
      at.push_back({o[0], o[1], o[2]});
    });
    detail::count_multiply_adds(count * n * k * m);  // on this thread, which FlopCounter watches
    parallel_for(parts, [&](std::int64_t part) {
      room::Product multiply(n, k, m, /*overwrite=*/!accumulate);
      for (std::int64_t i = count * part / parts; i < count * (part + 1) / parts; ++i)
        multiply.add(c + at[i][0] * cs, A.at(at[i][1]), B.at(at[i][2]));
    });
    return;
  }
  if (!once && !accumulate) std::fill(c, c + c_size, 0.0);
  Product multiply(n, k, m, /*overwrite=*/once && !accumulate);
  for_each_broadcast<3>(batch, {&cb, &A.batch, &B.batch},
                        [&](std::int64_t, const auto& o) { multiply.add(c + o[0] * cs, A.at(o[1]), B.at(o[2])); });
}

}  // namespace litgrad::kernels
