// Exercise 9.3 · The induction rule: the reference solution.
#include <cstdint>
#include <vector>

std::int64_t induction_answer(const std::vector<std::int64_t>& sequence) {
  const std::int64_t n = static_cast<std::int64_t>(sequence.size());
  for (std::int64_t t = n - 2; t >= 0; --t)
    if (sequence[t] == sequence[n - 1]) return t + 1 < n - 1 ? sequence[t + 1] : -1;
  return -1;
}
