// Chapter 10's speller made small, for its exercises (10.1 trains it, 10.2 writes with
// it): words of an invented language spelled as the chapter spells them, and section
// 2's model with section 3's dropout. Header-only, in each exercise's tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

// A batch of words: inputs and targets [N, T], each row a word (targets -100 after it).
struct Batch {
  litgrad::Tensor inputs, targets;
};

namespace small_speller {
using namespace litgrad;

inline constexpr std::int64_t kSymbols = 27, kPositions = 11, kWidth = 16;

// Words of an invented language, two to four consonant-vowel syllables, spelled as
// chapter 10 spells them: the boundary, the letters, then padding.
inline Batch invented_words(std::int64_t n, Generator& gen) {
  const std::string consonants = "bdklmnprst", vowels = "aeiou";
  std::vector<double> inputs(n * kPositions, 0), targets(n * kPositions, -100);
  for (std::int64_t b = 0; b < n; ++b) {
    std::string w;
    for (std::int64_t s = 0, len = 2 + gen.randint(0, 3); s < len; ++s)
      w += std::string(1, consonants[gen.randint(0, 10)]) + vowels[gen.randint(0, 5)];
    for (std::size_t t = 0; t < w.size(); ++t) {
      inputs[b * kPositions + t + 1] = w[t] - 'a' + 1;
      targets[b * kPositions + t] = w[t] - 'a' + 1;
    }
    targets[b * kPositions + w.size()] = 0;  // the end of the word
  }
  return {tensor(inputs, {n, kPositions}, DType::Int64),
          tensor(targets, {n, kPositions}, DType::Int64)};
}

// Section 2's model made small, with section 3's dropout: symbols [N, T] -> [N, T, 27].
struct SmallSpeller : nn::Module {
  nn::Embedding token, position;
  nn::TransformerEncoderLayer block;
  nn::LayerNorm norm;
  nn::Linear readout;
  explicit SmallSpeller(Generator& gen)
      : Module("SmallSpeller"),
        token(kSymbols, kWidth, std::nullopt, gen),
        position(kPositions, kWidth, std::nullopt, gen),
        block(kWidth, 2, options(), gen),
        norm({kWidth}),
        readout(kWidth, kSymbols, true, gen) {
    register_module("token", token), register_module("position", position);
    register_module("block", block), register_module("norm", norm);
    register_module("readout", readout);
  }
  static nn::TransformerEncoderLayerOptions options() {
    nn::TransformerEncoderLayerOptions o;
    o.dim_feedforward = 4 * kWidth, o.dropout = 0.2, o.activation = "gelu";
    o.batch_first = true, o.norm_first = true;
    return o;
  }
  Tensor forward(const Tensor& inputs) const {
    const Tensor x = token(inputs) + position(arange(inputs.size(1)));
    return readout(norm(block(x, generate_square_subsequent_mask(inputs.size(1)))));
  }
};

}  // namespace small_speller
