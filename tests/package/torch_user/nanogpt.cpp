// nanoGPT's model.py and the core of its train.py, written against the installed package as a
// torch user first writes them: LayerNorm with an optional bias, causal self-attention with
// its mask as a buffer, the MLP, the block, a GPT whose modules sit in a ModuleDict with the
// read-out tied to the token embedding and GPT-2's scaled init applied with apply(), and a
// loop with AdamW in two groups, warm-up then cosine, and gradient clipping.
//
// Run as `nanogpt reference/nanogpt.state`: the model starts from the weights Python torch
// started from (torch's random draws are not litgrad's), trains on the same batches, and
// every loss, gradient norm, the evaluation, the greedy writing and the trained weights are
// held to torch's (tests/reference/make_torch_user_reference.py) within 1e-12.
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "against_torch.hpp"

using namespace litgrad;
using namespace litgrad::indexing;

struct GPTConfig {
  std::int64_t block_size = 8, vocab_size = 20, n_layer = 2, n_head = 2, n_embd = 16;
  double dropout = 0.0;
  bool bias = true;
};

// LayerNorm with an optional bias, which torch's nn.LayerNorm did not have.
struct LayerNorm : nn::Module {
  Tensor weight, bias;
  LayerNorm(std::int64_t ndim, bool with_bias) : Module("LayerNorm"), weight(ones({ndim})) {
    register_parameter("weight", weight);
    if (with_bias) bias = zeros({ndim}), register_parameter("bias", bias);
  }
  Tensor forward(const Tensor& x) const { return F::layer_norm(x, weight.shape(), weight, bias, 1e-5); }
  Tensor operator()(const Tensor& x) const { return forward(x); }
};

struct CausalSelfAttention : nn::Module {
  nn::Linear c_attn, c_proj;  // the three projections in one, and the output projection
  nn::Dropout attn_dropout, resid_dropout;
  std::int64_t n_head, n_embd;
  Tensor mask;  // [1, 1, block, block]: 1 where a position may look, 0 above the diagonal

  explicit CausalSelfAttention(const GPTConfig& c)
      : Module("CausalSelfAttention"),
        c_attn(c.n_embd, 3 * c.n_embd, c.bias),
        c_proj(c.n_embd, c.n_embd, c.bias),
        attn_dropout(c.dropout),
        resid_dropout(c.dropout),
        n_head(c.n_head),
        n_embd(c.n_embd),
        mask(tril(ones({c.block_size, c.block_size})).view({1, 1, c.block_size, c.block_size})) {
    register_module("c_attn", c_attn);
    register_module("c_proj", c_proj);
    register_module("attn_dropout", attn_dropout);
    register_module("resid_dropout", resid_dropout);
    register_buffer("bias", mask);  // nanoGPT's name for the mask
  }

  // x [B, T, C] -> [B, T, C]
  Tensor forward(const Tensor& x) const {
    const std::int64_t B = x.size(0), T = x.size(1), C = x.size(2);
    const std::vector<Tensor> qkv = c_attn(x).split(n_embd, 2);
    const Tensor q = qkv[0].view({B, T, n_head, C / n_head}).transpose(1, 2);  // [B, nh, T, hs]
    const Tensor k = qkv[1].view({B, T, n_head, C / n_head}).transpose(1, 2);
    const Tensor v = qkv[2].view({B, T, n_head, C / n_head}).transpose(1, 2);
    Tensor att = matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(k.size(-1))));
    att = att.masked_fill(mask.index({Slice(), Slice(), Slice(None, T), Slice(None, T)}) == 0,
                          -std::numeric_limits<double>::infinity());
    att = attn_dropout(F::softmax(att, -1));
    const Tensor y = matmul(att, v).transpose(1, 2).contiguous().view({B, T, C});
    return resid_dropout(c_proj(y));
  }
  Tensor operator()(const Tensor& x) const { return forward(x); }
};

