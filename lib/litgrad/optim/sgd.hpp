#pragma once
/// \file optim/sgd.hpp
/// \brief Stochastic gradient descent with momentum, as `torch.optim.SGD`.

#include "litgrad/optim/optimizer.hpp"

namespace litgrad::optim {

/// \brief SGD's settings; the defaults are torch's (torch requires lr; so do we, below).
struct SGDOptions {
  double lr;                  ///< the learning rate (required)
  double momentum = 0;        ///< the momentum factor; 0 is plain SGD
  double dampening = 0;       ///< scales the new gradient's share of the momentum buffer
  double weight_decay = 0;    ///< adds weight_decay * p to the gradient (L2 penalty)
  bool nesterov = false;      ///< Nesterov momentum (needs momentum > 0 and no dampening)
};

/// \brief torch's update: `g = grad + wd p`; with momentum `b = g` on the first step and
/// `b = momentum b + (1 - dampening) g` after, `g = b` (or `g + momentum b` with Nesterov);
/// then `p -= lr g`.
class SGD : public Optimizer {
 public:
  /// \throws ValueError for a negative lr, momentum or weight decay, or Nesterov without
  /// momentum or with dampening.
  SGD(std::vector<Tensor> params, SGDOptions options);
  void step() override;

 private:
  SGDOptions options_;
  std::vector<std::vector<double>> momentum_buffer_;  // one per parameter; empty until first used
};

}  // namespace litgrad::optim
