#pragma once
/// \file positional_encoding.hpp
/// \brief Writing a token's position into its vector: a ramp, and the sinusoids of
/// "Attention Is All You Need" (Vaswani et al., 2017, section 3.5).
///
/// Attention compares tokens by content only, so it cannot tell positions apart; adding (or
/// concatenating) one of these encodings to each token gives it something to compare.

#include <cstdint>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief `[L, 1]`: position t encoded as `t / (L - 1)`, from 0 to 1 (0 alone for L = 1).
/// A query can only prefer earlier or later positions with it: a score affine in t peaks at
/// an end. \throws ValueError for L < 1.
Tensor ramp_positional_encoding(std::int64_t length);

/// \brief `[L, d]`: `sin(t / 10000^(2i/d))` in feature 2i and `cos(t / 10000^(2i/d))` in
/// feature 2i + 1, for t = 0..L-1 and i = 0..d/2-1.
///
/// Each pair of features is a point on the unit circle turning at its own rate, so every
/// position gets a distinct direction a query can point at.
/// \throws ValueError for an odd d (the features come in sin/cos pairs), d < 2 or L < 1.
///
/// \code
/// Tensor tokens = randn({8, 4});
/// Tensor with_position = cat({tokens, sinusoidal_positional_encoding(8, 8)}, 1);   // [8, 12]
/// \endcode
Tensor sinusoidal_positional_encoding(std::int64_t length, std::int64_t d);

}  // namespace litgrad
