#pragma once
// Workloads 7 and 8 (bench/gpt.hpp) in libtorch, in double or in float32 (libtorch's default,
// what a torch user runs). libtorch's C++ TransformerEncoderLayer (1.13) has no pre-norm, so
// the blocks are written from its modules as torch's Python layer computes them; the decoding
// step keeps each layer's keys and values as a KV cache does, with torch's own operations.

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "gpt.hpp"

namespace bench {

struct TorchGPT : torch::nn::Module {
  torch::nn::Embedding token{kGptVocabulary, kGptWidth}, position{kGptContext, kGptWidth};
  std::vector<torch::nn::MultiheadAttention> attention;
  std::vector<torch::nn::LayerNorm> norm1, norm2;
  std::vector<torch::nn::Linear> linear1, linear2;
  torch::nn::LayerNorm norm{torch::nn::LayerNormOptions({kGptWidth})};

  explicit TorchGPT(torch::Dtype dtype) {
    register_module("token", token), register_module("position", position), register_module("norm", norm);
    for (std::int64_t l = 0; l < kGptLayers; ++l) {
      const std::string i = std::to_string(l);
      attention.push_back(register_module("attention" + i, torch::nn::MultiheadAttention(kGptWidth, kGptHeads)));
      norm1.push_back(register_module("norm1_" + i, torch::nn::LayerNorm(torch::nn::LayerNormOptions({kGptWidth}))));
      norm2.push_back(register_module("norm2_" + i, torch::nn::LayerNorm(torch::nn::LayerNormOptions({kGptWidth}))));
      linear1.push_back(register_module("linear1_" + i, torch::nn::Linear(kGptWidth, 4 * kGptWidth)));
      linear2.push_back(register_module("linear2_" + i, torch::nn::Linear(4 * kGptWidth, kGptWidth)));
    }
    to(dtype);
    torch::NoGradGuard no_grad;
    for (auto& p : parameters()) p.normal_(0.0, 0.02);
  }
  torch::Tensor readout(const torch::Tensor& x) { return torch::matmul(norm(x), token->weight.t()); }
  torch::Tensor forward(const torch::Tensor& ids) {  // [N, n] -> [N, n, V]
    const std::int64_t n = ids.size(1);
    auto x = (token(ids) + position(torch::arange(n))).transpose(0, 1);  // [n, N, d]: sequence first
    const auto mask = torch::full({n, n}, -INFINITY, x.options()).triu(1);
    for (std::int64_t l = 0; l < kGptLayers; ++l) {
      const auto h = norm1[l](x);
      x = x + std::get<0>(attention[l]->forward(h, h, h, {}, false, mask));
      x = x + linear2[l](torch::gelu(linear1[l](norm2[l](x))));
    }
    return readout(x.transpose(0, 1));
  }
};

struct TorchGPTStep {
  TorchGPT model;
  torch::optim::AdamW opt;
  torch::Tensor inputs, targets;
  explicit TorchGPTStep(torch::Dtype dtype)
      : model(dtype), opt(model.parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(1e-2)) {
    inputs = torch::randint(kGptVocabulary, {kGptBatch, kGptContext}, torch::kLong);
    targets = torch::randint(kGptVocabulary, {kGptBatch, kGptContext}, torch::kLong);
  }
  double step() {
    opt.zero_grad();
    const auto loss = torch::nn::functional::cross_entropy(model.forward(inputs).reshape({-1, kGptVocabulary}),
                                                           targets.reshape({-1}));
    loss.backward();
    opt.step();
    return loss.item<double>();
  }
};

struct TorchDecode {
  TorchGPT model;
  std::vector<torch::Tensor> keys, values;  // per layer, [H, kGptCached, d/H]
  torch::Tensor next;
  explicit TorchDecode(torch::Dtype dtype) : model(dtype) {
    model.eval();
    torch::NoGradGuard no_grad;
    const auto ids = torch::randint(kGptVocabulary, {1, kGptCached + 1}, torch::kLong);
    auto x = model.token(ids.slice(1, 0, kGptCached)) + model.position(torch::arange(kGptCached));  // [1, n, d]
    for (std::int64_t l = 0; l < kGptLayers; ++l) {
      const auto qkv = project(l, model.norm1[l](x));
      keys.push_back(qkv[1]), values.push_back(qkv[2]);
      x = finish_block(l, x, qkv[0], keys[l], values[l]);
    }
    next = ids.slice(1, kGptCached, kGptCached + 1);
  }
  // q, k and v of h [1, n, d] by layer l's in-projection, each [H, n, d/H].
  std::vector<torch::Tensor> project(std::int64_t l, const torch::Tensor& h) {
    auto& a = model.attention[l];
    auto qkv = torch::nn::functional::linear(h, a->in_proj_weight, a->in_proj_bias).chunk(3, -1);
    for (auto& t : qkv) t = t.reshape({-1, kGptHeads, kGptWidth / kGptHeads}).transpose(0, 1);
    return qkv;
  }
  // The rest of block l for x [1, n, d], whose queries are q and whose keys and values (all the
  // tokens so far, the causal mask between the last n) are k and v.
  torch::Tensor finish_block(std::int64_t l, const torch::Tensor& x, const torch::Tensor& q, const torch::Tensor& k,
                             const torch::Tensor& v) {
    const std::int64_t n = x.size(1), s = k.size(1);
    auto scores = torch::matmul(q, k.transpose(1, 2)) / std::sqrt(double(kGptWidth / kGptHeads));  // [H, n, s]
    if (n > 1) scores = scores + torch::full({n, s}, -INFINITY, scores.options()).triu(s - n + 1);
    const auto heads = torch::matmul(torch::softmax(scores, -1), v).transpose(0, 1).reshape({1, n, kGptWidth});
    auto& a = model.attention[l];
    auto y = x + torch::nn::functional::linear(heads, a->out_proj->weight, a->out_proj->bias);
    return y + model.linear2[l](torch::gelu(model.linear1[l](model.norm2[l](y))));
  }
  torch::Tensor step() {
    torch::NoGradGuard no_grad;
    auto x = model.token(next) + model.position(torch::arange(kGptCached, kGptCached + 1));
    for (std::int64_t l = 0; l < kGptLayers; ++l) {
      const auto qkv = project(l, model.norm1[l](x));
      x = finish_block(l, x, qkv[0], torch::cat({keys[l], qkv[1]}, 1), torch::cat({values[l], qkv[2]}, 1));
    }
    return model.readout(x);
  }
};

}  // namespace bench
