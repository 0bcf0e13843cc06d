#pragma once
/// \file optim/adam.hpp
/// \brief Adam (Kingma and Ba, 2015) and AdamW, with torch's formulas and defaults.

#include <utility>

#include "litgrad/optim/optimizer.hpp"

namespace litgrad::optim {

/// \brief Adam's settings; the defaults are torch's. They become the hyper-parameters `lr`,
/// `beta1`, `beta2`, `eps` and `weight_decay` of every group that does not set its own.
struct AdamOptions {
  double lr = 1e-3;         ///< the learning rate
  double beta1 = 0.9;       ///< decay of the running mean of gradients
  double beta2 = 0.999;     ///< decay of the running mean of squared gradients
  double eps = 1e-8;        ///< added to the denominator
  double weight_decay = 0;  ///< adds weight_decay * p to the gradient (L2, not AdamW)
  /// \brief Both betas at once, as Python's `betas=(0.9, 0.95)` and libtorch's
  /// `.betas({0.9, 0.95})`: `optim::AdamOptions{6e-4}.betas({0.9, 0.95})`.
  AdamOptions& betas(std::pair<double, double> both) {
    beta1 = both.first, beta2 = both.second;
    return *this;
  }
};

/// \brief torch's update, at step t = 1, 2, ...: `g = grad + wd p`,
/// `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g²`,
/// `p -= (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps)`. Each group uses its own
/// hyper-parameters. As in torch, each parameter counts its own steps t (its state `step`,
/// beside `exp_avg` m and `exp_avg_sq` v), so one that had no gradient for a while is not
/// corrected as if it had been stepped.
///
/// \code
/// optim::Adam opt(model.parameters(), {0.02});   // lr 0.02, torch's other defaults
/// \endcode
class Adam : public Optimizer {
 public:
  /// \brief One group of \p params. \throws ValueError for a negative lr, eps or weight
  /// decay, a beta outside [0, 1), or a parameter that cannot be optimised (see Optimizer).
  Adam(std::vector<Tensor> params, AdamOptions options = {});
  /// \brief Several groups, as torch's list of dictionaries: each group's own hyper-parameters,
  /// the others from \p defaults. \throws ValueError as above, or for a key Adam does not have.
  Adam(std::vector<ParamGroup> groups, AdamOptions defaults = {});
  void step() override;

 protected:
  /// \brief For AdamW: \p decoupled weight decay, and \p name in messages.
  Adam(std::vector<ParamGroup> groups, AdamOptions defaults, bool decoupled, const char* name);
  std::vector<StateKey> state_layout() const override;
  void check(const ParamGroup& group, std::size_t index) const override;

 private:
  bool decoupled_;
};

/// \brief AdamW's settings; the defaults are torch's, weight decay 0.01 among them.
struct AdamWOptions {
  double lr = 1e-3;            ///< the learning rate
  double beta1 = 0.9;          ///< decay of the running mean of gradients
  double beta2 = 0.999;        ///< decay of the running mean of squared gradients
  double eps = 1e-8;           ///< added to the denominator
  double weight_decay = 1e-2;  ///< shrinks each parameter by `lr * weight_decay` per step
  /// \brief Both betas at once, as Python's `betas=(0.9, 0.95)` and libtorch's
  /// `.betas({0.9, 0.95})`: `optim::AdamWOptions{6e-4}.betas({0.9, 0.95})`.
  AdamWOptions& betas(std::pair<double, double> both) {
    beta1 = both.first, beta2 = both.second;
    return *this;
  }
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
  /// \brief One group of \p params. \throws ValueError as Adam's.
  AdamW(std::vector<Tensor> params, AdamWOptions options = {})
      : AdamW(std::vector<ParamGroup>{{std::move(params)}}, options) {}
  /// \brief Several groups, each with its own hyper-parameters, the others from \p defaults
  /// (a group without weight decay: `{no_decay, {{"weight_decay", 0.0}}}`).
  /// \throws ValueError as Adam's.
  AdamW(std::vector<ParamGroup> groups, AdamWOptions defaults = {})
      : Adam(std::move(groups), {defaults.lr, defaults.beta1, defaults.beta2, defaults.eps, defaults.weight_decay},
             true, "AdamW") {}
};

}  // namespace litgrad::optim
