// The only file of the core that includes Eigen: matrix products are handed to its GEMM.

#include "litgrad/matmul.hpp"

#include <algorithm>
#include <vector>

// We choose between Eigen's GEMM and its coefficient-based product ourselves (see Multiplier).
#define EIGEN_GEMM_TO_COEFFBASED_THRESHOLD 0
// litgrad starts no threads, so no result depends on a thread count.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>

#include "litgrad/detail/broadcast.hpp"
#include "litgrad/detail/matmul_transposed.hpp"
#include "litgrad/detail/node.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/error.hpp"
#include "litgrad/reshaping.hpp"

namespace litgrad {

namespace {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

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
// all three sizes are large. Products with short sums (k <= 8, such as a Linear layer on two
// features), or with a few wide rows of long sums (its weight's gradient), are cheapest built
// a row of C at a time. Tiny products (a few hundred multiply-adds, such as a batch of
// one-row products) cost less as a plain loop than as any call into Eigen, and so do products
// with few outputs each summing many terms (a weight's gradient summed over a whole batch),
// where Eigen's coefficient path would run one long dependent chain per output. The loop adds
// every element's products in one fixed order, which keeps the same promise.
constexpr Eigen::Index kTileRows = Eigen::internal::gebp_traits<double, double>::mr;
constexpr Eigen::Index kTileCols = Eigen::internal::gebp_traits<double, double>::nr;
constexpr Eigen::Index kPacket = Eigen::internal::packet_traits<double>::size;
Eigen::Index round_up(Eigen::Index n, Eigen::Index to) { return (n + to - 1) / to * to; }

// Adds op(A) op(B) (n x k times k x m) into row-major n x m matrices, or writes it there when
// `overwrite` (the matrix then need not be initialised), one product at a time, reusing its
// buffers. A's and B's matrices are row-major r x c, transposed when asked.
class Multiplier {
 public:
  enum class Path { Loop, Rows, Coefficients, Gemm };
  static Path path_for(std::int64_t n, std::int64_t k, std::int64_t m) {
    if (n * k * m <= 512) return Path::Loop;                 // tiny
    if (k >= 8 && n >= 16 && m >= 16) return Path::Gemm;     // large
    if (k <= 8) return Path::Rows;                           // short sums: a row of C at a time
    if (n * m <= 64) return m >= 8 ? Path::Rows : Path::Loop;  // few outputs, each a long sum
    return Path::Coefficients;
  }

  // Everything is row-major, like our tensors, so packing and copying out run along rows.
  // Eigen computes a row-major product as the transposed column-major one, so there the
  // tiles are mr columns by nr rows: m is padded to whole mr, n to whole nr (GEMM), or m to
  // whole SIMD packets (the coefficient path, which runs along rows).
  Multiplier(std::int64_t n, std::int64_t k, std::int64_t m, bool overwrite)
      : n_(n), k_(k), m_(m), path_(path_for(n, k, m)), overwrite_(overwrite) {
    if (path_ == Path::Loop) return;
    if (path_ == Path::Rows) {
      row_.resize(static_cast<std::size_t>(m));
      return;
    }
    const bool gemm = path_ == Path::Gemm;
    // The coefficient path vectorises along rows of its result: for a narrow C (few columns,
    // many rows) compute Cᵀ = op(B)ᵀ op(A)ᵀ instead, whose rows are long.
    swapped_ = !gemm && m < kPacket && n >= kPacket;
    const std::int64_t rows = swapped_ ? m : n, cols = swapped_ ? n : m;
    a_.resize(gemm ? round_up(rows, kTileCols) : rows, k);
    b_.resize(k, round_up(cols, gemm ? kTileRows : kPacket));
    product_.resize(a_.rows(), b_.cols());
    a_.bottomRows(a_.rows() - rows).setZero();  // the padding; pack() fills the rest every time
    b_.rightCols(b_.cols() - cols).setZero();
  }

