#include "litgrad/optim/adam.hpp"

#include <cmath>

#include "litgrad/error.hpp"

namespace litgrad::optim {

Adam::Adam(std::vector<Tensor> params, AdamOptions options) : Adam(std::move(params), options, false, "Adam") {}

Adam::Adam(std::vector<Tensor> params, AdamOptions options, bool decoupled, const char* name)
    : Optimizer(std::move(params), options.lr),
      options_(options),
      decoupled_(decoupled),
      name_(name),
      m_(params_.size()),
      v_(params_.size()) {
  const auto& o = options;
  if (!(o.lr >= 0) || !(o.eps >= 0) || !(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1) ||
      !(o.weight_decay >= 0))
    throw ValueError(std::string(name) + ": need lr >= 0, eps >= 0, 0 <= betas < 1, weight_decay >= 0; got lr=" +
                     format(o.lr) + " betas=(" + format(o.beta1) + ", " + format(o.beta2) + ") eps=" + format(o.eps) +
                     " weight_decay=" + format(o.weight_decay));
}

void Adam::step() {
  const auto& o = options_;
  const double lr = learning_rate(name_);
  ++t_;
  // torch's order of operations, so that the rounding matches too.
  const double bias_correction1 = 1 - std::pow(o.beta1, static_cast<double>(t_));
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, static_cast<double>(t_)));
  const double step_size = lr / bias_correction1;
  // Adam adds weight_decay p to the gradient (an L2 term, which the moments then rescale);
  // AdamW shrinks the parameter itself, p *= 1 - lr wd, before the update (Loshchilov and
  // Hutter, 2019), so the decay is not rescaled.
  const double l2 = decoupled_ ? 0.0 : o.weight_decay, shrink = decoupled_ ? 1 - lr * o.weight_decay : 1.0;
  for (std::size_t k = 0; k < params_.size(); ++k) {
    Tensor& p = params_[k];
    const Tensor grad = p.grad();
    if (!grad.defined()) continue;
    if (m_[k].empty()) m_[k].assign(p.numel(), 0.0), v_[k].assign(p.numel(), 0.0);
    const double* gv = grad.data();
    double* pv = p.data();
    const std::int64_t n = p.numel();
    if (shrink != 1.0)
      for (std::int64_t i = 0; i < n; ++i) pv[i] *= shrink;
    for (std::int64_t i = 0; i < n; ++i) {
      const double g = gv[i] + l2 * pv[i];
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
