// The only file of the core that includes Eigen: matrix products are handed to its GEMM.

#include "litgrad/matmul.hpp"

#include <algorithm>
#include <vector>

// We choose between Eigen's GEMM and its coefficient-based product ourselves (see Multiplier).
#define EIGEN_GEMM_TO_COEFFBASED_THRESHOLD 0
#include <Eigen/Core>

#include "litgrad/detail/broadcast.hpp"
#include "litgrad/detail/node.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/error.hpp"
#include "litgrad/reshaping.hpp"

namespace litgrad {

namespace {

using ColMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;

Shape batch_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }
std::int64_t rows(const Tensor& t) { return t.shape()[t.dim() - 2]; }
std::int64_t cols(const Tensor& t) { return t.shape()[t.dim() - 1]; }

// Every element of a product that litgrad computes depends only on its row of A and its
// column of B, so equal inputs give bit-identical outputs wherever they sit (the book's exact
// claims rest on it). Eigen alone does not promise that: its GEMM computes mr x nr tiles of
// results and the tiles at the edges go through other code that adds in another order, and
// its coefficient-based product (which it uses itself for small sizes) peels elements off
// according to memory alignment. So we hand Eigen zero-padded, aligned copies: whole tiles for
// GEMM, whole SIMD packets of rows for the coefficient-based product, so that every element
// goes through the same code; then we copy the product out. GEMM pays for its packing only when
// all three sizes are large. Tiny products (a few hundred multiply-adds, such as a batch of
// one-row products) cost less as a plain loop than as any call into Eigen, and so do products
// with few outputs each summing many terms (a weight's gradient summed over a whole batch),
// where Eigen's coefficient path would run one long dependent chain per output. The loop adds
// each element's products in order, vectorised along a row of C, which keeps the same promise.
constexpr Eigen::Index kTileRows = Eigen::internal::gebp_traits<double, double>::mr;
constexpr Eigen::Index kTileCols = Eigen::internal::gebp_traits<double, double>::nr;
constexpr Eigen::Index kPacket = Eigen::internal::packet_traits<double>::size;
Eigen::Index round_up(Eigen::Index n, Eigen::Index to) { return (n + to - 1) / to * to; }

// Adds op(A) op(B) (n x k times k x m) into row-major n x m matrices, one product at a time,
// reusing its buffers. A's and B's matrices are row-major r x c, transposed when asked.
class Multiplier {
 public:
  enum class Path { Loop, Coefficients, Gemm };
  static Path path_for(std::int64_t n, std::int64_t k, std::int64_t m) {
    if (n * k * m <= 512 || n * m <= 64) return Path::Loop;  // tiny, or few outputs each summing many products
    return k >= 32 && n >= 16 && m >= 16 ? Path::Gemm : Path::Coefficients;
  }

  Multiplier(std::int64_t n, std::int64_t k, std::int64_t m) : n_(n), k_(k), m_(m), path_(path_for(n, k, m)) {
    if (path_ == Path::Loop) {
      row_.resize(static_cast<std::size_t>(m));
      return;
    }
    a_.resize(round_up(n, path_ == Path::Gemm ? kTileRows : kPacket), k);
    b_.resize(k, path_ == Path::Gemm ? round_up(m, kTileCols) : m);
    product_.resize(a_.rows(), b_.cols());
    a_.bottomRows(a_.rows() - n).setZero();  // the padding; pack() fills the rest every time
    b_.rightCols(b_.cols() - m).setZero();
  }

  void add(double* c, const double* a, std::int64_t ar, std::int64_t ac, bool ta, const double* b, std::int64_t br,
           std::int64_t bc, bool tb) {
    if (path_ == Path::Loop) {
      if (tb) {  // make B's rows contiguous, so that the inner loop runs along them
        transposed_.resize(static_cast<std::size_t>(k_ * m_));
        for (std::int64_t p = 0; p < k_; ++p)
          for (std::int64_t j = 0; j < m_; ++j) transposed_[p * m_ + j] = b[j * bc + p];
        b = transposed_.data();
        bc = m_;
      }
      double* row = row_.data();
      for (std::int64_t i = 0; i < n_; ++i) {
        std::fill(row, row + m_, 0.0);
        for (std::int64_t p = 0; p < k_; ++p) {
          const double x = ta ? a[p * ac + i] : a[i * ac + p];
          const double* bp = b + p * bc;
          for (std::int64_t j = 0; j < m_; ++j) row[j] += x * bp[j];
        }
        for (std::int64_t j = 0; j < m_; ++j) c[i * m_ + j] += row[j];
      }
      return;
    }
    pack(a, ar, ac, ta, a_);
    pack(b, br, bc, tb, b_);
    if (path_ == Path::Gemm) product_.noalias() = a_ * b_;
    else product_.noalias() = a_.lazyProduct(b_);
    for (std::int64_t i = 0; i < n_; ++i)
      for (std::int64_t j = 0; j < m_; ++j) c[i * m_ + j] += product_(i, j);
  }

