// Exercise 8.1 · The causal mask, by hand. This is your file: write causal_mask below,
// then run `tools/exercise check 08.1`. `tools/exercise hint 08.1` prints a hint.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// [length, length]: 0 where position i may look at position j (j <= i), -inf where not.
Tensor causal_mask(std::int64_t length) {
  // So far every position may look everywhere: nothing is masked yet.
  return zeros({length, length});
}
