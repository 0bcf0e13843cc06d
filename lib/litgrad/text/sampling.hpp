#pragma once
/// \file sampling.hpp
/// \brief Choosing the next token from a model's scores: greedy, temperature, top-k and top-p
/// (nucleus) sampling.
///
/// torch has no sampling API; these follow the semantics of Hugging Face's `generate()`
/// (its `TemperatureLogitsWarper`, `TopKLogitsWarper` and `TopPLogitsWarper`, applied in that
/// order, then one multinomial draw). Scores (logits) are `[..., V]`, V tokens along the last
/// dimension; each row is one distribution.
///
/// Sampling records no autograd graph: sample() returns Int64 ids that no gradient reaches.
/// The two filters find their masks outside the graph and return `masked_fill(logits, mask,
/// -inf)`, so a gradient through them reaches the kept scores unchanged and the removed ones
/// not at all, as through masked_fill().
///
/// \code
/// Generator gen(0);
/// Tensor logits = model(context);                        // [B, V], the last position's scores
/// Tensor next = sample(logits, {0.8, 40, 0.95}, gen);    // [B] Int64 ids
/// \endcode

#include <cstdint>

#include "litgrad/core/random.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief How sample() turns scores into a draw, as Hugging Face `generate()`'s arguments of
/// the same names.
struct SamplingOptions {
  /// \brief Scores are divided by it before the filters: below 1 sharpens the distribution,
  /// above 1 flattens it; 0 means greedy (argmax). Must be >= 0 and finite.
  double temperature = 1.0;
  /// \brief 0 keeps every token; else top_k_filter() keeps the k highest scores (and every
  /// score tied with the k-th).
  std::int64_t top_k = 0;
  /// \brief 1 keeps every token; else top_p_filter() keeps the smallest set of most likely
  /// tokens whose probabilities sum to at least top_p. In (0, 1].
  double top_p = 1.0;
};

/// \brief Scores `[..., V]` with every score below the k-th highest of its row set to -inf
/// (`TopKLogitsWarper`): the k highest stay, and so does every score tied with the k-th, so a
/// row can keep more than k. `k = 0` or `k >= V` keeps every score: the result is \p logits
/// itself, every bit unchanged. A NaN ranks above every number, as in topk().
/// \throws ValueError for k < 0, logits that are not Float64, or V = 0; ShapeError for 0-d
///   logits.
Tensor top_k_filter(const Tensor& logits, std::int64_t k);

/// \brief Scores `[..., V]` with every token outside its row's nucleus set to -inf (nucleus
/// sampling, Holtzman et al. 2020, "The Curious Case of Neural Text Degeneration").
///
/// The nucleus is the smallest set of most likely tokens whose probabilities
/// (`softmax(logits, -1)`) sum to at least \p p: the tokens are ranked by probability, equal
/// probabilities by position (the first first), and kept while the probabilities ranked
/// above them sum (left to right, in rank order) to less than \p p. The most likely token is
/// always kept. `p = 1` keeps every token: the result is \p logits itself, every bit
/// unchanged (also when rounding makes a running sum reach 1 before the last token).
/// \throws ValueError for p outside (0, 1] or NaN, logits that are not Float64, or V = 0;
///   ShapeError for 0-d logits.
Tensor top_p_filter(const Tensor& logits, double p);

/// \brief One token id drawn from each row of scores `[..., V]`: Int64 ids of shape `[...]`
/// (1-D scores `[V]` give a 0-dimensional id, as `argmax(logits, -1)`).
///
/// Temperature 0 gives `argmax(logits, -1)` (the first of tied scores) and draws nothing.
/// Otherwise the scores are divided by the temperature, filtered by top_k_filter() and then
/// top_p_filter(), and one id per row is drawn by `multinomial(softmax(scores, -1), 1, false,
/// gen)`, rows in row-major order. With the default options the draws are exactly
/// multinomial's from a generator in the same state (dividing by 1 and both filters change no
/// bit).
/// \throws ValueError for a negative, NaN or infinite temperature, top_k < 0, top_p outside
///   (0, 1], logits that are not Float64, V = 0, or scores that give no distribution to draw
///   from (a NaN or +inf score, a row of -inf); ShapeError for 0-d logits.
Tensor sample(const Tensor& logits, const SamplingOptions& options = {}, Generator& gen = default_generator());

}  // namespace litgrad
