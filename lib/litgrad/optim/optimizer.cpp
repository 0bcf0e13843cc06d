#include "litgrad/optim/optimizer.hpp"

#include "litgrad/error.hpp"

namespace litgrad::optim {

Optimizer::Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (!params_[i].defined() || !params_[i].requires_grad())
      throw ValueError("optimizer: parameter " + std::to_string(i) + " does not require grad");
}

void Optimizer::zero_grad() {
  for (Tensor& p : params_) p.zero_grad();
}

}  // namespace litgrad::optim