 private:
  // The row-major r x c matrix at `src` (transposed first if asked) into the top-left corner of
  // `dst`; the rest of `dst` stays zero.
  static void pack(const double* src, std::int64_t r, std::int64_t c, bool transposed, ColMajorMatrix& dst) {
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const RowMajor> m(src, r, c);
    if (transposed) dst.topLeftCorner(c, r) = m.transpose();
    else dst.topLeftCorner(r, c) = m;
  }

  std::int64_t n_, k_, m_;
  Path path_;
  ColMajorMatrix a_, b_, product_;        // padded operands and product (GEMM and coefficient paths)
  std::vector<double> row_, transposed_;  // loop path: one row of C; B transposed
};

// C[c] += op(A[a]) op(B[b]) for every index of `batch`, where op transposes when asked and
// the batch shapes of C, A and B each broadcast to `batch`. Accumulating into C is what sums a
// gradient over the batch dimensions its operand was broadcast along.
// A: [..., r, c], B: [..., r, c], C: [..., n, m] with n, m the sizes of the product.
void batched_gemm(const Shape& batch, Tensor& C, const Tensor& A, bool ta, const Tensor& B, bool tb) {
  const Shape cb = batch_of(C), ab = batch_of(A), bb = batch_of(B);
  const std::int64_t n = rows(C), m = cols(C), k = ta ? rows(A) : cols(A), count = numel(batch);
  // One matrix shared by the whole batch (a Linear layer's weight, say): stack the batch's
  // matrices into one tall product instead of many small ones.
  if (count > 1 && numel(bb) == 1 && !ta && ab == batch && cb == batch) {  // C_i = A_i B for all i
    Multiplier(count * n, k, m).add(C.data(), A.data(), count * rows(A), cols(A), false, B.data(), rows(B), cols(B), tb);
    return;
  }
  if (count > 1 && numel(cb) == 1 && ta && !tb && ab == batch && bb == batch) {  // C = sum_i A_iᵀ B_i
    Multiplier(n, count * rows(A), m).add(C.data(), A.data(), count * rows(A), cols(A), true, B.data(), count * rows(B), cols(B), false);
    return;
  }
  Multiplier multiply(n, k, m);
  const std::int64_t cs = n * m, as = rows(A) * cols(A), bs = rows(B) * cols(B);
  detail::for_each_broadcast<3>(batch, {&cb, &ab, &bb}, [&](std::int64_t, const auto& o) {
    multiply.add(C.data() + o[0] * cs, A.data() + o[1] * as, rows(A), cols(A), ta, B.data() + o[2] * bs, rows(B), cols(B), tb);
  });
}

// a: [..., n, k], b: [..., k, m], both at least 2-D; result: [broadcast(...), n, m].
Tensor matmul_2d_or_more(const Tensor& a, const Tensor& b) {
  if (cols(a) != rows(b))
    throw ShapeError("matmul: " + to_string(a.shape()) + " @ " + to_string(b.shape()) + ": inner sizes " +
                     std::to_string(cols(a)) + " and " + std::to_string(rows(b)) + " differ");
  Shape batch;
  try {
    batch = broadcast_shapes("matmul", batch_of(a), batch_of(b));
  } catch (const ShapeError&) {
    throw ShapeError("matmul: " + to_string(a.shape()) + " @ " + to_string(b.shape()) + ": batch dimensions " +
                     to_string(batch_of(a)) + " and " + to_string(batch_of(b)) + " do not broadcast");
  }
  Shape out = batch;
  out.push_back(rows(a));
  out.push_back(cols(b));
  Tensor y = detail::empty_tensor(out);
  batched_gemm(batch, y, a, false, b, false);
  // y = a b  =>  da = g bᵀ (summed over a's broadcast batch dims),  db = aᵀ g (likewise for b).
  return detail::record("matmul", y, {a, b}, [a, b, batch](const Tensor& g) -> std::vector<Tensor> {
    Tensor ga, gb;
    if (a.requires_grad()) {
      ga = detail::empty_tensor(a.shape());
      batched_gemm(batch, ga, g, false, b, true);
    }
    if (b.requires_grad()) {
      gb = detail::empty_tensor(b.shape());
      batched_gemm(batch, gb, a, true, g, false);
    }
    return {ga, gb};
  });
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0)
    throw ShapeError("matmul: " + to_string(a.shape()) + " @ " + to_string(b.shape()) +
                     ": both operands need at least one dimension");
  // A vector becomes a one-row (left) or one-column (right) matrix, and that dimension goes again.
  const Tensor a2 = a.dim() == 1 ? unsqueeze(a, 0) : a;
  const Tensor b2 = b.dim() == 1 ? unsqueeze(b, 1) : b;
  if (a.dim() == 1 && cols(a2) != rows(b2))
    throw ShapeError("matmul: " + to_string(a.shape()) + " @ " + to_string(b.shape()) + ": inner sizes " +
                     std::to_string(cols(a2)) + " and " + std::to_string(rows(b2)) + " differ");
  Tensor y = matmul_2d_or_more(a2, b2);
  if (b.dim() == 1) y = squeeze(y, -1);
  if (a.dim() == 1) y = squeeze(y, -2 + (b.dim() == 1 ? 1 : 0));
  return y;
}

}  // namespace litgrad