struct MLP : nn::Module {
  nn::Linear c_fc, c_proj;
  nn::GELU gelu;
  nn::Dropout dropout;
  explicit MLP(const GPTConfig& c)
      : Module("MLP"),
        c_fc(c.n_embd, 4 * c.n_embd, c.bias),
        c_proj(4 * c.n_embd, c.n_embd, c.bias),
        dropout(c.dropout) {
    register_module("c_fc", c_fc);
    register_module("gelu", gelu);
    register_module("c_proj", c_proj);
    register_module("dropout", dropout);
  }
  Tensor forward(const Tensor& x) const { return dropout(c_proj(gelu(c_fc(x)))); }
  Tensor operator()(const Tensor& x) const { return forward(x); }
};

struct Block : nn::Module {
  LayerNorm ln_1, ln_2;
  CausalSelfAttention attn;
  MLP mlp;
  explicit Block(const GPTConfig& c)
      : Module("Block"), ln_1(c.n_embd, c.bias), ln_2(c.n_embd, c.bias), attn(c), mlp(c) {
    register_module("ln_1", ln_1);
    register_module("attn", attn);
    register_module("ln_2", ln_2);
    register_module("mlp", mlp);
  }
  Tensor forward(Tensor x) const {
    x = x + attn(ln_1(x));
    return x + mlp(ln_2(x));
  }
  Tensor operator()(const Tensor& x) const { return forward(x); }
};

struct GPT : nn::Module {
  GPTConfig config;
  nn::ModuleDict transformer;
  nn::Linear lm_head;

  explicit GPT(const GPTConfig& c) : Module("GPT"), config(c), lm_head(c.n_embd, c.vocab_size, false) {
    transformer.insert("wte", nn::Embedding(c.vocab_size, c.n_embd));
    transformer.insert("wpe", nn::Embedding(c.block_size, c.n_embd));
    transformer.insert("drop", nn::Dropout(c.dropout));
    nn::ModuleList h;
    for (std::int64_t i = 0; i < c.n_layer; ++i) h.push_back(Block(c));
    transformer.insert("h", std::move(h));
    transformer.insert("ln_f", LayerNorm(c.n_embd, c.bias));
    register_module("transformer", transformer);
    register_module("lm_head", lm_head);
    transformer.at<nn::Embedding>("wte").weight = lm_head.weight;  // weight tying
    apply([](nn::Module& m) { init_weights(m); });
    for (auto& [name, p] : named_parameters())  // GPT-2's scaled init of the residual projections
      if (name.size() >= 13 && name.compare(name.size() - 13, 13, "c_proj.weight") == 0)
        nn::init::normal_(p, 0.0, 0.02 / std::sqrt(2.0 * c.n_layer));
  }

  static void init_weights(nn::Module& module) {
    if (auto* linear = dynamic_cast<nn::Linear*>(&module)) {
      nn::init::normal_(linear->weight, 0.0, 0.02);
      if (linear->bias.defined()) nn::init::zeros_(linear->bias);
    } else if (auto* embedding = dynamic_cast<nn::Embedding*>(&module)) {
      nn::init::normal_(embedding->weight, 0.0, 0.02);
    }
  }

  // idx [b, t] -> logits [b, t, vocab] and the mean cross-entropy against targets [b, t];
  // without targets, the logits of the last position only, [b, 1, vocab], and no loss.
  std::pair<Tensor, Tensor> forward(const Tensor& idx, const Tensor& targets = Tensor()) const {
    const std::int64_t t = idx.size(1);
    const Tensor pos = arange(0, t);
    const Tensor tok_emb = transformer.at<nn::Embedding>("wte")(idx);
    const Tensor pos_emb = transformer.at<nn::Embedding>("wpe")(pos);
    Tensor x = transformer.at<nn::Dropout>("drop")(tok_emb + pos_emb);
    const auto& h = transformer.at<nn::ModuleList>("h");
    for (std::size_t i = 0; i < h.size(); ++i) x = h.at<Block>(i)(x);
    x = transformer.at<LayerNorm>("ln_f")(x);
    if (!targets.defined()) {
      // [b, 1, C]: the last position, its dimension kept, as x[:, [-1], :]
      const Tensor last = x.index({Slice(), Slice(-1, None), Slice()});
      return {lm_head(last), Tensor()};
    }
    const Tensor logits = lm_head(x);
    CrossEntropyOptions options;
    options.ignore_index = -1;
    return {logits, F::cross_entropy(logits.view({-1, logits.size(-1)}), targets.view({-1}), options)};
  }

