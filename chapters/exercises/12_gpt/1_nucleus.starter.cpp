// Exercise 12.1 · Nucleus sampling. This is your file: write nucleus_distribution
// below, then run `tools/exercise check 12.1`.
#include <cmath>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// softmax(z) kept on the fewest most likely tokens whose total reaches p, renormalised;
// exactly 0 for every other token.
Tensor nucleus_distribution(const Tensor& scores, double p) {
  (void)p;
  return zeros({scores.numel()});  // not written yet: no token has a chance
}
