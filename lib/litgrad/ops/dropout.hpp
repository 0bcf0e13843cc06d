#pragma once
/// \file dropout.hpp
/// \brief Dropout: zeroing random elements during training, as `torch.nn.functional.dropout`.

#include "litgrad/core/random.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief Each element is zeroed with probability \p p and the survivors are scaled by
/// `1 / (1 - p)`, so the expected value is unchanged; the identity when \p training is false
/// or \p p is 0. Differentiable: the gradient passes through the same mask and scale.
///
/// Shapes: any; the result has x's shape. The mask comes from \p gen, so a seeded run drops
/// the same elements every time (but not the ones torch would drop: its generator differs).
/// \throws ValueError unless 0 <= p <= 1.
///
/// \code
/// Generator gen(0);
/// Tensor y = dropout(ones({1000}), 0.25, /*training=*/true, gen);   // about 750 elements 4/3, the rest 0
/// \endcode
Tensor dropout(const Tensor& x, double p, bool training = true, Generator& gen = default_generator());

}  // namespace litgrad
