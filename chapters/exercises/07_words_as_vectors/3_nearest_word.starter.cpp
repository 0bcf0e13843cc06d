// Exercise 7.3 · The nearest word. This is your file: write nearest_word below, then
// run `tools/exercise check 07.3`.
#include <cstdint>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// The index of the other row of `table` [V, D] with the largest cosine to row `word`.
std::int64_t nearest_word(const Tensor& table, std::int64_t word) {
  const Tensor dots = matmul(table, transpose(table, 0, 1));  // plain dot products
  std::int64_t best = word == 0 ? 1 : 0;
  for (std::int64_t j = 0; j < table.size(0); ++j)
    if (j != word && dots.at({word, j}) > dots.at({word, best})) best = j;
  return best;
}
