// The fused attention weights (detail::attention_weights, what scaled_dot_product_attention
// uses) against the composition of operations they replace: softmax(matmul(q / sqrt(E), kᵀ) +
// mask, -1). The fused operation promises the same arithmetic
// in the same order, so the test asks for the same bits, not a tolerance.

#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>
#include <litgrad/ops/detail/attention_weights.hpp>
#include <litgrad/ops/detail/matmul_transposed.hpp>

#include "helpers.hpp"

using namespace litgrad;

namespace {

// Same shape and, element by element, the same number: equal under ==, or both NaN. A
// gradient may carry 0.0 where the other has -0.0 (the composition adds its gradients into
// zeros, and 0.0 + -0.0 is 0.0); nothing else may differ.
bool same_numbers(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const double x = a.data()[i], y = b.data()[i];
    if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
  }
  return true;
}

// The composition, with kᵀ read in place by detail::matmul_transposed (as attention did before
// the fusion): matmul(q, transpose(k, -2, -1)) would compute k's gradient as the transpose of
// qᵀ dS, a product of other sizes whose sums may be added in another order.
Tensor composed(const Tensor& q, const Tensor& k, const Tensor& mask) {
  const Tensor scores = detail::matmul_transposed(q / std::sqrt(static_cast<double>(q.size(-1))), k);
  return softmax(mask.defined() ? scores + mask : scores, -1);
}

}  // namespace

TEST_CASE("fused attention weights equal the composition of ops bit for bit, with their gradients") {
  // Sizes cover every path of the matrix product (a plain loop, rows, Eigen's coefficient
  // product and its GEMM), batches of zero to two dimensions, and masks broadcast along every
  // dimension, with -inf entries and whole rows of -inf (NaN weights). Causal masks over
  // several of the product's 32-row blocks let the fused op leave out the scores they hide,
  // except where a huge, infinite or NaN query could make a hidden score NaN.
  Generator gen(20261129);
  const std::vector<std::int64_t> lengths = {1, 2, 3, 7, 16, 33, 64, 100}, widths = {1, 2, 5, 8, 16, 24};
  int checked = 0, with_nan = 0;
  for (int trial = 0; trial < 280; ++trial) {
    auto pick = [&](const std::vector<std::int64_t>& from, std::int64_t first = 0) {
      return from[static_cast<std::size_t>(gen.randint(first, static_cast<std::int64_t>(from.size())))];
    };
    const std::int64_t mask_kind = trial % 7;
    const std::int64_t L = pick(lengths, mask_kind >= 5 ? 4 : 0), S = pick(lengths, mask_kind >= 5 ? 4 : 0),
                       E = pick(widths);
    Shape batch;
    for (int d = 0, dims = trial % 3; d < dims; ++d) batch.push_back(1 + trial % (d + 3));
    auto with_batch = [&](Shape tail) {
      Shape s = batch;
      s.insert(s.end(), tail.begin(), tail.end());
      return s;
    };
    Tensor q = randn(with_batch({L, E}), gen).requires_grad_(), k = randn(with_batch({S, E}), gen).requires_grad_();
    // Mask kinds: none, [L,S], [...,1,S], [S], [...,L,S] with a fully masked row, causal [L,S],
    // causal with a query of 1e200, inf or NaN.
    Tensor mask;
    if (mask_kind == 1) mask = masked_fill(randn({L, S}, gen), lt(rand({L, S}, gen), scalar_tensor(0.3)), -INFINITY);
    if (mask_kind == 2) mask = randn(with_batch({1, S}), gen);
    if (mask_kind == 3) mask = randn({S}, gen);
    if (mask_kind == 4) {
      mask = randn(with_batch({L, S}), gen);
      for (std::int64_t j = 0; j < S; ++j) mask.data()[j] = -INFINITY;  // row 0 of the first matrix
    }
    if (mask_kind >= 5)
      mask = masked_fill(zeros({L, S}), gt(reshape(arange(S), {1, S}), reshape(arange(L), {L, 1})), -INFINITY);
    if (mask_kind == 6 && q.numel() > 0)
      q.data()[gen.randint(0, q.numel())] = trial % 3 == 0 ? 1e200 : trial % 3 == 1 ? INFINITY : NAN;
    const Tensor r = randn(with_batch({L, S}), gen);  // the loss sum(w * r) gives every weight a gradient

    CAPTURE(trial);
    CAPTURE(to_string(q.shape()));
    CAPTURE(to_string(k.shape()));
    CAPTURE(mask_kind);
    REQUIRE(detail::attention_weights_fusable(q, k, mask));
    // The same values as separate leaves, so that each side has gradients of its own.
    Tensor q2 = q.detach().requires_grad_(), k2 = k.detach().requires_grad_();
    const Tensor fused = detail::attention_weights(q, k, mask);
    sum(fused * r).backward();
    const Tensor plain = composed(q2, k2, mask);
    sum(plain * r).backward();

    CHECK(test::identical(fused, plain));
    CHECK(same_numbers(q.grad(), q2.grad()));
    CHECK(same_numbers(k.grad(), k2.grad()));
    CHECK(q.grad().data() != q2.grad().data());
    ++checked;
    with_nan += std::isnan(sum(fused).item()) ? 1 : 0;
  }
  CHECK(checked == 280);
  CHECK(with_nan >= 40);  // NaN rows were exercised (mask kind 4 when L*S > 0, and NaN or inf queries)
}

TEST_CASE("scaled_dot_product_attention takes the fused path only where it applies") {
  Generator gen(3);
  const Tensor q = randn({2, 3, 4}, gen), k = randn({2, 5, 4}, gen);
  CHECK(detail::attention_weights_fusable(q, k, Tensor()));
  CHECK(detail::attention_weights_fusable(q, k, zeros({3, 5})));
  CHECK_FALSE(detail::attention_weights_fusable(q, randn({5, 4}, gen), Tensor()));       // key's batch broadcasts
  CHECK_FALSE(detail::attention_weights_fusable(q, k, zeros({3, 5}).requires_grad_()));  // the mask learns
  // The composed path (a learned mask) and the fused one give the same output bit for bit.
  const Tensor v = randn({2, 5, 3}, gen), mask = randn({3, 5}, gen), learned = mask.detach().requires_grad_();
  CHECK(test::identical(scaled_dot_product_attention(q, k, v, mask).output,
                        scaled_dot_product_attention(q, k, v, learned).output));
}
