// Exercise 8.1 · One head of self-attention: the reference solution.
#include <cmath>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

Tensor attention_head(const Tensor& x, const HeadProjections& head,
                      const Tensor& mask) {
  // [.., L, d] each: what a token looks for, what it offers, what it hands over
  const Tensor Q = matmul(x, head.W_q) + head.b_q;
  const Tensor K = matmul(x, head.W_k) + head.b_k;
  const Tensor V = matmul(x, head.W_v) + head.b_v;
  const double d = static_cast<double>(head.W_q.size(-1));
  Tensor scores = matmul(Q, transpose(K, -2, -1)) / std::sqrt(d);  // [.., L, L]
  if (mask.defined()) scores = scores + mask;  // before the softmax: -inf gives 0
  const Tensor weights = softmax(scores, -1);  // each query's row sums to 1
  return matmul(weights, V);                   // [.., L, d]
}
