#include "litgrad/optim/sgd.hpp"

#include "litgrad/error.hpp"

namespace litgrad::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : Optimizer(std::move(params), options.lr), options_(options), momentum_buffer_(params_.size()) {
  if (!(options.lr >= 0) || !(options.momentum >= 0) || !(options.weight_decay >= 0))
    throw ValueError("SGD: lr, momentum and weight_decay must be non-negative, got lr=" + format(options.lr) +
                     " momentum=" + format(options.momentum) + " weight_decay=" + format(options.weight_decay));
  if (options.nesterov && (options.momentum <= 0 || options.dampening != 0))
    throw ValueError("SGD: Nesterov momentum requires a momentum and zero dampening");
}

void SGD::step() {
  const auto& o = options_;
  const double lr = learning_rate("SGD");
  for (std::size_t k = 0; k < params_.size(); ++k) {
    Tensor& p = params_[k];
    const Tensor grad = p.grad();
    if (!grad.defined()) continue;
    auto& buf = momentum_buffer_[k];
    const bool first = buf.empty();
    if (o.momentum != 0 && first) buf.resize(p.numel());
    const double* gv = grad.data();
    double* pv = p.data();
    const std::int64_t n = p.numel();
    for (std::int64_t i = 0; i < n; ++i) {
      double g = gv[i] + o.weight_decay * pv[i];
      if (o.momentum != 0) {
        buf[i] = first ? g : o.momentum * buf[i] + (1 - o.dampening) * g;
        g = o.nesterov ? g + o.momentum * buf[i] : buf[i];
      }
      pv[i] -= lr * g;
    }
  }
}

}  // namespace litgrad::optim
