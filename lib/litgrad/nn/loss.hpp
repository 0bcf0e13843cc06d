#pragma once
/// \file nn/loss.hpp
/// \brief The loss modules, as torch's `nn.MSELoss`, `nn.CrossEntropyLoss`, `nn.NLLLoss` and
/// `nn.BCEWithLogitsLoss`: each holds its options and calls the loss function of the same
/// name (ops/loss.hpp), so `criterion(logits, targets)` is `cross_entropy(logits, targets,
/// options)`, bit for bit. They print as torch's do, `CrossEntropyLoss()`, without options.
///
/// \code
/// nn::CrossEntropyLoss criterion;              // torch's nn.CrossEntropyLoss()
/// Tensor loss = criterion(randn({4, 3}), tensor({0, 2, 1, 0}, {4}, DType::Int64));
/// \endcode

#include <cstdint>

#include "litgrad/nn/module.hpp"
#include "litgrad/ops/loss.hpp"

namespace litgrad::nn {

/// \brief `mse_loss(input, target, reduction)` as a module.
class MSELoss : public Module {
 public:
  /// \brief With torch's default reduction, the mean.
  explicit MSELoss(Reduction reduction = Reduction::Mean);
  Reduction reduction;  ///< mean, sum or none
  /// \brief mse_loss(). \throws ShapeError as mse_loss().
  Tensor forward(const Tensor& input, const Tensor& target) const;
  /// \brief forward().
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    const auto in_scope = scope();
    return forward(input, target);
  }
};

/// \brief `cross_entropy(input, target, options)` as a module: torch's
/// `nn.CrossEntropyLoss(ignore_index=-100, reduction="mean", label_smoothing=0.0)`.
class CrossEntropyLoss : public Module {
 public:
  /// \brief With torch's defaults. \throws ValueError for label smoothing outside [0, 1].
  explicit CrossEntropyLoss(CrossEntropyOptions options = {});
  CrossEntropyOptions options;  ///< ignore_index, reduction, label_smoothing
  /// \brief cross_entropy(). \throws as cross_entropy().
  Tensor forward(const Tensor& input, const Tensor& target) const;
  /// \brief forward().
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    const auto in_scope = scope();
    return forward(input, target);
  }
};

/// \brief `nll_loss(input, target, ignore_index, reduction)` as a module.
class NLLLoss : public Module {
 public:
  /// \brief With torch's defaults.
  explicit NLLLoss(std::int64_t ignore_index = -100, Reduction reduction = Reduction::Mean);
  std::int64_t ignore_index;  ///< a class whose rows count for nothing
  Reduction reduction;        ///< mean over the rows that count, sum, or none
  /// \brief nll_loss(). \throws as nll_loss().
  Tensor forward(const Tensor& input, const Tensor& target) const;
  /// \brief forward().
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    const auto in_scope = scope();
    return forward(input, target);
  }
};

/// \brief `binary_cross_entropy_with_logits(input, target, reduction)` as a module.
class BCEWithLogitsLoss : public Module {
 public:
  /// \brief With torch's default reduction, the mean.
  explicit BCEWithLogitsLoss(Reduction reduction = Reduction::Mean);
  Reduction reduction;  ///< mean, sum or none
  /// \brief binary_cross_entropy_with_logits(). \throws ShapeError when the shapes differ.
  Tensor forward(const Tensor& input, const Tensor& target) const;
  /// \brief forward().
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    const auto in_scope = scope();
    return forward(input, target);
  }
};

}  // namespace litgrad::nn