  void add(double* c, const double* a, std::int64_t ar, std::int64_t ac, bool ta, const double* b, std::int64_t br,
           std::int64_t bc, bool tb) {
    if (path_ == Path::Loop) {
      // Each element is a dot product of k terms, added in four interleaved partial sums (by
      // p mod 4, then (s0 + s1) + (s2 + s3)): the same order for every element, and four
      // independent chains keep the FPU busy on long sums.
      const std::int64_t a_step = ta ? ac : 1, a_row = ta ? 1 : ac, b_step = tb ? 1 : bc, b_col = tb ? bc : 1;
      for (std::int64_t i = 0; i < n_; ++i)
        for (std::int64_t j = 0; j < m_; ++j) {
          const double* x = a + i * a_row;
          const double* y = b + j * b_col;
          double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
          std::int64_t p = 0;
          for (; p + 4 <= k_; p += 4) {
            s0 += x[p * a_step] * y[p * b_step];
            s1 += x[(p + 1) * a_step] * y[(p + 1) * b_step];
            s2 += x[(p + 2) * a_step] * y[(p + 2) * b_step];
            s3 += x[(p + 3) * a_step] * y[(p + 3) * b_step];
          }
          if (p < k_) s0 += x[p * a_step] * y[p * b_step];
          if (p + 1 < k_) s1 += x[(p + 1) * a_step] * y[(p + 1) * b_step];
          if (p + 2 < k_) s2 += x[(p + 2) * a_step] * y[(p + 2) * b_step];
          const double total = (s0 + s1) + (s2 + s3);
          c[i * m_ + j] = overwrite_ ? total : c[i * m_ + j] + total;
        }
      return;
    }
    if (path_ == Path::Rows) return add_by_rows(c, a, ac, ta, b, bc, tb);
    if (swapped_) {  // op(B)ᵀ into a_, op(A)ᵀ into b_
      pack(b, br, bc, !tb, a_);
      pack(a, ar, ac, !ta, b_);
    } else {
      pack(a, ar, ac, ta, a_);
      pack(b, br, bc, tb, b_);
    }
    if (path_ == Path::Gemm) product_.noalias() = a_ * b_;
    else product_.noalias() = a_.lazyProduct(b_);
    Eigen::Map<RowMajorMatrix> out(c, n_, m_);
    if (overwrite_ && swapped_) out.noalias() = product_.topLeftCorner(m_, n_).transpose();
    else if (overwrite_) out.noalias() = product_.topLeftCorner(n_, m_);
    else if (swapped_) out.noalias() += product_.topLeftCorner(m_, n_).transpose();
    else out.noalias() += product_.topLeftCorner(n_, m_);
  }

 private:
  // Each row of C is sum_p a(i,p) B[p,:], built along the row (which the compiler vectorises),
  // p in order, the same for every element: for short sums, and for a few wide rows of long ones. Common narrow widths get
  // their own copy of the loop with the width fixed, which the compiler unrolls completely.
  void add_by_rows(double* c, const double* a, std::int64_t ac, bool ta, const double* b, std::int64_t bc, bool tb) {
    if (tb) {  // B's rows contiguous first
      transposed_.resize(static_cast<std::size_t>(k_ * m_));
      for (std::int64_t p = 0; p < k_; ++p)
        for (std::int64_t j = 0; j < m_; ++j) transposed_[p * m_ + j] = b[j * bc + p];
      b = transposed_.data();
      bc = m_;
    }
    switch (m_) {
      case 1: return rows<1>(c, a, ac, ta, b, bc);
      case 2: return rows<2>(c, a, ac, ta, b, bc);
      case 4: return rows<4>(c, a, ac, ta, b, bc);
      case 8: return rows<8>(c, a, ac, ta, b, bc);
      case 16: return rows<16>(c, a, ac, ta, b, bc);
      default: return rows<0>(c, a, ac, ta, b, bc);
    }
  }

  // Width W (0: m_, known only at run time).
  template <int W>
  void rows(double* c, const double* a, std::int64_t ac, bool ta, const double* b, std::int64_t bc) {
    const std::int64_t m = W ? W : m_;
    double fixed[W ? W : 1];
    double* row = W ? fixed : row_.data();
    for (std::int64_t i = 0; i < n_; ++i) {
      double* ci = c + i * m;
      const double x0 = ta ? a[i] : a[i * ac];
      for (std::int64_t j = 0; j < m; ++j) row[j] = x0 * b[j];
      for (std::int64_t p = 1; p < k_; ++p) {
        const double x = ta ? a[p * ac + i] : a[i * ac + p];
        const double* bp = b + p * bc;
        for (std::int64_t j = 0; j < m; ++j) row[j] += x * bp[j];
      }
      if (overwrite_)
        for (std::int64_t j = 0; j < m; ++j) ci[j] = row[j];
      else
        for (std::int64_t j = 0; j < m; ++j) ci[j] += row[j];
    }
  }

  // The row-major r x c matrix at `src` (transposed first if asked) into the top-left corner of
  // `dst`; the rest of `dst` stays zero.
  static void pack(const double* src, std::int64_t r, std::int64_t c, bool transposed, RowMajorMatrix& dst) {
    const Eigen::Map<const RowMajorMatrix> m(src, r, c);
    if (transposed) dst.topLeftCorner(c, r) = m.transpose();
    else dst.topLeftCorner(r, c) = m;
  }

