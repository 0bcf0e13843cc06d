// Exercise 7.3 · The nearest word: the reference solution.
#include <cstdint>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

std::int64_t nearest_word(const Tensor& table, std::int64_t word) {
  const Tensor unit = table / norm(table, 2, {1}, true);
  const Tensor cosines = matmul(unit, transpose(unit, 0, 1));
  std::int64_t best = word == 0 ? 1 : 0;
  for (std::int64_t j = 0; j < table.size(0); ++j)
    if (j != word && cosines.at({word, j}) > cosines.at({word, best})) best = j;
  return best;
}
