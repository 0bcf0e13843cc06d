// matmul: batched and broadcast matrix products and their gradients. The arithmetic of each
// product is the kernels' (kernels/product.hpp).

#include "litgrad/ops/matmul.hpp"

#include <algorithm>
#include <vector>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/kernels/product.hpp"
#include "litgrad/kernels/reduce.hpp"
#include "litgrad/ops/detail/matmul_transposed.hpp"
#include "litgrad/ops/detail/sum_to.hpp"
#include "litgrad/ops/registry.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad {

namespace {

Shape batch_of(const Tensor& t) { return kernels::leading_dims(t.shape(), 2); }
std::int64_t rows(const Tensor& t) { return t.shape()[t.dim() - 2]; }
std::int64_t cols(const Tensor& t) { return t.shape()[t.dim() - 1]; }

// C += or = the products of A's and B's matrices over `batch` (kernels/product.hpp): C, A and
// B are tensors of shape [..., rows, cols] whose batch dimensions broadcast to `batch`.
void batched_gemm(const Shape& batch, Tensor& C, const Tensor& A, bool ta, const Tensor& B, bool tb,
                  bool accumulate = false) {
  kernels::batched_product(batch, C.data(), batch_of(C), {A.data(), batch_of(A), rows(A), cols(A), ta},
                           {B.data(), batch_of(B), rows(B), cols(B), tb}, accumulate);
}

// a: [..., n, k], b: [..., k, m] (or [..., m, k] read transposed when b_transposed), both at
// least 2-D; bias: undefined or [m]; result: [broadcast(...), n, m], a b (+ bias in every row,
// then recorded as "linear"). The bias is where the products are added to, which rounds each
// element once, as adding it afterwards does.
Tensor product(const Tensor& a, const Tensor& b, bool b_transposed, const Tensor& bias = Tensor()) {
  const std::int64_t inner_b = b_transposed ? cols(b) : rows(b), m = b_transposed ? rows(b) : cols(b);
  if (cols(a) != inner_b)
    throw ShapeError("matmul: ", a.shape(), " @ ", b.shape(), (b_transposed ? "ᵀ" : ""), ": inner sizes ", cols(a),
                     " and ", inner_b, " differ");
  Shape batch;
  try {
    batch = broadcast_shapes("matmul", batch_of(a), batch_of(b));
  } catch (const ShapeError&) {
    throw ShapeError("matmul: ", a.shape(), " @ ", b.shape(), ": batch dimensions ", batch_of(a), " and ", batch_of(b),
                     " do not broadcast");
  }
  Shape out = batch;
  out.push_back(rows(a));
  out.push_back(m);
  Tensor y = detail::uninitialized_tensor(out);
  if (bias.defined()) kernels::expand(bias.data(), bias.shape(), y.data(), out);  // the bias in every row
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
      if (b_transposed)
        batched_gemm(batch, grads[1], g, true, a, false);
      else
        batched_gemm(batch, grads[1], a, true, g, false);
    }
    if (bias.defined() && bias.requires_grad()) {  // the sum of g's rows: a running total per column
      const std::int64_t m = bias.numel();
      grads[2] = detail::uninitialized_tensor(bias.shape());
      kernels::sum(g.data(), kernels::sum_layout({g.numel() / std::max<std::int64_t>(m, 1), m}, {true, false}),
                   grads[2].data());
    }
    return grads;
  };
  // The same, as operations (for a backward that records itself).
  auto graph_backward = [b_transposed](const Tensor& g, const Tensor&, const std::vector<Tensor>& in) {
    const Tensor &a = in[0], &b = in[1];
    std::vector<Tensor> grads(in.size());
    if (a.requires_grad()) grads[0] = detail::sum_to(matmul(g, b_transposed ? b : transpose(b, -2, -1)), a.shape());
    if (b.requires_grad())
      grads[1] =
          detail::sum_to(b_transposed ? matmul(transpose(g, -2, -1), a) : matmul(transpose(a, -2, -1), g), b.shape());
    if (in.size() == 3 && in[2].requires_grad()) grads[2] = detail::sum_to(g, in[2].shape());
    return grads;
  };
  const detail::Saved saved{0b011u, false};  // a and b, not the bias or the output
  return bias.defined() ? detail::record(op::linear, y, {a, b, bias}, backward, graph_backward, saved)
                        : detail::record(op::matmul, y, {a, b}, backward, graph_backward, saved);
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0)
    throw ShapeError("matmul: ", a.shape(), " @ ", b.shape(), ": both operands need at least one dimension");
  // A vector becomes a one-row (left) or one-column (right) matrix, and that dimension goes again.
  const Tensor a2 = a.dim() == 1 ? unsqueeze(a, 0) : a;
  const Tensor b2 = b.dim() == 1 ? unsqueeze(b, 1) : b;
  if (a.dim() == 1 && cols(a2) != rows(b2))
    throw ShapeError("matmul: ", a.shape(), " @ ", b.shape(), ": inner sizes ", cols(a2), " and ", rows(b2), " differ");
  Tensor y = product(a2, b2, false);
  if (b.dim() == 1) y = squeeze(y, -1);
  if (a.dim() == 1) y = squeeze(y, -2 + (b.dim() == 1 ? 1 : 0));
  return y;
}

namespace detail {

Tensor matmul_transposed(const Tensor& a, const Tensor& b, const Tensor& bias) {
  if (a.dim() < 2 || b.dim() < 2)
    throw ShapeError("matmul: ", a.shape(), " @ ", b.shape(), "ᵀ: both operands need at least two dimensions");
  if (bias.defined() && bias.shape() != Shape{rows(b)})
    throw ShapeError("matmul: bias of shape ", bias.shape(), " for ", a.shape(), " @ ", b.shape(), "ᵀ (expected [",
                     rows(b), "])");
  return product(a, b, true, bias);
}

}  // namespace detail

}  // namespace litgrad
