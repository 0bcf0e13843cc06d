// Chapter 12's GPT made small, for the exercises that write one (12.3 and 12.4): the
// library's model at random weights, two copies trained for a purpose (one counts in
// threes, one brings a full window's first token round again), its scores with their
// rounding allowance, and its greedy writing, right or with a catalogued mistake.
// Header-only, in each exercise's tests; a model is trained once per process.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "rounding_allowance.hpp"
#include "your_gpt.hpp"

namespace small_gpt {
using namespace litgrad;

inline constexpr std::int64_t kVocabulary = 40, kWidth = 16, kContext = 8, kLayers = 2;

// What a variant of the forward pass changes: the catalogued mistakes, each a switch.
struct Variant {
  bool no_positions = false, positions_from_1 = false, no_final_norm = false;
  bool no_mask = false;
};

// Section 3's GPT at a small size, every weight and bias drawn at random (zeros would
// hide a forgotten bias).
struct SmallGPT : nn::Module {
  nn::Embedding token, position;
  nn::ModuleList blocks;
  nn::LayerNorm norm;
  explicit SmallGPT(Generator& gen)
      : Module("SmallGPT"),
        token(kVocabulary, kWidth, std::nullopt, gen),
        position(kContext, kWidth, std::nullopt, gen),
        norm({kWidth}) {
    nn::TransformerEncoderLayerOptions o;
    o.dim_feedforward = 4 * kWidth, o.dropout = 0, o.activation = "gelu";
    o.batch_first = true, o.norm_first = true;
    register_module("token", token), register_module("position", position);
    for (std::int64_t l = 0; l < kLayers; ++l)
      blocks.push_back(nn::TransformerEncoderLayer(kWidth, 2, o, gen));
    register_module("blocks", blocks), register_module("norm", norm);
    NoGradGuard no_grad;
    for (auto& [name, p] : named_parameters())
      if (p.dim() == 1)
        p.copy_((name.find("weight") != std::string::npos ? 1.0 : 0.0) +
                0.3 * randn(p.shape(), gen));
  }
  // The library's forward pass, ids [N, n] -> scores [N, n, V], or a catalogued
  // mistake's.
  Tensor forward(const Tensor& ids, const Variant& v = {}) const {
    const std::int64_t n = ids.size(-1);
    Tensor x = token(ids);
    if (!v.no_positions)
      x = x +
          position(v.positions_from_1 ? arange(1, n + 1).to(DType::Int64) : arange(n));
    const Tensor mask = v.no_mask ? Tensor() : generate_square_subsequent_mask(n);
    for (std::int64_t l = 0; l < kLayers; ++l) x = block(l)(x, mask);
    return matmul(v.no_final_norm ? x : norm(x), transpose(token.weight, 0, 1));
  }
  const nn::TransformerEncoderLayer& block(std::int64_t l) const {
    return blocks.at<nn::TransformerEncoderLayer>(l);
  }
  GPTWeights weights() const {
    std::vector<const nn::TransformerEncoderLayer*> layers;
    for (std::int64_t l = 0; l < kLayers; ++l) layers.push_back(&block(l));
    return {token, position, layers, norm};
  }
};

// Windows of counting in threes, s, s + 3, s + 6, ... (mod V) from random starts s:
// [n, T + 1], each window's inputs and the token after each.
inline Tensor counting(std::int64_t n, Generator& gen) {
  std::vector<double> counted;
  for (std::int64_t b = 0; b < n; ++b) {
    const std::int64_t start = gen.randint(0, kVocabulary);
    for (std::int64_t t = 0; t <= kContext; ++t)
      counted.push_back(static_cast<double>((start + 3 * t) % kVocabulary));
  }
  return tensor(counted, {n, kContext + 1}, DType::Int64);
}

// Trains `model` to count in threes, its scores computed by `scores_of` (ids [N, n] ->
// [N, n, V]): AdamW at 0.01, 200 steps of 16 windows.
template <class Scores>
void teach_counting(SmallGPT& model, Scores scores_of, Generator& gen) {
  optim::AdamW adam(model.parameters(), {0.01});
  for (int step = 0; step < 200; ++step) {
    const Tensor text = counting(16, gen);
    adam.zero_grad();
    const Tensor scores = scores_of(slice(text, 1, 0, kContext));
    const Tensor loss = cross_entropy(scores.reshape({-1, kVocabulary}),
                                      slice(text, 1, 1, kContext + 1).reshape({-1}));
    loss.backward();
    adam.step();
  }
}

// The library's GPT taught to count in threes, once per process: what it writes shows
// whether a writer read the right tokens, where a model of random weights gets stuck
// repeating one token.
inline const SmallGPT& counting_model() {
  static const SmallGPT* model = [] {
    Generator gen(34);
    auto* m = new SmallGPT(gen);
    teach_counting(
        *m, [&](const Tensor& ids) { return m->forward(ids); }, gen);
    return m;
  }();
  return *model;
}

// The library's GPT taught to bring a full window's first token round again: each
// window is 8 random tokens; at its last position the next token is its first, and at
// every other position the token one up from the one there (mod V). AdamW at 0.01, 600
// steps of 16 windows. From a full window it writes the token T back, the oldest the
// window holds; from a shorter one, something else. So a writer that hands it the
// wrong window, or one token too few, writes something else. Once per process.
inline const SmallGPT& repeating_model() {
  static const SmallGPT* model = [] {
    Generator gen(37);
    auto* m = new SmallGPT(gen);
    optim::AdamW adam(m->parameters(), {0.01});
    for (int step = 0; step < 600; ++step) {
      std::vector<double> text, targets;
      for (int b = 0; b < 16; ++b) {
        for (std::int64_t t = 0; t < kContext; ++t) {
          text.push_back(gen.randint(0, kVocabulary));
          targets.push_back(std::fmod(text.back() + 1, kVocabulary));  // the next up
        }
        targets.back() = text[text.size() - kContext];  // the first comes round again
      }
      adam.zero_grad();
      const Tensor scores = m->forward(tensor(text, {16, kContext}, DType::Int64));
      const Tensor loss = cross_entropy(scores.reshape({-1, kVocabulary}),
                                        tensor(targets, {16 * kContext}, DType::Int64));
      loss.backward();
      adam.step();
    }
    return m;
  }();
  return *model;
}

// The library's GPT on ids [N, n] -> [N, n, V], or a catalogued mistake's, recording no
// gradients.
inline Tensor library_scores(const SmallGPT& m, const Tensor& ids,
                             const Variant& v = {}) {
  NoGradGuard no_grad;
  return m.forward(ids, v);
}

// The allowance of the library's scores: block by block, each block's input off by
// what the blocks before it allow; then the final norm's and the read-out's.
inline Tensor scores_allowance(const SmallGPT& m, const Tensor& ids) {
  NoGradGuard no_grad;
  const std::int64_t n = ids.size(-1);
  const Tensor mask = generate_square_subsequent_mask(n);
  Tensor x = m.token(ids) + m.position(arange(n)),
         error;  // the sum: exact on both sides
  for (std::int64_t l = 0; l < kLayers; ++l) {
    error = exercise::pre_norm_block_allowance(m.block(l), x, mask, error);
    x = m.block(l)(x, mask);
  }
  const Tensor normed_error = exercise::layer_norm_allowance(x, error, m.norm);
  return exercise::linear_allowance(m.norm(x), normed_error,
                                    transpose(m.token.weight, 0, 1));
}

// Random token ids [N, n].
inline Tensor random_ids(std::int64_t N, std::int64_t n, Generator& gen) {
  return randint(0, kVocabulary, {N, n}, gen).to(DType::Int64);
}

// The library model's greedy writing, and the steps at which rounding could not change
// its choice: the two highest scores further apart than twice their allowances.
struct Written {
  std::vector<std::int64_t> tokens;
  std::vector<bool> decided;  // one per written token
};

enum class Writing {
  right,
  uncut,
  oldest_kept,
  one_short,
  first_position,
  not_fed_back,
  newest_only
};

inline Written library_writing(const SmallGPT& m, std::vector<std::int64_t> tokens,
                               int count, Writing how = Writing::right) {
  Written w;
  const std::vector<std::int64_t> prompt = tokens;
  for (int i = 0; i < count; ++i) {
    const std::vector<std::int64_t>& text =
        how == Writing::not_fed_back ? prompt : tokens;
    const std::int64_t size = static_cast<std::int64_t>(text.size());
    std::int64_t n = std::min<std::int64_t>(size, kContext);
    if (how == Writing::uncut) n = size;
    if (how == Writing::one_short) n = std::min<std::int64_t>(size, kContext - 1);
    if (how == Writing::newest_only && i > 0) n = 1;
    const auto from = how == Writing::oldest_kept ? text.begin() : text.end() - n;
    const std::vector<double> window(from, from + n);
    const Tensor ids = tensor(window, {1, n}, DType::Int64);
    const std::int64_t at = how == Writing::first_position ? 0 : n - 1;
    const Tensor scores = select(select(library_scores(m, ids), 0, 0), 0, at);  // [V]
    const Tensor allowance = select(select(scores_allowance(m, ids), 0, 0), 0, at);
    const MaxResult top = topk(scores, 2);
    const double gap = top.values.at({0}) - top.values.at({1});
    const double rounding =
        2 * (allowance.at({static_cast<std::int64_t>(top.indices.at({0}))}) +
             allowance.at({static_cast<std::int64_t>(top.indices.at({1}))}));
    w.decided.push_back(gap > rounding);
    tokens.push_back(static_cast<std::int64_t>(top.indices.at({0})));
  }
  w.tokens = tokens;
  return w;
}

// Your written tokens against the library model's: the prompt kept, then `count` tokens,
// each the library's wherever rounding cannot decide (the test's premise: everywhere).
// `why` names the catalogued mistake the tokens are, or is empty.
inline void check_tokens(const SmallGPT& model, const std::vector<std::int64_t>& prompt,
                         int count, const std::vector<std::int64_t>& yours,
                         const std::string& why) {
  const Written library = library_writing(model, prompt, count);
  INFO(why);
  REQUIRE_MESSAGE(yours.size() == prompt.size() + count, "you returned ", yours.size(),
                  " tokens; the prompt's ", prompt.size(), " and ", count,
                  " written were expected");
  CHECK_MESSAGE(std::equal(prompt.begin(), prompt.end(), yours.begin()),
                "your tokens do not begin with the prompt");
  REQUIRE(std::count(library.decided.begin(), library.decided.end(), true) == count);
  for (int i = 0; i < count; ++i) {
    const std::size_t at = prompt.size() + i;
    INFO("written token ", i, ": yours ", yours[at], ", the library's ",
         library.tokens[at]);
    REQUIRE(yours[at] == library.tokens[at]);
  }
}

}  // namespace small_gpt
