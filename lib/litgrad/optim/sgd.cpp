#include "litgrad/optim/sgd.hpp"

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"

namespace litgrad::optim {

namespace {
HyperParameters defaults(const SGDOptions& o) {
  return {{"lr", o.lr},
          {"momentum", o.momentum},
          {"dampening", o.dampening},
          {"weight_decay", o.weight_decay},
          {"nesterov", o.nesterov ? 1.0 : 0.0}};
}
}  // namespace

SGD::SGD(std::vector<Tensor> params, SGDOptions options) : SGD(std::vector<ParamGroup>{{std::move(params)}}, options) {}

SGD::SGD(std::vector<ParamGroup> groups, SGDOptions options) : Optimizer("SGD", std::move(groups), defaults(options)) {
  check_groups();
}

std::vector<Optimizer::StateKey> SGD::state_layout() const { return {{"momentum_buffer", false}}; }

void SGD::check(const ParamGroup& group, std::size_t index) const {
  const double lr = group["lr"], momentum = group["momentum"], weight_decay = group["weight_decay"];
  const double nesterov = group["nesterov"];
  const std::string where = litgrad::detail::message(" (param group ", index, ")");
  if (!(lr >= 0) || !(momentum >= 0) || !(weight_decay >= 0) || !(group["dampening"] >= 0))
    throw ValueError("SGD: lr, momentum, dampening and weight_decay must be non-negative, got lr=", lr,
                     " momentum=", momentum, " dampening=", group["dampening"], " weight_decay=", weight_decay, where);
  if (nesterov != 0 && nesterov != 1) throw ValueError("SGD: nesterov must be 0 or 1, got ", nesterov, where);
  if (nesterov == 1 && (momentum <= 0 || group["dampening"] != 0))
    throw ValueError("SGD: Nesterov momentum requires a momentum and zero dampening", where);
}

void SGD::step() {
  check_groups();
  std::size_t k = 0;  // the parameter's index across the groups, which names its state
  for (const ParamGroup& group : param_groups()) {
    const double lr = group["lr"], momentum = group["momentum"], dampening = group["dampening"];
    const double weight_decay = group["weight_decay"];
    const bool nesterov = group["nesterov"] == 1;
    for (const Tensor& param : group.params) {
      ParamState& state = this->state(k++);
      Tensor p = param;
      if (!p.requires_grad()) continue;  // frozen
      const Tensor grad = p.grad();
      if (!grad.defined()) continue;
      const bool first = state.empty();
      if (momentum != 0 && first) state.emplace_back("momentum_buffer", zeros(p.shape()));
      double* buf = momentum != 0 ? state.front().second.data() : nullptr;
      const double* gv = grad.data();
      double* pv = p.data();
      litgrad::detail::bump_version(p);  // the update is in place, as torch's
      const std::int64_t n = p.numel();
      for (std::int64_t i = 0; i < n; ++i) {
        double g = gv[i] + weight_decay * pv[i];
        if (momentum != 0) {
          buf[i] = first ? g : momentum * buf[i] + (1 - dampening) * g;
          g = nesterov ? g + momentum * buf[i] : buf[i];
        }
        pv[i] -= lr * g;
      }
    }
  }
}

}  // namespace litgrad::optim
