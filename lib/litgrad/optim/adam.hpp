#pragma once
/// \file optim/adam.hpp
/// \brief Adam (Kingma and Ba, 2015), with `torch.optim.Adam`'s formula and defaults.

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

 private:
  AdamOptions options_;
  std::int64_t t_ = 0;                       // steps taken
  std::vector<std::vector<double>> m_, v_;   // running means, one per parameter
};

}  // namespace litgrad::optim
