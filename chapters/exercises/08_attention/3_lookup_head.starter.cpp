// Exercise 8.3 · A head that looks things up, by hand. This is your file: make
// lookup_head return the head's weights, then run `tools/exercise check 08.3`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// The eight parameters of a head over tokens of 13 features.
struct HeadWeights {
  Tensor W_q, W_k, W_v, W_o;  // [13, 13]: a token x becomes x W
  Tensor b_q, b_k, b_v, b_o;  // [13]
};

HeadWeights lookup_head() {
  // A first attempt: every projection the identity, which is section 1's attention.
  // Each token then compares what it is with what the others are.
  const Tensor I = eye(13), zero = zeros({13});
  return {I, I, I, I, zero, zero, zero, zero};
}
