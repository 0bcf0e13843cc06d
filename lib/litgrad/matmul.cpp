// matmul: batched and broadcast matrix products and their gradients. The arithmetic of each
// single product is detail::MatrixProduct's (detail/matrix_product.hpp).

#include "litgrad/matmul.hpp"

#include <algorithm>
#include <vector>

#include "litgrad/detail/broadcast.hpp"
#include "litgrad/detail/matmul_transposed.hpp"
#include "litgrad/detail/matrix_product.hpp"
#include "litgrad/detail/node.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/error.hpp"
#include "litgrad/reshaping.hpp"

namespace litgrad {

namespace {

using detail::MatrixProduct;

Shape batch_of(const Tensor& t) { return detail::leading_dims(t.shape(), 2); }
std::int64_t rows(const Tensor& t) { return t.shape()[t.dim() - 2]; }
std::int64_t cols(const Tensor& t) { return t.shape()[t.dim() - 1]; }

// C = the sum, over every index of `batch`, of op(A[a]) op(B[b]) placed in C[c], where op
// transposes when asked and the batch shapes of C, A and B each broadcast to `batch`. Summing
// into C is what sums a gradient over the batch dimensions its operand was broadcast along.
// When each of C's matrices gets one product, or one product sums them all, C is written
// directly; otherwise it is zeroed and the products added. C need not be initialised, unless
// `accumulate`: then the products are added to what C holds (a bias, say).
// A: [..., r, c], B: [..., r, c], C: [..., n, m] with n, m the sizes of the product.
void batched_gemm(const Shape& batch, Tensor& C, const Tensor& A, bool ta, const Tensor& B, bool tb,
                  bool accumulate = false) {
  const Shape cb = batch_of(C), ab = batch_of(A), bb = batch_of(B);
  const std::int64_t n = rows(C), m = cols(C), k = ta ? rows(A) : cols(A), count = numel(batch);
  if (numel(C.shape()) == 0) return;  // no elements (and empty data may be null)
  if (count == 0) {  // a sum of no products (one of no terms, k = 0, is MatrixProduct's)
    if (!accumulate) std::fill(C.data(), C.data() + numel(C.shape()), 0.0);
    return;
  }
  // One matrix shared by the whole batch (a Linear layer's weight, say): stack the batch's
  // matrices into one tall product instead of many small ones.
  if (count > 1 && numel(bb) == 1 && !ta && ab == batch && cb == batch) {  // C_i = A_i B for all i
    MatrixProduct(count * n, k, m, !accumulate)
        .add(C.data(), A.data(), count * rows(A), cols(A), false, B.data(), rows(B), cols(B), tb);
    return;
  }
  if (count > 1 && numel(cb) == 1 && ta && !tb && ab == batch && bb == batch) {  // C = sum_i A_iᵀ B_i
    MatrixProduct(n, count * rows(A), m, !accumulate)
        .add(C.data(), A.data(), count * rows(A), cols(A), true, B.data(), count * rows(B), cols(B), false);
    return;
  }
  const bool once = cb == batch;  // each of C's matrices gets exactly one product
  if (!once && !accumulate) std::fill(C.data(), C.data() + numel(C.shape()), 0.0);
  MatrixProduct multiply(n, k, m, /*overwrite=*/once && !accumulate);
  const std::int64_t cs = n * m, as = rows(A) * cols(A), bs = rows(B) * cols(B);
  detail::for_each_broadcast<3>(batch, {&cb, &ab, &bb}, [&](std::int64_t, const auto& o) {
    multiply.add(C.data() + o[0] * cs, A.data() + o[1] * as, rows(A), cols(A), ta, B.data() + o[2] * bs, rows(B), cols(B), tb);
  });
}

// a: [..., n, k], b: [..., k, m] (or [..., m, k] read transposed when b_transposed), both at
// least 2-D; bias: undefined or [m]; result: [broadcast(...), n, m], a b (+ bias in every row,
// then recorded as "linear"). The bias is where the products are added to, which rounds each
// element once, as adding it afterwards does.
Tensor product(const Tensor& a, const Tensor& b, bool b_transposed, const Tensor& bias = Tensor()) {
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
  if (bias.defined()) {
    const double* bv = bias.data();
    double* yv = y.data();
    for (std::int64_t i = 0, count = numel(out) / std::max<std::int64_t>(m, 1); i < count; ++i)
      for (std::int64_t j = 0; j < m; ++j) yv[i * m + j] = bv[j];
  }
  batched_gemm(batch, y, a, false, b, b_transposed, /*accumulate=*/bias.defined());
  // y = a b  =>  da = g bᵀ, db = aᵀ g;  y = a bᵀ  =>  da = g b, db = gᵀ a.  Each is summed over
  // the batch dimensions its operand was broadcast along (batched_gemm sums them).
  // y = ... + bias  =>  dbias = the sum of g's rows, added row after row (as add's gradient).
  auto backward = [a, b, bias, batch, b_transposed](const Tensor& g) {
    std::vector<Tensor> grads(bias.defined() ? 3 : 2);
    if (a.requires_grad()) {
      grads[0] = detail::uninitialized_tensor(a.shape());
      batched_gemm(batch, grads[0], g, false, b, !b_transposed);
    }
    if (b.requires_grad()) {
      grads[1] = detail::uninitialized_tensor(b.shape());
      if (b_transposed) batched_gemm(batch, grads[1], g, true, a, false);
      else batched_gemm(batch, grads[1], a, true, g, false);
    }
    if (bias.defined() && bias.requires_grad()) {
      const std::int64_t m = bias.numel();
      grads[2] = detail::empty_tensor(bias.shape());  // zeros
      double* gb = grads[2].data();
      const double* gv = g.data();
      for (std::int64_t i = 0, count = g.numel() / std::max<std::int64_t>(m, 1); i < count; ++i)
        for (std::int64_t j = 0; j < m; ++j) gb[j] += gv[i * m + j];
    }
    return grads;
  };
  return bias.defined() ? detail::record("linear", y, {a, b, bias}, backward) : detail::record("matmul", y, {a, b}, backward);
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

Tensor matmul_transposed(const Tensor& a, const Tensor& b, const Tensor& bias) {
  if (a.dim() < 2 || b.dim() < 2)
    throw ShapeError("matmul: " + to_string(a.shape()) + " @ " + to_string(b.shape()) + "ᵀ: both operands need at least two dimensions");
  if (bias.defined() && bias.shape() != Shape{rows(b)})
    throw ShapeError("matmul: bias of shape " + to_string(bias.shape()) + " for " + to_string(a.shape()) + " @ " +
                     to_string(b.shape()) + "ᵀ (expected [" + std::to_string(rows(b)) + "])");
  return product(a, b, true, bias);
}

}  // namespace detail

}  // namespace litgrad
