#pragma once
// The libtorch side of the workloads (compiled only where libtorch is installed).

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "flag_step.hpp"

namespace bench {

inline torch::Tensor to_torch(const litgrad::Tensor& t) {
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  return torch::from_blob(const_cast<double*>(t.data()), shape, torch::kDouble).clone();
}

// Chapter 8's flag model in libtorch, the same arithmetic as LitgradFlagModel.
struct TorchFlagModel {
  torch::nn::Linear key{torch::nn::LinearOptions(kFeatures, kKeyDim).bias(false)}, readout{kFeatures, 1};
  torch::Tensor query;
  std::unique_ptr<torch::optim::Adam> opt;
  TorchFlagModel() {
    key->to(torch::kDouble);
    readout->to(torch::kDouble);
    query = (torch::randn({kKeyDim}, torch::kDouble) * 0.1).requires_grad_();
    std::vector<torch::Tensor> params{key->weight, readout->weight, readout->bias, query};
    opt = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(0.02));
  }
  double step(const torch::Tensor& tokens, const torch::Tensor& answer) {
    opt->zero_grad();
    const auto weights = torch::softmax(torch::matmul(key(tokens), query), -1);
    const auto attended = (weights.unsqueeze(-1) * tokens).sum(1);
    const auto loss = torch::mse_loss(readout(attended), answer);
    loss.backward();
    opt->step();
    return loss.item<double>();
  }
};

struct TorchAttention {
  torch::nn::MultiheadAttention mha;
  torch::Tensor x, r, mask;
  TorchAttention(std::int64_t L, std::int64_t N, std::int64_t E, std::int64_t H)
      : mha(torch::nn::MultiheadAttentionOptions(E, H)) {
    mha->to(torch::kDouble);
    x = torch::randn({L, N, E}, torch::kDouble).requires_grad_();
    r = torch::randn({L, N, E}, torch::kDouble);
    mask = to_torch(litgrad::generate_square_subsequent_mask(L));
  }
  void step() {
    mha->zero_grad();
    if (x.grad().defined()) x.grad().zero_();
    auto [out, weights] = mha->forward(x, x, x, {}, false, mask);
    (out * r).sum().backward();
  }
};

// Workload 6 in libtorch. Its C++ TransformerEncoderLayer (1.13) has no norm_first and no
// batch_first, so the same pre-norm block is written from its modules, as torch's Python layer
// computes it: x + sa(norm1(x)), then + ff(norm2(x)), ff = linear2(gelu(linear1(·))).
struct TorchBlock {
  torch::nn::MultiheadAttention attention;
  torch::nn::LayerNorm norm1, norm2;
  torch::nn::Linear linear1, linear2;
  torch::Tensor x, r, mask;
  TorchBlock(std::int64_t L, std::int64_t N, std::int64_t E, std::int64_t H, std::int64_t F)
      : attention(torch::nn::MultiheadAttentionOptions(E, H)),
        norm1(torch::nn::LayerNormOptions({E})),
        norm2(torch::nn::LayerNormOptions({E})),
        linear1(E, F),
        linear2(F, E) {
    for (auto* m : std::initializer_list<torch::nn::Module*>{attention.get(), norm1.get(), norm2.get(), linear1.get(),
                                                             linear2.get()})
      m->to(torch::kDouble);
    x = torch::randn({N, L, E}, torch::kDouble).requires_grad_();
    r = torch::randn({N, L, E}, torch::kDouble);
    mask = to_torch(litgrad::generate_square_subsequent_mask(L));
  }
  void step() {
    for (auto* m : std::initializer_list<torch::nn::Module*>{attention.get(), norm1.get(), norm2.get(), linear1.get(),
                                                             linear2.get()})
      m->zero_grad();
    if (x.grad().defined()) x.grad().zero_();
    const auto seq = x.transpose(0, 1);  // [L, N, E]: libtorch's attention is sequence first
    const auto h = norm1(seq);
    auto y = seq + std::get<0>(attention->forward(h, h, h, {}, false, mask));
    y = y + linear2(torch::gelu(linear1(norm2(y))));
    (y.transpose(0, 1) * r).sum().backward();
  }
};

}  // namespace bench
