// Exercise 9.3 · The induction rule. This is your file: write induction_answer below,
// then run `tools/exercise check 09.3`.
#include <cstdint>
#include <vector>

// The token after the latest earlier copy of the last token, or -1 if there is none.
std::int64_t induction_answer(const std::vector<std::int64_t>& sequence) {
  const std::int64_t n = static_cast<std::int64_t>(sequence.size());
  for (std::int64_t t = n - 2; t >= 1;
       --t)  // looks for the copy, then steps the wrong way
    if (sequence[t] == sequence[n - 1]) return sequence[t - 1];
  return 0;
}
