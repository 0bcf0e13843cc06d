#pragma once
/// \file loss.hpp
/// \brief Losses: mean squared error and cross-entropy, with torch's `reduction` choices.

#include "litgrad/tensor.hpp"

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

/// \brief `-log softmax(input)[target]` per row, reduced: torch's `cross_entropy` with class
/// indices.
///
/// Shapes: input `[N, C]` scores (logits) and target `[N]` Int64 classes in `[0, C)`; or input
/// `[C]` and a 0-dimensional target. \throws ValueError for a non-Int64 target;
/// ShapeError for mismatched shapes; IndexError for a class out of range.
///
/// \code
/// Tensor logits = tensor({{2, 0, 0}, {0, 0, 2}});
/// cross_entropy(logits, tensor({0, 2}, {2}, DType::Int64));   // -log(e²/(e²+2)) = 0.2395
/// \endcode
Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

}  // namespace litgrad
