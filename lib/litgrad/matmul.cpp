// The only file of the core that includes Eigen: matrix products are handed to its GEMM.

#include "litgrad/matmul.hpp"

// Always Eigen's blocked GEMM, never its coefficient-by-coefficient path for small products,
// whose order of additions depends on memory alignment (see batched_gemm below).
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

// Eigen's GEMM computes a tile of mr x nr results at a time, and the tiles at the edges go
// through other code that adds in another order. So, left alone, two equal rows of A could
// give products that differ in the last bit, depending on where they sit. litgrad promises
// more: every element of a product depends only on its row of A and its column of B, so equal
// inputs give bit-identical outputs wherever they are (the book's claims test exactly that).
// We therefore hand Eigen operands padded with zeros to whole tiles, so that every element is
// computed by the same kernel, and copy the product out.
constexpr Eigen::Index kTileRows = Eigen::internal::gebp_traits<double, double>::mr;
constexpr Eigen::Index kTileCols = Eigen::internal::gebp_traits<double, double>::nr;
Eigen::Index round_up(Eigen::Index n, Eigen::Index to) { return (n + to - 1) / to * to; }

// The row-major r x c matrix at `src` (transposed first if asked) into the top-left corner of
// `dst`, a zeroed column-major matrix of at least that size.
void pack(const double* src, std::int64_t r, std::int64_t c, bool transposed, ColMajorMatrix& dst) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMajor> m(src, r, c);
  if (transposed) dst.topLeftCorner(c, r) = m.transpose();
  else dst.topLeftCorner(r, c) = m;
}

// C[c] += op(A[a]) op(B[b]) for every index of `batch`, where op transposes when asked and
// the batch shapes of C, A and B each broadcast to `batch`. Accumulating into C is what sums a
// gradient over the batch dimensions its operand was broadcast along.
// A: [..., r, c], B: [..., r, c], C: [..., n, m] with n, m the sizes of the product.
void batched_gemm(const Shape& batch, Tensor& C, const Tensor& A, bool ta, const Tensor& B, bool tb) {
  const Shape cb = batch_of(C), ab = batch_of(A), bb = batch_of(B);
  const std::int64_t n = rows(C), m = cols(C), k = ta ? rows(A) : cols(A);
  const std::int64_t cs = n * m, as = rows(A) * cols(A), bs = rows(B) * cols(B);
  ColMajorMatrix a = ColMajorMatrix::Zero(round_up(n, kTileRows), k), b = ColMajorMatrix::Zero(k, round_up(m, kTileCols));
  ColMajorMatrix product(a.rows(), b.cols());
  detail::for_each_broadcast<3>(batch, {&cb, &ab, &bb}, [&](std::int64_t, const auto& o) {
    pack(A.data() + o[1] * as, rows(A), cols(A), ta, a);
    pack(B.data() + o[2] * bs, rows(B), cols(B), tb, b);
    product.noalias() = a * b;
    double* c = C.data() + o[0] * cs;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j) c[i * m + j] += product(i, j);
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
