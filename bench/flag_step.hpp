#pragma once
// Workload 1: one training step of chapter 8's flag task, the same model in litgrad and in
// libtorch: batch 64, 8 positions, 2 features per token, one learned query over 8-dimensional
// keys, a linear read-out, MSE loss, Adam (lr 0.02). Batches are made beforehand and cycled,
// so only forward, backward and update are timed.

#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

namespace bench {

constexpr std::int64_t kBatch = 64, kPositions = 8, kFeatures = 2, kKeyDim = 8;

struct FlagData {
  std::vector<litgrad::Tensor> tokens, answers;  // [64, 8, 2] and [64, 1] each
};

// `count` batches of the flag task, as chapter 8 makes them.
inline FlagData flag_data(int count, std::uint64_t seed) {
  using namespace litgrad;
  Generator gen(seed);
  FlagData d;
  for (int i = 0; i < count; ++i) {
    Tensor tokens = zeros({kBatch, kPositions, kFeatures}), answer = zeros({kBatch, 1});
    const Tensor values = randn({kBatch, kPositions}, gen);
    for (std::int64_t b = 0; b < kBatch; ++b) {
      const std::int64_t f = gen.randint(0, kPositions);
      for (std::int64_t t = 0; t < kPositions; ++t) {
        tokens.data()[(b * kPositions + t) * 2] = values.data()[b * kPositions + t];
        tokens.data()[(b * kPositions + t) * 2 + 1] = t == f;
      }
      answer.data()[b] = values.data()[b * kPositions + f];
    }
    d.tokens.push_back(tokens);
    d.answers.push_back(answer);
  }
  return d;
}

// The model of chapter 8, section 2, in litgrad.
struct LitgradFlagModel {
  litgrad::Generator gen{1};
  litgrad::nn::Linear key{kFeatures, kKeyDim, false, gen}, readout{kFeatures, 1, true, gen};
  litgrad::Tensor query = (litgrad::randn({kKeyDim}, gen) * 0.1).detach().requires_grad_();
  litgrad::optim::Adam opt{{key.weight, readout.weight, readout.bias, query}, {0.02}};

  double step(const litgrad::Tensor& tokens, const litgrad::Tensor& answer) {
    using namespace litgrad;
    opt.zero_grad();
    const Tensor scores = matmul(key(tokens), query);                   // [64, 8]
    const Tensor weights = softmax(scores, -1);                         // [64, 8]
    const Tensor attended = sum(unsqueeze(weights, -1) * tokens, {1});  // [64, 8, 1] * [64, 8, 2] -> [64, 2]
    const Tensor loss = mse_loss(readout(attended), answer);
    loss.backward();
    opt.step();
    return loss.item();
  }
};

}  // namespace bench
