#pragma once
/// \file elementwise.hpp
/// \brief Element-by-element operations: arithmetic with broadcasting, the usual functions,
/// comparisons, `where` and `masked_fill`.
///
/// Binary operations broadcast by NumPy's and torch's rule (see broadcast_shapes()): `[2,1,3]`
/// with `[4,1]` gives `[2,4,3]`. The gradient of a broadcast operand is summed over the
/// dimensions it was stretched along, so it always has the operand's own shape.

#include <optional>
#include <string>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \name Arithmetic (differentiable, broadcasting)
///@{

/// \brief `a + b`. Shapes: broadcast(a, b).
Tensor add(const Tensor& a, const Tensor& b);
/// \brief `a - b`. Shapes: broadcast(a, b).
Tensor sub(const Tensor& a, const Tensor& b);
/// \brief `a * b`, elementwise. Shapes: broadcast(a, b).
Tensor mul(const Tensor& a, const Tensor& b);
/// \brief `a / b`, elementwise. Shapes: broadcast(a, b).
Tensor div(const Tensor& a, const Tensor& b);
/// \brief `-x`.
Tensor neg(const Tensor& x);
/// \brief `x` raised to a fixed power: `pow(x, 2.0)` squares.
Tensor pow(const Tensor& x, double exponent);
/// \brief `a` raised to the power `b`, elementwise, as torch.pow with a tensor exponent.
/// Shapes: broadcast(a, b). A negative base with an exponent that is not a whole number gives
/// NaN. The gradients are torch's: `b a^(b-1)` for the base, 0 where b is 0; `a^b ln a` for the
/// exponent, 0 where a is 0 and b is at least 0 (where the formula's 0 · -inf would give NaN).
Tensor pow(const Tensor& a, const Tensor& b);
/// \brief `base` raised to each power in `exponent`, as torch.pow(2.0, t). Shape: exponent's.
Tensor pow(double base, const Tensor& exponent);
///@}

/// \name Functions (differentiable, same shape out as in)
///@{

/// \brief e to the x.
Tensor exp(const Tensor& x);
/// \brief Natural logarithm; `-inf` at 0 and NaN below, as torch.
Tensor log(const Tensor& x);
/// \brief Hyperbolic tangent.
Tensor tanh(const Tensor& x);
/// \brief `1 / (1 + e^-x)`.
Tensor sigmoid(const Tensor& x);
/// \brief `|x|`; its gradient at exactly 0 is taken as 0, as torch.
Tensor abs(const Tensor& x);
/// \brief `max(x, 0)`; its gradient at exactly 0 is taken as 0, as torch.
Tensor relu(const Tensor& x);
/// \brief Sine.
Tensor sin(const Tensor& x);
/// \brief Cosine.
Tensor cos(const Tensor& x);
/// \brief Square root; NaN below 0, as torch. Its gradient `1 / (2 sqrt(x))` is `inf` at 0.
Tensor sqrt(const Tensor& x);
/// \brief Each element limited to `[min, max]`, as `torch.clamp`; either bound may be left out
/// (`std::nullopt`). The gradient passes where `min <= x <= max` and is 0 elsewhere, as torch.
/// A NaN stays NaN. \throws ValueError when both bounds are left out.
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max = std::nullopt);
/// \brief The Gaussian error linear unit, as `torch.nn.functional.gelu`: `x Φ(x)` with Φ the
/// standard normal's distribution function (\p approximate `"none"`, the default), or its tanh
/// approximation `0.5 x (1 + tanh(sqrt(2/π) (x + 0.044715 x³)))` (\p approximate `"tanh"`).
/// \throws ValueError for another \p approximate.
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
///@}

/// \name Comparisons (not differentiable; Bool results, broadcasting)
///@{

