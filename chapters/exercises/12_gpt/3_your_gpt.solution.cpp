// Exercise 12.3 · Your GPT, assembled, and writing: the reference solution.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "your_gpt.hpp"

using namespace litgrad;

Tensor gpt_scores(const GPTWeights& gpt, const Tensor& ids) {
  const std::int64_t n = ids.size(-1);
  Tensor x = gpt.token(ids) + gpt.position(arange(n));  // [N, n, d]
  const Tensor mask = generate_square_subsequent_mask(n);
  for (const nn::TransformerEncoderLayer* block : gpt.blocks)
    x = pre_norm_block(*block, x, mask);                          // [N, n, d]
  return matmul(gpt.norm(x), transpose(gpt.token.weight, 0, 1));  // [N, n, V]
}

std::vector<std::int64_t> write_greedily(const GPTWeights& gpt,
                                         std::vector<std::int64_t> tokens, int count) {
  NoGradGuard no_grad;                                       // writing learns nothing
  const std::int64_t context = gpt.position.weight.size(0);  // T
  for (int i = 0; i < count; ++i) {
    const std::int64_t n = std::min<std::int64_t>(tokens.size(), context);
    const std::vector<double> window(tokens.end() - n, tokens.end());  // the newest n
    const Tensor scores = gpt_scores(gpt, tensor(window, {1, n}, DType::Int64));
    const Tensor next = select(select(scores, 0, 0), 0, n - 1);  // [V], after the last
    tokens.push_back(static_cast<std::int64_t>(argmax(next).item()));
  }
  return tokens;
}