  // AdamW, with weight decay on the tensors of two or more dimensions only.
  optim::AdamW configure_optimizers(double weight_decay, double learning_rate, std::pair<double, double> betas) {
    std::vector<Tensor> decay, no_decay;
    for (const Tensor& p : parameters())
      if (p.requires_grad()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
    return optim::AdamW({{decay, {{"weight_decay", weight_decay}}}, {no_decay, {{"weight_decay", 0.0}}}},
                        optim::AdamWOptions{learning_rate}.betas({betas.first, betas.second}));
  }

  // Greedy writing: the most likely next token, max_new_tokens times.
  Tensor generate_greedy(Tensor idx, int max_new_tokens) const {
    NoGradGuard no_grad;
    for (int i = 0; i < max_new_tokens; ++i) {
      const Tensor cond =
          idx.size(1) <= config.block_size ? idx : idx.index({Slice(), Slice(-config.block_size, None)});
      const Tensor logits = forward(cond).first;
      idx = cat({idx, argmax(logits.index({Slice(), -1, Slice()}), -1, true)}, 1);
    }
    return idx;
  }
};

int main(int argc, char** argv) {
  const StateDict ref = against_torch::reference(argc, argv);
  against_torch::Comparison torch;
  const GPTConfig c;
  GPT model(c);
  model.load_state_dict(ref.sub("init"));  // torch.load of the starting point

  const Tensor data = ref.at("data.text"), ix = ref.at("data.ix");
  const int iters = static_cast<int>(ix.size(0));
  const double learning_rate = 1e-2, min_lr = 1e-3;
  const int warmup_iters = 5, lr_decay_iters = 30;
  const auto get_lr = [&](int it) {
    if (it < warmup_iters) return learning_rate * (it + 1) / (warmup_iters + 1);
    const double ratio = static_cast<double>(it - warmup_iters) / (lr_decay_iters - warmup_iters);
    return min_lr + 0.5 * (1.0 + std::cos(M_PI * ratio)) * (learning_rate - min_lr);
  };
  const auto batch = [&](const std::vector<std::int64_t>& starts, std::int64_t shift) {
    std::vector<Tensor> rows;
    for (std::int64_t i : starts) rows.push_back(data.index({Slice(i + shift, i + shift + c.block_size)}));
    return stack(rows);
  };

  optim::AdamW optimizer = model.configure_optimizers(0.1, learning_rate, {0.9, 0.95});
  std::vector<double> losses, norms;
  for (int it = 0; it < iters; ++it) {
    for (auto& group : optimizer.param_groups()) group["lr"] = get_lr(it);
    std::vector<std::int64_t> starts;
    for (double i : ix.select(0, it).to_vector()) starts.push_back(static_cast<std::int64_t>(i));
    const auto [logits, loss] = model.forward(batch(starts, 0), batch(starts, 1));
    loss.backward();
    norms.push_back(nn::utils::clip_grad_norm_(model.parameters(), 1.0));
    optimizer.step();
    optimizer.zero_grad(true);
    losses.push_back(loss.item());
  }
  std::cout << "nanogpt: loss " << losses.front() << " at the first step, " << losses.back() << " at step " << iters
            << "\n";
  torch.check("the training losses", tensor(losses, {iters}), ref.at("expected.losses"));
  torch.check("the gradient norms before clipping", tensor(norms, {iters}), ref.at("expected.grad_norms"));

  model.eval();
  {
    NoGradGuard no_grad;
    std::vector<std::int64_t> starts;
    for (std::int64_t i = 0; i < 400; i += 40) starts.push_back(i);
    torch.check("the loss in eval() under no_grad", model.forward(batch(starts, 0), batch(starts, 1)).second,
                ref.at("expected.eval_loss"));
  }
  const Tensor written = model.generate_greedy(data.index({Slice(None, 3)}).view({1, 3}), 12);
  torch.check("the tokens written greedily", written, ref.at("expected.written"), 0.0);
  torch.check("the tied read-out's weights", model.lm_head.weight, ref.at("expected.lm_head.weight"));
  const auto& block = model.transformer.at<nn::ModuleList>("h").at<Block>(1);
  torch.check("a bias of the second block", block.mlp.c_fc.bias, ref.at("expected.transformer.h.1.mlp.c_fc.bias"));
  return torch.failures();
}