/// \brief `a == b`.
Tensor eq(const Tensor& a, const Tensor& b);
/// \brief `a != b`.
Tensor ne(const Tensor& a, const Tensor& b);
/// \brief `a < b`.
Tensor lt(const Tensor& a, const Tensor& b);
/// \brief `a <= b`.
Tensor le(const Tensor& a, const Tensor& b);
/// \brief `a > b`.
Tensor gt(const Tensor& a, const Tensor& b);
/// \brief `a >= b`.
Tensor ge(const Tensor& a, const Tensor& b);
/// \brief Logical not of a Bool tensor. \throws ValueError for other dtypes.
Tensor logical_not(const Tensor& mask);
/// \brief Logical and of two Bool tensors (broadcasting).
Tensor logical_and(const Tensor& a, const Tensor& b);
/// \brief Logical or of two Bool tensors (broadcasting).
Tensor logical_or(const Tensor& a, const Tensor& b);
///@}

/// \name Selecting
///@{

/// \brief `condition ? a : b` elementwise; differentiable in `a` and `b`.
///
/// Shapes: broadcast(condition, a, b). The gradient goes to `a` where the condition holds and
/// to `b` elsewhere (exactly 0 to the other, even where the other is NaN or infinite).
/// \throws ValueError when \p condition is not Bool.
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
/// \brief \p x with \p value wherever \p mask is true; differentiable in \p x.
///
/// Shapes: mask must broadcast to x, and the result has x's shape. A `-inf` fill is how
/// attention forbids a position: softmax then gives it weight exactly 0.
/// \throws ValueError when \p mask is not Bool; ShapeError when it does not broadcast to x.
///
/// \code
/// Tensor scores = tensor({{1, 2, 3}});
/// Tensor later = tensor({0, 1, 1}, {3}, DType::Bool);
/// softmax(masked_fill(scores, later, -INFINITY), -1);   // [[1, 0, 0]]
/// \endcode
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);
///@}

/// \name Operators
/// Shorthands for the functions above; a `double` operand acts as a 0-dimensional tensor.
///@{

Tensor operator+(const Tensor& a, const Tensor& b);   ///< add(a, b)
Tensor operator-(const Tensor& a, const Tensor& b);   ///< sub(a, b)
Tensor operator*(const Tensor& a, const Tensor& b);   ///< mul(a, b)
Tensor operator/(const Tensor& a, const Tensor& b);   ///< div(a, b)
Tensor operator-(const Tensor& x);                    ///< neg(x)
Tensor operator+(const Tensor& a, double b);          ///< add(a, b)
Tensor operator-(const Tensor& a, double b);          ///< sub(a, b)
Tensor operator*(const Tensor& a, double b);          ///< mul(a, b)
Tensor operator/(const Tensor& a, double b);          ///< div(a, b)
Tensor operator+(double a, const Tensor& b);          ///< add(a, b)
Tensor operator-(double a, const Tensor& b);          ///< sub(a, b)
Tensor operator*(double a, const Tensor& b);          ///< mul(a, b)
Tensor operator/(double a, const Tensor& b);          ///< div(a, b)
Tensor operator<(const Tensor& a, double b);          ///< lt(a, b): a Bool tensor
Tensor operator<=(const Tensor& a, double b);         ///< le(a, b): a Bool tensor
Tensor operator>(const Tensor& a, double b);          ///< gt(a, b): a Bool tensor
Tensor operator>=(const Tensor& a, double b);         ///< ge(a, b): a Bool tensor
Tensor operator==(const Tensor& a, double b);         ///< eq(a, b): a Bool tensor
Tensor operator!=(const Tensor& a, double b);         ///< ne(a, b): a Bool tensor
Tensor operator<(const Tensor& a, const Tensor& b);   ///< lt(a, b): a Bool tensor
Tensor operator<=(const Tensor& a, const Tensor& b);  ///< le(a, b): a Bool tensor
Tensor operator>(const Tensor& a, const Tensor& b);   ///< gt(a, b): a Bool tensor
Tensor operator>=(const Tensor& a, const Tensor& b);  ///< ge(a, b): a Bool tensor
/// \brief eq(a, b), elementwise, as torch's `a == b`: a Bool tensor, not whether the two
/// tensors are the same object (Tensor::is_same()) or hold equal values throughout
/// (`all(eq(a, b))`, or to_vector() comparisons).
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);  ///< ne(a, b): a Bool tensor
///@}

}  // namespace litgrad
