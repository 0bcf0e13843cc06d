#pragma once
/// \file optim/optimizer.hpp
/// \brief The base of the optimisers: a list of parameters, `zero_grad()` and `step()`.

#include <string>
#include <vector>

#include "litgrad/tensor.hpp"

namespace litgrad::optim {

/// \brief A list of parameters and the learning rate they are updated with, as one of torch's
/// `param_groups`: `opt.param_groups()[0].lr = 0.01` is torch's
/// `opt.param_groups[0]["lr"] = 0.01`, and the next step() uses it.
struct ParamGroup {
  std::vector<Tensor> params;  ///< the tensors this group updates
  double lr;                   ///< the learning rate of the next step()
};

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
  /// \brief Takes the tensors to update (handles: the optimiser updates the tensors themselves)
  /// as one group with learning rate \p lr. \throws ValueError when a parameter does not
  /// require grad, or for a negative or NaN lr.
  Optimizer(std::vector<Tensor> params, double lr);
  virtual ~Optimizer() = default;
  /// \brief Zeros every parameter's gradient.
  void zero_grad();
  /// \brief Moves every parameter that has a gradient; parameters without one are skipped.
  virtual void step() = 0;
  /// \brief The parameter groups (one, holding every parameter), whose `lr` may be read and set.
  std::vector<ParamGroup>& param_groups() { return groups_; }
  /// \brief The parameter groups, read only.
  const std::vector<ParamGroup>& param_groups() const { return groups_; }

 protected:
  std::vector<Tensor> params_;  ///< the parameters, in the order given
  /// \brief The learning rate of the next step, checked to be a number at least 0.
  /// \throws ValueError otherwise, naming \p optimizer.
  double learning_rate(const char* optimizer) const;

 private:
  std::vector<ParamGroup> groups_;
};

/// \cond INTERNAL
/// A number as `%g` prints it (1e-08, 0.9): for the optimisers' error messages.
std::string format(double x);
/// \endcond

}  // namespace litgrad::optim
