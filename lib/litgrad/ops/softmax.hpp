#pragma once
/// \file softmax.hpp
/// \brief softmax and log_softmax along one dimension: turning scores into weights.
///
/// Both subtract the largest score before exponentiating, so large scores cannot overflow.
/// A `-inf` score gets weight exactly 0 (e to the -inf is 0, not merely small); a row whose
/// every score is `-inf` has no largest finite score and gives NaN in every entry, as torch.
/// A NaN score makes its whole row NaN: it is never hidden.

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief `exp(x_i) / sum_j exp(x_j)` along \p dim; same shape out as in, each slice along
/// \p dim non-negative and summing to one.
///
/// \code
/// Tensor w = softmax(tensor({{0, 0}, {0, -INFINITY}}), -1);   // [[0.5, 0.5], [1, 0]]
/// \endcode
Tensor softmax(const Tensor& x, std::int64_t dim);

/// \brief `x_i - log(sum_j exp(x_j))` along \p dim: the logarithm of softmax, computed
/// without forming the small numbers softmax would round to zero.
Tensor log_softmax(const Tensor& x, std::int64_t dim);

/// \brief `log(sum_j exp(x_j))` along \p dim, as `torch.logsumexp`, computed as
/// `m + log(sum_j exp(x_j - m))` with m the largest element so that nothing overflows: exact
/// and finite for scores of ±1000. A slice of only `-inf` gives `-inf`, as torch. Shapes:
/// `[..., n, ...]` gives `[..., ...]`, or `[..., 1, ...]` with \p keepdim. The gradient is
/// softmax along \p dim.
Tensor logsumexp(const Tensor& x, std::int64_t dim, bool keepdim = false);

}  // namespace litgrad
