#include "litgrad/optim/optimizer.hpp"

#include <cstdio>
#include <string>

#include "litgrad/error.hpp"

namespace litgrad::optim {

std::string format(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

Optimizer::Optimizer(std::vector<Tensor> params, double lr) : params_(std::move(params)) {
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (!params_[i].defined() || !params_[i].requires_grad())
      throw ValueError("optimizer: parameter " + std::to_string(i) + " does not require grad");
  groups_.push_back({params_, lr});
}

double Optimizer::learning_rate(const char* optimizer) const {
  const double lr = groups_.front().lr;
  if (!(lr >= 0)) throw ValueError(std::string(optimizer) + ": the learning rate must be at least 0, got " + format(lr));
  return lr;
}

void Optimizer::zero_grad() {
  for (Tensor& p : params_) p.zero_grad();
}

}  // namespace litgrad::optim
