// Exercise 8.2 · Attention for a batch of sentences. This is your file: write
// batched_self_attention below, then run `tools/exercise check 08.2`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// X: [B, T, E], B sentences of T tokens; the output: [B, T, E].
Tensor batched_self_attention(const Tensor& X) {
  // A first attempt: the batch laid out as one long sentence of B*T tokens, attended,
  // and cut back into sentences. The shapes come out right. Are the numbers?
  const std::int64_t B = X.size(0), T = X.size(1), E = X.size(2);
  const Tensor flat = reshape(X, {B * T, E});
  const Tensor out = matmul(softmax(matmul(flat, transpose(flat, 0, 1)), -1), flat);
  return reshape(out, {B, T, E});
}
