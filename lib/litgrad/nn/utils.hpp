#pragma once
/// \file nn/utils.hpp
/// \brief `nn::utils::clip_grad_norm_`: gradients scaled down when their total norm is too large.

#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad::nn::utils {

/// \brief Scales the gradients of \p parameters so that their total norm is at most
/// \p max_norm, as `torch.nn.utils.clip_grad_norm_`, and returns the total norm they had.
///
/// The total norm is the \p norm_type-norm of all gradient elements together (the norm of
/// the per-parameter norms). When it exceeds \p max_norm, every gradient is multiplied by
/// `max_norm / (total + 1e-6)`, as torch; otherwise nothing changes. Parameters without a
/// gradient are skipped.
/// \throws ValueError for a negative max_norm or a norm_type <= 0.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0);

}  // namespace litgrad::nn::utils
