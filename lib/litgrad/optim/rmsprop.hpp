#pragma once
/// \file optim/rmsprop.hpp
/// \brief RMSprop (Hinton's lecture 6e, 2012), with torch's formulas and defaults.

#include "litgrad/optim/optimizer.hpp"

namespace litgrad::optim {

/// \brief RMSprop's settings; the defaults are torch's. They become the hyper-parameters `lr`,
/// `alpha`, `eps`, `weight_decay`, `momentum` and `centered` (0 or 1) of every group that does
/// not set its own.
struct RMSpropOptions {
  double lr = 1e-2;         ///< the learning rate
  double alpha = 0.99;      ///< decay of the running mean of squared gradients
  double eps = 1e-8;        ///< added to the denominator, after the square root
  double weight_decay = 0;  ///< adds weight_decay * p to the gradient (L2 penalty)
  double momentum = 0;      ///< the momentum factor; 0 steps by the scaled gradient itself
  bool centered = false;    ///< divide by the gradient's estimated standard deviation, not its root mean square
};

/// \brief torch's update: `g = grad + wd p`, `v = alpha v + (1 - alpha) g²`; the denominator
/// `d = sqrt(v) + eps`, or with `centered`, `m = alpha m + (1 - alpha) g` and
/// `d = sqrt(v - m²) + eps`; then `p -= lr g / d`, or with momentum `b = momentum b + g / d`
/// and `p -= lr b`. Each group uses its own hyper-parameters.
///
/// A parameter's state is `step`, `square_avg` (v), `momentum_buffer` (b) and `grad_avg` (m),
/// in that order, torch's names. torch leaves out the last two when momentum is 0 or centered
/// is off; here they are always kept (as zeros while unused), so a group's momentum or
/// centered can be turned on between steps, where torch would fail for want of the buffer.
///
/// \code
/// optim::RMSprop opt(model.parameters(), {1e-3});  // torch.optim.RMSprop(params, lr=1e-3)
/// \endcode
class RMSprop : public Optimizer {
 public:
  /// \brief One group of \p params. \throws ValueError for a negative lr, eps, weight decay or
  /// momentum, an alpha outside [0, 1], centered other than 0 or 1, or a parameter that cannot
  /// be optimised (see Optimizer).
  RMSprop(std::vector<Tensor> params, RMSpropOptions options = {});
  /// \brief Several groups, as torch's list of dictionaries: each group's own hyper-parameters,
  /// the others from \p defaults. \throws ValueError as above, or for a key RMSprop does not have.
  RMSprop(std::vector<ParamGroup> groups, RMSpropOptions defaults = {});
  void step() override;

 protected:
  std::vector<StateKey> state_layout() const override;
  void check(const ParamGroup& group, std::size_t index) const override;
};

}  // namespace litgrad::optim
