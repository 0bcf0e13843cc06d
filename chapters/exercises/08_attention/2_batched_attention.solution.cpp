// Exercise 8.2 · Attention for a batch of sentences: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor batched_self_attention(const Tensor& X) {
  const Tensor scores = matmul(X, transpose(X, 1, 2));  // [B, T, T]: a map per sentence
  return matmul(softmax(scores, -1), X);                // [B, T, E]
}
