// How far rounding alone may put a right answer's attention (and block, and GPT) from
// the library's, element by element. The exercises of "your own GPT" compare your
// arithmetic with the library's, and a right answer may do it in another order (divide
// by √d after the product instead of before, add a sum's terms in another order, loop
// over heads where the library batches them), so they cannot ask for the same bits; but
// they must not let a wrong answer through either.
//
// The bound. A floating-point sum of n products, added in any order, lies within
// γ_n = n·u/(1 - n·u) of the sum of the products' sizes from the exact sum (u = 2⁻⁵³;
// N. Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1). Carried
// through a head, to first order in u:
//   projections  |q - q̂| ≤ (E + 1)u·Q̄, with Q̄ = |x||W_q| + |b_q| (so for k, v);
//   scores       |s - ŝ| ≤ (2(E + 1) + d + 2)u·S̄, with S̄ = Q̄ K̄ᵀ/√d: the two
//                projections' errors, the d-term sum, the division and the root;
//   weights      |w - ŵ| ≤ w·(2Δ + (L + 3)u + u|s - max s|), where Δ is the row's
//                largest score error (a softmax moves by at most twice its inputs'
//                largest shift, relative to each weight), L + 1 roundings of the sum
//                and the division, one of exp, and the rounding of s - max s;
//   output       |o - ô| ≤ |w - ŵ| V̄ + (E + 1 + L)u·w V̄: the weights' errors, the
//                values' errors and the L-term sum.
// When the head's input x is itself off by up to δx (a block deeper in a stack), the
// projections carry δx|W| more, and the rest follows from those. Yours and the
// library's may each sit that far from the exact head, so two right answers differ by
// at most twice it. A mistake moves outputs by many orders of magnitude more.
#pragma once

#include <cmath>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

