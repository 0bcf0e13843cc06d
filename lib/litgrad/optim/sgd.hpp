#pragma once
/// \file optim/sgd.hpp
/// \brief Stochastic gradient descent with momentum, as `torch.optim.SGD`.

#include "litgrad/optim/optimizer.hpp"

namespace litgrad::optim {

/// \brief SGD's settings; the defaults are torch's (torch requires lr; so do we, below). They
/// become the hyper-parameters `lr`, `momentum`, `dampening`, `weight_decay` and `nesterov`
/// (0 or 1) of every group that does not set its own.
struct SGDOptions {
  double lr;                ///< the learning rate (required)
  double momentum = 0;      ///< the momentum factor; 0 is plain SGD
  double dampening = 0;     ///< scales the new gradient's share of the momentum buffer
  double weight_decay = 0;  ///< adds weight_decay * p to the gradient (L2 penalty)
  bool nesterov = false;    ///< Nesterov momentum (needs momentum > 0 and no dampening)
};

/// \brief torch's update: `g = grad + wd p`; with momentum `b = g` on the first step and
/// `b = momentum b + (1 - dampening) g` after, `g = b` (or `g + momentum b` with Nesterov);
/// then `p -= lr g`. Each group uses its own hyper-parameters; the buffer `b` is the state
/// `momentum_buffer` of each parameter.
class SGD : public Optimizer {
 public:
  /// \brief One group of \p params. \throws ValueError for a negative lr, momentum or weight
  /// decay, Nesterov without momentum or with dampening, or a parameter that cannot be
  /// optimised (see Optimizer).
  SGD(std::vector<Tensor> params, SGDOptions options);
  /// \brief Several groups, as torch's list of dictionaries: each group's own hyper-parameters,
  /// the others from \p defaults. \throws ValueError as above, or for a key SGD does not have.
  SGD(std::vector<ParamGroup> groups, SGDOptions defaults);
  void step() override;

 protected:
  std::vector<StateKey> state_layout() const override;
  void check(const ParamGroup& group, std::size_t index) const override;
};

}  // namespace litgrad::optim
