#pragma once
/// \file nn/init.hpp
/// \brief Filling parameters with random starting values, as `torch.nn.init`.
///
/// These write into the tensor's data in place and record nothing (they are not part of any
/// graph). Each draws from a Generator, so a seeded model starts identically on every machine;
/// torch uses its own generator, so the numbers differ from torch's while the distributions
/// are the same.

#include "litgrad/core/random.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad::nn::init {

/// \brief Fills \p t with numbers uniform in `[low, high)`. \throws ValueError unless low < high.
void uniform_(Tensor& t, double low, double high, Generator& gen = default_generator());

/// \brief Fills \p t with normal numbers of mean \p mean and standard deviation \p std
/// (`mean + std * z`, z standard normal), as `torch.nn.init.normal_`. `std = 0` writes
/// exactly \p mean. \throws ValueError unless std >= 0 (a NaN std included).
void normal_(Tensor& t, double mean = 0.0, double std = 1.0, Generator& gen = default_generator());

/// \brief Fills \p t with \p value, as `torch.nn.init.constant_`.
void constant_(Tensor& t, double value);

/// \brief Fills \p t with zeros, as `torch.nn.init.zeros_`.
void zeros_(Tensor& t);

/// \brief Fills \p t with ones, as `torch.nn.init.ones_`.
void ones_(Tensor& t);

/// \brief Glorot and Bengio's uniform: bound `gain * sqrt(6 / (fan_in + fan_out))` for a 2-D
/// weight `[fan_out, fan_in]`. \throws ShapeError for fewer than 2 dimensions.
void xavier_uniform_(Tensor& t, double gain = 1.0, Generator& gen = default_generator());

/// \brief Glorot and Bengio's normal: standard deviation `gain * sqrt(2 / (fan_in + fan_out))`,
/// fans as xavier_uniform_(). \throws ShapeError for fewer than 2 dimensions.
void xavier_normal_(Tensor& t, double gain = 1.0, Generator& gen = default_generator());

}  // namespace litgrad::nn::init
