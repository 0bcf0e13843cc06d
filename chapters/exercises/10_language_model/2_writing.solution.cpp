// Exercise 10.2 · Writing a word: the reference solution.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

using Scores = std::function<Tensor(const Tensor&)>;  // ids [1, n] -> [1, n, 27]

std::string write_word(const Scores& model, const std::string& start,
                       double temperature, Generator& gen) {
  NoGradGuard no_grad;  // writing learns nothing
  std::string word = start;
  while (word.size() < 10) {
    std::vector<double> ids = {0};  // the boundary, then the word so far
    for (char c : word) ids.push_back(c - 'a' + 1);
    const auto n = static_cast<std::int64_t>(ids.size());
    const Tensor scores =  // [27]: for the symbol after the last
        select(select(model(tensor(ids, {1, n}, DType::Int64)), 0, 0), 0, n - 1);
    const Tensor p = softmax(scores / temperature, 0);
    const auto next = static_cast<std::int64_t>(multinomial(p, 1, false, gen).item());
    if (next == 0) break;  // the boundary: the word is complete
    word += static_cast<char>('a' + next - 1);
  }
  return word;
}
