// Exercise 8.1 · One head of self-attention. This is your file: write attention_head
// below, then run `tools/exercise check 08.1`.
#include <cmath>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

// x: [L, E] or [B, L, E]; head: W_q, W_k, W_v [E, d], b_q, b_k, b_v [d]; mask:
// [L, L] to add to the scores, or undefined (mask.defined() is false).
// Returns [L, d] or [B, L, d].
Tensor attention_head(const Tensor& x, const HeadProjections& head,
                      const Tensor& mask) {
  (void)x, (void)head, (void)mask;
  return Tensor();  // your head here
}
