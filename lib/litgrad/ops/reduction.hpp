#pragma once
/// \file reduction.hpp
/// \brief Reductions over dimensions: sum, mean, max and min, their positions, variance,
/// norms and the top k, with torch's `keepdim`.
///
/// `keepdim = true` keeps each reduced dimension with size 1, so the result still broadcasts
/// against the input: `x - max(x, -1, true).values` subtracts each row's maximum.

#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief The sum of all elements, as a 0-dimensional tensor.
Tensor sum(const Tensor& x);
/// \brief Sums over the listed dimensions: `[2,3,4]` over `{0, 2}` gives `[3]`, or `[1,3,1]`
/// with \p keepdim. \throws IndexError for a dimension out of range; ShapeError for a repeat.
///
/// \code
/// Tensor x = reshape(arange(6), {2, 3});
/// sum(x, {1});          // [3, 12], shape [2]
/// sum(x, {1}, true);    // shape [2,1], broadcasts against x
/// \endcode
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false);
/// \brief The mean of all elements (NaN for an empty tensor, as torch).
Tensor mean(const Tensor& x);
/// \brief Means over the listed dimensions, shapes as sum().
Tensor mean(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false);

/// \brief The result of max() along a dimension: the values and where they are.
struct MaxResult {
  Tensor values;   ///< the largest element along the dimension (differentiable)
  Tensor indices;  ///< its position along the dimension, Int64 (the first one if tied)
};
/// \brief The largest element along \p dim and its position.
///
/// Shapes: `[..., n, ...]` gives `[..., ...]`, or `[..., 1, ...]` with \p keepdim. A NaN
/// anywhere along the dimension wins, as torch (a NaN is never hidden). The gradient goes to
/// the returned position. \throws ValueError for an empty dimension.
MaxResult max(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// \brief The largest element of the whole tensor, as a 0-dimensional tensor. Where several
/// elements tie for it, the gradient is shared evenly among them, as torch's `max()` shares it
/// (max along a dimension gives it to the one position it returns).
Tensor max(const Tensor& x);
/// \brief The smallest element along \p dim and its position (the first if tied), shapes as
/// max(); a NaN wins, as in max(). The gradient goes to the returned position.
MaxResult min(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// \brief The smallest element of the whole tensor, as a 0-dimensional tensor; ties share the
/// gradient evenly, as in max().
Tensor min(const Tensor& x);
/// \brief The position of the largest element along \p dim (the first if tied), Int64.
Tensor argmax(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// \brief The position of the largest element in the flattened tensor, a 0-dimensional Int64.
Tensor argmax(const Tensor& x);
/// \brief The position of the smallest element along \p dim (the first if tied), Int64.
Tensor argmin(const Tensor& x, std::int64_t dim, bool keepdim = false);
/// \brief The position of the smallest element in the flattened tensor, a 0-dimensional Int64.
Tensor argmin(const Tensor& x);

/// \brief The variance over the listed dimensions (all of them when \p dims is empty): the sum
/// of squared deviations from the mean divided by `N - correction`, N the number of elements
/// reduced, as torch 1.13's `var(input, dim, correction=1, keepdim)`. `correction = 1` is the
/// unbiased estimate (torch's `unbiased=True`, its default) and 0 the biased one
/// (`unbiased=False`): a bool passed here means just that. Shapes as sum(). With `N <=
/// correction` the result is NaN or inf, as torch's.
Tensor var(const Tensor& x, const std::vector<std::int64_t>& dims = {}, std::int64_t correction = 1,
           bool keepdim = false);
/// \brief `sqrt(var(x, dims, correction, keepdim))`, the standard deviation, as `torch.std`,
/// whose gradient is 0, as torch's, where the variance is 0 (a constant row: the square root's
/// own derivative would be infinite there, and every gradient NaN). Call it `litgrad::std(x)`:
/// after `using namespace litgrad`, a plain `std(x)` is ambiguous with the namespace std.
Tensor std(const Tensor& x, const std::vector<std::int64_t>& dims = {}, std::int64_t correction = 1,
           bool keepdim = false);
/// \brief The p-norm over the listed dimensions (all of them when \p dims is empty),
/// `(sum |x|^p)^(1/p)`, as `torch.linalg.vector_norm`: p = 2 is the Euclidean length, p = 1 the
/// sum of magnitudes, p = inf the largest magnitude. Its gradient at a zero vector is 0, as
/// torch's. \throws ValueError for p <= 0.
Tensor norm(const Tensor& x, double p = 2, const std::vector<std::int64_t>& dims = {}, bool keepdim = false);

/// \brief The \p k largest (or, with \p largest false, smallest) elements along \p dim and their
/// positions, as `torch.topk`: sorted from the largest (smallest) down when \p sorted; ties
/// keep the order they have along the dimension; a NaN counts as larger than any number, as
/// in torch. Shapes: `[..., n, ...]` gives `[..., k, ...]`. The gradient goes to the positions
/// picked. \throws ValueError unless 0 <= k <= n.
MaxResult topk(const Tensor& x, std::int64_t k, std::int64_t dim = -1, bool largest = true, bool sorted = true);

}  // namespace litgrad
