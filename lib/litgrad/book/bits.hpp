#pragma once
/// \file book/bits.hpp
/// \brief The two measures of rounding that chapters share: \f$u\f$, the unit roundoff of a
/// double, in which the chapters' rounding bounds are written, and how many elements of two
/// tensors differ in any bit, which their claims of bitwise agreement count.

#include <cstdint>

#include "litgrad/core/tensor.hpp"

namespace litgrad::book {

/// \brief \f$u = 2^{-53}\f$, the unit roundoff of a double (chapter 1): an operation's exact
/// result is rounded to a double within a relative \f$u\f$.
inline constexpr double kU = 0x1p-53;

/// \brief How many elements of \p a and \p b differ in any bit: 0 when the two are the same
/// numbers, bit for bit (a NaN equals a NaN only with the same bits; +0 and -0 differ).
/// \throws ShapeError unless the two have one shape.
std::int64_t differing_bits(const Tensor& a, const Tensor& b);

}  // namespace litgrad::book