  std::int64_t n_, k_, m_;
  Path path_;
  bool overwrite_;
  bool swapped_ = false;  // computing Cᵀ (see the constructor)
  RowMajorMatrix a_, b_, product_;        // padded operands and product (GEMM and coefficient paths)
  std::vector<double> row_, transposed_;  // the rows path: one row of C, and B transposed
};

// C[c] += op(A[a]) op(B[b]) for every index of `batch`, where op transposes when asked and
// the batch shapes of C, A and B each broadcast to `batch`. Accumulating into C is what sums a
// gradient over the batch dimensions its operand was broadcast along. When C's batch is the
// whole batch, each of its matrices is written once, and `overwrite` writes instead of adding
// (so C need not be zeroed first).
// A: [..., r, c], B: [..., r, c], C: [..., n, m] with n, m the sizes of the product.
void batched_gemm(const Shape& batch, Tensor& C, const Tensor& A, bool ta, const Tensor& B, bool tb,
                  bool overwrite = false) {
  const Shape cb = batch_of(C), ab = batch_of(A), bb = batch_of(B);
  const std::int64_t n = rows(C), m = cols(C), k = ta ? rows(A) : cols(A), count = numel(batch);
  overwrite = overwrite && batch_of(C) == batch;
  if (numel(C.shape()) == 0 || count == 0) return;  // no elements (and empty data may be null)
  if (k == 0) {  // a sum of no products
    if (overwrite) std::fill(C.data(), C.data() + numel(C.shape()), 0.0);
    return;
  }
  // One matrix shared by the whole batch (a Linear layer's weight, say): stack the batch's
  // matrices into one tall product instead of many small ones.
  if (count > 1 && numel(bb) == 1 && !ta && ab == batch && cb == batch) {  // C_i = A_i B for all i
    Multiplier(count * n, k, m, overwrite).add(C.data(), A.data(), count * rows(A), cols(A), false, B.data(), rows(B), cols(B), tb);
    return;
  }
  if (count > 1 && numel(cb) == 1 && ta && !tb && ab == batch && bb == batch) {  // C = sum_i A_iᵀ B_i
    Multiplier(n, count * rows(A), m, overwrite).add(C.data(), A.data(), count * rows(A), cols(A), true, B.data(), count * rows(B), cols(B), false);
    return;
  }
  Multiplier multiply(n, k, m, overwrite);
  const std::int64_t cs = n * m, as = rows(A) * cols(A), bs = rows(B) * cols(B);
  detail::for_each_broadcast<3>(batch, {&cb, &ab, &bb}, [&](std::int64_t, const auto& o) {
    multiply.add(C.data() + o[0] * cs, A.data() + o[1] * as, rows(A), cols(A), ta, B.data() + o[2] * bs, rows(B), cols(B), tb);
  });
}

// a: [..., n, k], b: [..., k, m] (or [..., m, k] read transposed when b_transposed), both at
// least 2-D; result: [broadcast(...), n, m].
Tensor product(const Tensor& a, const Tensor& b, bool b_transposed) {
  const std::int64_t inner_b = b_transposed ? cols(b) : rows(b), m = b_transposed ? rows(b) : cols(b);
  if (cols(a) != inner_b)
    throw ShapeError("matmul: " + to_string(a.shape()) + " @ " + to_string(b.shape()) + (b_transposed ? "ᵀ" : "") +
                     ": inner sizes " + std::to_string(cols(a)) + " and " + std::to_string(inner_b) + " differ");
  Shape batch;
  try {
    batch = broadcast_shapes("matmul", batch_of(a), batch_of(b));
  } catch (const ShapeError&) {
    throw ShapeError("matmul: " + to_string(a.shape()) + " @ " + to_string(b.shape()) + ": batch dimensions " +
                     to_string(batch_of(a)) + " and " + to_string(batch_of(b)) + " do not broadcast");
  }
  Shape out = batch;
  out.push_back(rows(a));
  out.push_back(m);
  Tensor y = detail::uninitialized_tensor(out);
  batched_gemm(batch, y, a, false, b, b_transposed, /*overwrite=*/true);
  // y = a b  =>  da = g bᵀ, db = aᵀ g;  y = a bᵀ  =>  da = g b, db = gᵀ a.  Each is summed over
  // the batch dimensions its operand was broadcast along (batched_gemm accumulates).
  return detail::record("matmul", y, {a, b}, [a, b, batch, b_transposed](const Tensor& g) -> std::vector<Tensor> {
    Tensor ga, gb;
    if (a.requires_grad()) {
      ga = detail::empty_tensor(a.shape());
      batched_gemm(batch, ga, g, false, b, !b_transposed);
    }
    if (b.requires_grad()) {
      gb = detail::empty_tensor(b.shape());
      if (b_transposed) batched_gemm(batch, gb, g, true, a, false);
      else batched_gemm(batch, gb, a, true, g, false);
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
  Tensor y = product(a2, b2, false);
  if (b.dim() == 1) y = squeeze(y, -1);
  if (a.dim() == 1) y = squeeze(y, -2 + (b.dim() == 1 ? 1 : 0));
  return y;
}

namespace detail {

Tensor matmul_transposed(const Tensor& a, const Tensor& b) {
  if (a.dim() < 2 || b.dim() < 2)
    throw ShapeError("matmul: " + to_string(a.shape()) + " @ " + to_string(b.shape()) + "ᵀ: both operands need at least two dimensions");
  return product(a, b, true);
}

}  // namespace detail

}  // namespace litgrad
