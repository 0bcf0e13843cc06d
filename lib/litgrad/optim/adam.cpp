#include "litgrad/optim/adam.hpp"

#include <cmath>

#include "litgrad/error.hpp"

namespace litgrad::optim {

Adam::Adam(std::vector<Tensor> params, AdamOptions options)
    : Optimizer(std::move(params)), options_(options), m_(params_.size()), v_(params_.size()) {
  const auto& o = options;
  if (!(o.lr >= 0) || !(o.eps >= 0) || !(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1) ||
      !(o.weight_decay >= 0))
    throw ValueError("Adam: need lr >= 0, eps >= 0, 0 <= betas < 1, weight_decay >= 0; got lr=" + std::to_string(o.lr) +
                     " betas=(" + std::to_string(o.beta1) + ", " + std::to_string(o.beta2) +
                     ") eps=" + std::to_string(o.eps) + " weight_decay=" + std::to_string(o.weight_decay));
}

void Adam::step() {
  const auto& o = options_;
  ++t_;
  // torch's order of operations, so that the rounding matches too.
  const double bias_correction1 = 1 - std::pow(o.beta1, static_cast<double>(t_));
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, static_cast<double>(t_)));
  const double step_size = o.lr / bias_correction1;
  for (std::size_t k = 0; k < params_.size(); ++k) {
    Tensor& p = params_[k];
    const Tensor grad = p.grad();
    if (!grad.defined()) continue;
    if (m_[k].empty()) m_[k].assign(p.numel(), 0.0), v_[k].assign(p.numel(), 0.0);
    const double* gv = grad.data();
    double* pv = p.data();
    const std::int64_t n = p.numel();
    for (std::int64_t i = 0; i < n; ++i) {
      const double g = gv[i] + o.weight_decay * pv[i];
      double& m = m_[k][i];
      double& v = v_[k][i];
      m = m * o.beta1 + (1 - o.beta1) * g;
      v = v * o.beta2 + (1 - o.beta2) * g * g;
      const double denom = std::sqrt(v) / bias_correction2_sqrt + o.eps;
      pv[i] -= step_size * (m / denom);
    }
  }
}

}  // namespace litgrad::optim
