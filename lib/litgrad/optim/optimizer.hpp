#pragma once
/// \file optim/optimizer.hpp
/// \brief The base of the optimisers: a list of parameters, `zero_grad()` and `step()`.

#include <vector>

#include "litgrad/tensor.hpp"

namespace litgrad::optim {

/// \brief Updates a fixed list of parameters from their gradients, one step() at a time.
///
/// The usual loop, as in torch:
/// \code
/// opt.zero_grad();
/// Tensor loss = mse_loss(model(x), y);
/// loss.backward();
/// opt.step();
/// \endcode
class Optimizer {
 public:
  /// \brief Takes the tensors to update (handles: the optimiser updates the tensors themselves).
  /// \throws ValueError when a parameter does not require grad.
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer() = default;
  /// \brief Zeros every parameter's gradient.
  void zero_grad();
  /// \brief Moves every parameter that has a gradient; parameters without one are skipped.
  virtual void step() = 0;

 protected:
  std::vector<Tensor> params_;  ///< the parameters, in the order given
};

}  // namespace litgrad::optim
