#pragma once
/// \file optim/adam.hpp
/// \brief Adam (Kingma and Ba, 2015) and AdamW, with torch's formulas and defaults.

#include "litgrad/optim/optimizer.hpp"

namespace litgrad::optim {

/// \brief Adam's settings; the defaults are torch's.
struct AdamOptions {
  double lr = 1e-3;            ///< the learning rate
  double beta1 = 0.9;          ///< decay of the running mean of gradients
  double beta2 = 0.999;        ///< decay of the running mean of squared gradients
  double eps = 1e-8;           ///< added to the denominator
  double weight_decay = 0;     ///< adds weight_decay * p to the gradient (L2, not AdamW)
};

/// \brief torch's update, at step t = 1, 2, ...: `g = grad + wd p`,
/// `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g²`,
/// `p -= (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps)`.
///
/// \code
/// optim::Adam opt(model.parameters(), {0.02});   // lr 0.02, torch's other defaults
/// \endcode
class Adam : public Optimizer {
 public:
  /// \throws ValueError for a negative lr or eps, or a beta outside [0, 1).
  Adam(std::vector<Tensor> params, AdamOptions options = {});
  void step() override;

 protected:
  /// \brief For AdamW: \p decoupled weight decay, and \p name in messages.
  Adam(std::vector<Tensor> params, AdamOptions options, bool decoupled, const char* name);

 private:
  AdamOptions options_;
  bool decoupled_;
  const char* name_;
  std::int64_t t_ = 0;                       // steps taken
  std::vector<std::vector<double>> m_, v_;   // running means, one per parameter
};

/// \brief AdamW's settings; the defaults are torch's, weight decay 0.01 among them.
struct AdamWOptions {
  double lr = 1e-3;             ///< the learning rate
  double beta1 = 0.9;           ///< decay of the running mean of gradients
  double beta2 = 0.999;         ///< decay of the running mean of squared gradients
  double eps = 1e-8;            ///< added to the denominator
  double weight_decay = 1e-2;   ///< shrinks each parameter by `lr * weight_decay` per step
};

/// \brief AdamW (Loshchilov and Hutter, 2019), as `torch.optim.AdamW`: Adam's update with the
/// weight decay taken out of the gradient and applied to the parameter itself, first
/// `p *= 1 - lr wd`, then Adam's step with `g = grad`.
///
/// With Adam's L2 term the decay enters the moments and is divided by `sqrt(v)` like the
/// gradient, so parameters with large gradients decay less; AdamW's decay is the same fraction
/// for every parameter.
class AdamW : public Adam {
 public:
  /// \throws ValueError for a negative lr, eps or weight decay, or a beta outside [0, 1).
  AdamW(std::vector<Tensor> params, AdamWOptions options = {})
      : Adam(std::move(params), {options.lr, options.beta1, options.beta2, options.eps, options.weight_decay}, true,
             "AdamW") {}
};

}  // namespace litgrad::optim
