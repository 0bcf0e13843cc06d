#pragma once
/// \file loss.hpp
/// \brief Losses: mean squared error, cross-entropy, negative log-likelihood and binary
/// cross-entropy, with torch's `reduction` choices.

#include <cstdint>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief How a loss turns per-element losses into its result, as torch's `reduction=`.
enum class Reduction {
  None,  ///< one loss per element (per row for cross_entropy), unreduced
  Mean,  ///< their mean (the default)
  Sum    ///< their sum
};

/// \brief `(input - target)²`, reduced: torch's `mse_loss`.
/// \throws ShapeError when the shapes differ (torch only warns and broadcasts, which is
///   almost always a bug: `[N,1]` against `[N]` silently becomes `[N,N]`).
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

/// \brief The options of cross_entropy beyond the reduction; defaults as torch.
struct CrossEntropyOptions {
  std::int64_t ignore_index = -100;       ///< a class index whose rows count for nothing
  Reduction reduction = Reduction::Mean;  ///< mean over the rows that count, sum, or none
  double label_smoothing = 0.0;           ///< ε: the target spread ε / C over every class
};

/// \brief The cross-entropy between scores and targets, as torch's `cross_entropy`.
///
/// **Class-index targets**: input `[N, C]` scores (logits) and target `[N]` Int64 classes (or
/// input `[C]` and a 0-dimensional target). Each row's loss is `-log softmax(input)[target]`;
/// with label smoothing ε it is `(1 - ε)` of that plus `ε / C` times the sum of
/// `-log softmax(input)` over all classes. A row whose target is `ignore_index` has loss 0 and
/// is left out of the mean (all rows ignored: the mean is NaN, as torch's).
///
/// **Class-probability targets**: a Float64 target of the input's shape, each row a
/// distribution; the loss is `-sum_c target_c log softmax(input)_c` (with ε, the target is
/// first mixed as `(1 - ε) target + ε / C`), and the mean is over all N rows.
///
/// **More dimensions**, as torch: input `[N, C, d1, ..., dk]` (the classes along dimension 1)
/// with a target `[N, d1, ..., dk]` of classes (or probabilities of the input's shape): a loss
/// per position, `[N, d1, ..., dk]` with Reduction::None, otherwise their mean (over the
/// positions that count) or sum. A language model's scores `[N, T, V]` go in as
/// `transpose(scores, 1, 2)`, or flattened to `[N T, V]`.
///
/// The log-softmax subtracts each row's largest score first, so the loss is exact and finite
/// for scores of ±1000.
///
/// \throws ValueError for a target that is neither Int64 nor Float64, or ε outside [0, 1];
/// ShapeError for shapes that do not fit; IndexError for a class out of range.
///
/// \code
/// Tensor logits = tensor({{2, 0, 0}, {0, 0, 2}});
/// cross_entropy(logits, tensor({0, 2}, {2}, DType::Int64));   // -log(e²/(e²+2)) = 0.2395
/// \endcode
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& options);
/// \brief cross_entropy() with every option at its default but the reduction.
Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

/// \brief The negative log-likelihood, as torch's `nll_loss`: input `[N, C]` log-probabilities
/// (or `[C]`), target `[N]` Int64 classes (or 0-dimensional); each row's loss is
/// `-input[target]`, and rows whose target is \p ignore_index count for nothing.
/// `nll_loss(log_softmax(x, 1), t)` is `cross_entropy(x, t)`.
/// \throws as cross_entropy() with class indices.
Tensor nll_loss(const Tensor& input, const Tensor& target, std::int64_t ignore_index = -100,
                Reduction reduction = Reduction::Mean);

/// \brief The binary cross-entropy of scores, as torch's `binary_cross_entropy_with_logits`:
/// per element `-(t log σ(x) + (1 - t) log(1 - σ(x)))`, computed as
/// `max(x, 0) - x t + log(1 + e^-|x|)`, which is exact and finite for scores of ±1000. Its
/// gradient is `σ(x) - t` for the input and `-x` for the target. input and target have the
/// same shape. \throws ShapeError when they differ.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        Reduction reduction = Reduction::Mean);

}  // namespace litgrad
