// Exercise 7.2 · A sentence's vector. This is your file: write sentence_vector below,
// then run `tools/exercise check 07.2`.
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// The mean of the rows of `table` at `words`: [D].
Tensor sentence_vector(const nn::Embedding& table,
                       const std::vector<std::int64_t>& words) {
  std::vector<double> ids(words.begin(), words.end());
  const auto n = static_cast<std::int64_t>(words.size());
  return sum(table(tensor(ids, {n}, DType::Int64)), {0});  // a sum, not yet a mean
}
