#pragma once
// Workloads 7 and 8: chapter 12's GPT (lib-only here, so that the benchmark needs no corpus):
// V = 1024 tokens, width 64, 4 heads, 2 pre-norm blocks with feed-forward width 256, a final
// norm and the read-out tied to the token embedding; T = 32.
//   7. GPTStep: one training step on a batch of 16 windows of random tokens: forward, the
//      cross-entropy of every position, backward, one AdamW step (decay 0.01 on everything).
//   8. Decode: one step of writing with the KV cache: one new token after 31 cached ones, for
//      one sequence, through both blocks to its 1024 scores.

#include <cmath>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

namespace bench {

constexpr std::int64_t kGptVocabulary = 1024, kGptWidth = 64, kGptHeads = 4, kGptLayers = 2, kGptContext = 32,
                       kGptBatch = 16, kGptCached = 31;

struct LitgradGPT : litgrad::nn::Module {
  litgrad::Generator gen{4};
  litgrad::nn::Embedding token, position;
  litgrad::nn::ModuleList blocks;
  litgrad::nn::LayerNorm norm;

  LitgradGPT()
      : Module("GPT"),
        token(kGptVocabulary, kGptWidth, std::nullopt, gen),
        position(kGptContext, kGptWidth, std::nullopt, gen),
        norm({kGptWidth}) {
    litgrad::nn::TransformerEncoderLayerOptions o;
    o.dim_feedforward = 4 * kGptWidth, o.dropout = 0, o.activation = "gelu", o.batch_first = true, o.norm_first = true;
    register_module("token", token), register_module("position", position);
    for (std::int64_t l = 0; l < kGptLayers; ++l)
      blocks.push_back(litgrad::nn::TransformerEncoderLayer(kGptWidth, kGptHeads, o, gen));
    register_module("blocks", blocks), register_module("norm", norm);
    for (litgrad::Tensor& p : parameters()) litgrad::nn::init::normal_(p, 0.0, 0.02, gen);
  }
  const litgrad::nn::TransformerEncoderLayer& block(std::size_t l) const {
    return blocks.at<litgrad::nn::TransformerEncoderLayer>(l);
  }
  litgrad::Tensor readout(const litgrad::Tensor& x) const {
    return litgrad::matmul(norm(x), token.weight.transpose(0, 1));
  }
  litgrad::Tensor forward(const litgrad::Tensor& ids) const {  // [N, n] -> [N, n, V]
    using namespace litgrad;
    const std::int64_t n = ids.size(1);
    Tensor x = token(ids) + position(arange(n));
    const Tensor mask = generate_square_subsequent_mask(n);
    for (std::size_t l = 0; l < blocks.size(); ++l) x = block(l)(x, mask, Tensor(), true);
    return readout(x);
  }
  litgrad::Tensor operator()(const litgrad::Tensor& ids) const { return forward(ids); }
};

// Random token ids [N, n].
inline litgrad::Tensor random_ids(std::int64_t N, std::int64_t n, litgrad::Generator& gen) {
  return litgrad::randint(0, kGptVocabulary, {N, n}, gen);
}

struct LitgradGPTStep {
  LitgradGPT model;
  litgrad::optim::AdamW opt{model.parameters(), {}};
  litgrad::Tensor inputs, targets;
  LitgradGPTStep() {
    litgrad::Generator gen(5);
    inputs = random_ids(kGptBatch, kGptContext, gen), targets = random_ids(kGptBatch, kGptContext, gen);
  }
  double step() {
    using namespace litgrad;
    opt.zero_grad();
    const Tensor loss = cross_entropy(model(inputs).reshape({-1, kGptVocabulary}), targets.reshape({-1}));
    loss.backward();
    opt.step();
    return loss.item();
  }
};

struct LitgradDecode {
  LitgradGPT model;
  std::vector<litgrad::nn::KVCache> prefix;  // the caches after kGptCached tokens
  litgrad::Tensor next;                      // [1, 1]: the token to feed
  LitgradDecode() : prefix(kGptLayers) {
    using namespace litgrad;
    model.eval();
    NoGradGuard no_grad;
    Generator gen(6);
    const Tensor ids = random_ids(1, kGptCached + 1, gen);
    Tensor x = model.token(ids.slice(1, 0, kGptCached)) + model.position(arange(kGptCached));
    for (std::size_t l = 0; l < model.blocks.size(); ++l) x = model.block(l).forward_cached(x, prefix[l]);
    next = ids.slice(1, kGptCached, kGptCached + 1);
  }
  // The scores [1, 1, V] for the next token; the prefix's caches stay as they were (a cache
  // grows by new tensors, so each step starts from the same kGptCached tokens).
  litgrad::Tensor step() {
    using namespace litgrad;
    NoGradGuard no_grad;
    std::vector<nn::KVCache> caches = prefix;
    Tensor x = model.token(next) + model.position(arange(kGptCached + 1).slice(0, kGptCached, kGptCached + 1));
    for (std::size_t l = 0; l < model.blocks.size(); ++l) x = model.block(l).forward_cached(x, caches[l]);
    return model.readout(x);
  }
};

}  // namespace bench
