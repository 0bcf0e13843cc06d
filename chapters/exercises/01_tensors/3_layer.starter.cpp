// Exercise 1.3 · A layer by loops. This is your file: write layer below, then run
// `tools/exercise check 01.3`. `tools/exercise hint 01.3` prints a hint.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// Y = X W + b for X [batch, in], W [in, out], b [out], by loops over the numbers.
Tensor layer(const Tensor& X, const Tensor& W, const Tensor& b) {
  // A start: the right shape, and nothing computed yet.
  (void)b;
  return zeros({X.size(0), W.size(1)});
}