namespace exercise {

// An error that is none: zeros of x's shape when `error` is undefined.
inline litgrad::Tensor or_none(const litgrad::Tensor& error, const litgrad::Tensor& x) {
  return error.defined() ? error : litgrad::zeros(x.shape());
}

// A linear map's allowance: its input `in` [.., n] may be off by `in_error`, and the
// product in W + b (W [n, m]; b [m] or undefined) adds n + 1 roundings of the sizes of
// its terms.
inline litgrad::Tensor linear_allowance(const litgrad::Tensor& in,
                                        const litgrad::Tensor& in_error,
                                        const litgrad::Tensor& W,
                                        const litgrad::Tensor& b = litgrad::Tensor()) {
  using namespace litgrad;
  const Tensor aW = abs(W);
  const double n = static_cast<double>(W.size(0));
  Tensor size = matmul(abs(in), aW);
  if (b.defined()) size = size + abs(b);
  return matmul(or_none(in_error, in), aW) + (n + 1) * 0x1p-53 * size;
}

// A head's exact-arithmetic sizes and its rounding allowance: `allowance` [.., L, d]
// bounds |computed - exact| for each output; `size` [.., L, d] is w V̄, a bound on each
// output's size. `x_error` bounds how far x itself is off (undefined: not at all).
struct HeadAllowance {
  litgrad::Tensor allowance, size;
};

inline HeadAllowance head_allowance(
    const litgrad::Tensor& x, const HeadProjections& p, const litgrad::Tensor& mask,
    const litgrad::Tensor& x_error = litgrad::Tensor()) {
  using namespace litgrad;
  NoGradGuard no_grad;
  const double u = 0x1p-53, L = static_cast<double>(x.size(-2));
  const double root = std::sqrt(static_cast<double>(p.W_q.size(-1)));  // √d
  const double d = static_cast<double>(p.W_q.size(-1));
  const auto sized = [&](const Tensor& W, const Tensor& b) {  // [.., L, d]
    return matmul(abs(x), abs(W)) + abs(b);
  };
  const Tensor Q = sized(p.W_q, p.b_q), K = sized(p.W_k, p.b_k),
               V = sized(p.W_v, p.b_v);
  const Tensor dQ = linear_allowance(x, x_error, p.W_q, p.b_q);
  const Tensor dK = linear_allowance(x, x_error, p.W_k, p.b_k);
  const Tensor dV = linear_allowance(x, x_error, p.W_v, p.b_v);
  Tensor scores =
      matmul(matmul(x, p.W_q) + p.b_q, transpose(matmul(x, p.W_k) + p.b_k, -2, -1)) /
      root;  // [.., L, L]
  // The d-term sum, the division and the root, and the projections' errors.
  Tensor score_error =
      ((d + 2) * u * matmul(Q, transpose(K, -2, -1)) +
       matmul(dQ, transpose(K, -2, -1)) + matmul(Q, transpose(dK, -2, -1))) /
      root;
  if (mask.defined()) {
    scores = scores + mask;
    score_error =
        masked_fill(score_error, mask == -INFINITY, 0.0);  // forbidden: weight 0
  }
  const Tensor weights = softmax(scores, -1);
  const Tensor row_error = max(score_error, -1, true).values;  // Δ, [.., L, 1]
  Tensor spread = abs(scores - max(scores, -1, true).values);  // |s - max s|
  if (mask.defined()) spread = masked_fill(spread, mask == -INFINITY, 0.0);  // not inf
  const Tensor weight_error = weights * (2 * row_error + (L + 3) * u + u * spread);
  const Tensor size = matmul(weights, V);
  return {matmul(weight_error, V) + matmul(weights, dV) + L * u * size, size};
}

// Head h's projections in a MultiheadAttention `layer` (torch's layout: head h's d rows
// of each [E, E] block of in_proj_weight, transposed to [E, d]).
inline HeadProjections head_projections(const litgrad::nn::MultiheadAttention& layer,
                                        std::int64_t h) {
  using namespace litgrad;
  const std::int64_t E = layer.embed_dim, d = layer.head_dim;
  const auto rows = [&](const Tensor& t, std::int64_t b) {
    return slice(t, 0, b * E + h * d, b * E + (h + 1) * d);
  };
  const auto W = [&](std::int64_t b) {
    return transpose(rows(layer.in_proj_weight, b), 0, 1);
  };
  return {W(0),
          W(1),
          W(2),
          rows(layer.in_proj_bias, 0),
          rows(layer.in_proj_bias, 1),
          rows(layer.in_proj_bias, 2)};
}

// The allowance of a MultiheadAttention layer's output, self-attention on x [.., L, E]
// (off by `x_error`): each head's, then the output projection's.
inline litgrad::Tensor attention_layer_allowance(
    const litgrad::Tensor& x, const litgrad::nn::MultiheadAttention& layer,
    const litgrad::Tensor& mask, const litgrad::Tensor& x_error = litgrad::Tensor()) {
  using namespace litgrad;
  NoGradGuard no_grad;
  std::vector<Tensor> allowances, sizes;
  for (std::int64_t h = 0; h < layer.num_heads; ++h) {
    const HeadAllowance a =
        head_allowance(x, head_projections(layer, h), mask, x_error);
    allowances.push_back(a.allowance), sizes.push_back(a.size);
  }
  return linear_allowance(cat(sizes, -1), cat(allowances, -1),
                          transpose(layer.out_proj.weight, 0, 1), layer.out_proj.bias);
}

// A layer norm's allowance for an input h [.., E] off by at most `in_error` [.., E]:
// y = γ (h - μ)/σ + β moves by at most |γ|/σ (2 + |ŷ| max|ŷ|) times the token's largest
// input error (the derivative of the normalisation: the error itself, its mean, and
// its part along ŷ), plus the norm's own rounding, (2E + 8)u |γ| max|ŷ| + 2u|y| (the
// mean's E roundings, the deviations', the variance's E + 2, the root's and the
// division's, each relative to the largest deviation).
inline litgrad::Tensor layer_norm_allowance(const litgrad::Tensor& h,
                                            const litgrad::Tensor& in_error,
                                            const litgrad::nn::LayerNorm& norm) {
  using namespace litgrad;
  NoGradGuard no_grad;
  const double E = static_cast<double>(h.size(-1)), u = 0x1p-53;
  const Tensor centred = h - mean(h, {-1}, true);
  const Tensor sigma = sqrt(mean(centred * centred, {-1}, true) + norm.eps);
  const Tensor normal = abs(centred / sigma);  // |ŷ|
  const Tensor largest = max(normal, -1, true).values;
  const Tensor gain = abs(norm.weight) / sigma;
  return gain * (2 + normal * largest) * max(or_none(in_error, h), -1, true).values +
         (2 * E + 8) * u * abs(norm.weight) * largest + 2 * u * abs(norm(h));
}

// The allowance of a pre-norm block's output (chapter 9's section 2; GELU between the
// feed-forward's layers; the norms the layer's own) for an input x off by `x_error`:
//   h = x + Attn(LN1(x)),   out = h + W2 GELU(W1 LN2(h) + b1) + b2,
// carried step by step: the first norm's (none when x is exact: both sides call the
// layer's own norm on the same x), the attention's, the residual's rounding, the second
// norm's, the first linear map's, GELU's (slope at most 1.13, its own rounding 4u|g|),
// the second linear map's and the last sum's rounding.
inline litgrad::Tensor pre_norm_block_allowance(
    const litgrad::nn::TransformerEncoderLayer& layer, const litgrad::Tensor& x,
    const litgrad::Tensor& mask, const litgrad::Tensor& x_error = litgrad::Tensor()) {
  using namespace litgrad;
  NoGradGuard no_grad;
  const double u = 0x1p-53;
  const Tensor n1 = layer.norm1(x);
  const Tensor n1_error =
      x_error.defined() ? layer_norm_allowance(x, x_error, layer.norm1) : Tensor();
  const Tensor h = x + layer.self_attn(n1, n1, n1, Tensor(), false, mask).output;
  const Tensor h_error =
      or_none(x_error, x) +
      attention_layer_allowance(n1, layer.self_attn, mask, n1_error) + u * abs(h);
  const Tensor n2 = layer.norm2(h);
  const Tensor n2_error = layer_norm_allowance(h, h_error, layer.norm2);
  const auto T = [](const Tensor& W) { return transpose(W, 0, 1); };
  const Tensor f1 = layer.linear1(n2);
  const Tensor f1_error =
      linear_allowance(n2, n2_error, T(layer.linear1.weight), layer.linear1.bias);
  const Tensor g = gelu(f1);
  const Tensor g_error = 1.13 * f1_error + 4 * u * abs(g);
  const Tensor f2_error =
      linear_allowance(g, g_error, T(layer.linear2.weight), layer.linear2.bias);
  return h_error + f2_error + u * abs(h + layer.linear2(g));
}

}  // namespace exercise
