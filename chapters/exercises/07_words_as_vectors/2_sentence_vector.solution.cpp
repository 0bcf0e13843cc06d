// Exercise 7.2 · A sentence's vector: the reference solution.
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor sentence_vector(const nn::Embedding& table,
                       const std::vector<std::int64_t>& words) {
  std::vector<double> ids(words.begin(), words.end());
  const auto n = static_cast<std::int64_t>(words.size());
  return mean(table(tensor(ids, {n}, DType::Int64)), {0});
}
