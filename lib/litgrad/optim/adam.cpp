#include "litgrad/optim/adam.hpp"

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/kernels/parallel.hpp"

namespace litgrad::optim {

namespace {
HyperParameters defaults(const AdamOptions& o) {
  return {{"lr", o.lr}, {"beta1", o.beta1}, {"beta2", o.beta2}, {"eps", o.eps}, {"weight_decay", o.weight_decay}};
}
}  // namespace

Adam::Adam(std::vector<Tensor> params, AdamOptions options)
    : Adam(std::vector<ParamGroup>{{std::move(params)}}, options, false, "Adam") {}

Adam::Adam(std::vector<ParamGroup> groups, AdamOptions options) : Adam(std::move(groups), options, false, "Adam") {}

Adam::Adam(std::vector<ParamGroup> groups, AdamOptions options, bool decoupled, const char* name)
    : Optimizer(name, std::move(groups), defaults(options)), decoupled_(decoupled) {
  check_groups();
}

std::vector<Optimizer::StateKey> Adam::state_layout() const {
  return {{"step", true}, {"exp_avg", false}, {"exp_avg_sq", false}};
}

void Adam::check(const ParamGroup& group, std::size_t index) const {
  const double lr = group["lr"], beta1 = group["beta1"], beta2 = group["beta2"], eps = group["eps"];
  const double weight_decay = group["weight_decay"];
  if (!(lr >= 0) || !(eps >= 0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) || !(weight_decay >= 0))
    throw ValueError(name(), ": need lr >= 0, eps >= 0, 0 <= betas < 1, weight_decay >= 0; got lr=", lr, " betas=(",
                     beta1, ", ", beta2, ") eps=", eps, " weight_decay=", weight_decay, " (param group ", index, ")");
}

void Adam::step() {
  check_groups();
  std::size_t k = 0;  // the parameter's index across the groups, which names its state
  for (const ParamGroup& group : param_groups()) {
    const double lr = group["lr"], beta1 = group["beta1"], beta2 = group["beta2"], eps = group["eps"];
    const double weight_decay = group["weight_decay"];
    // Adam adds weight_decay p to the gradient (an L2 term, which the moments then rescale);
    // AdamW shrinks the parameter itself, p *= 1 - lr wd, before the update (Loshchilov and
    // Hutter, 2019), so the decay is not rescaled.
    const double l2 = decoupled_ ? 0.0 : weight_decay, shrink = decoupled_ ? 1 - lr * weight_decay : 1.0;
    // Each parameter counts its own steps, but they mostly agree: the bias corrections (two
    // pow and a sqrt, more than a small parameter's update costs) are worked out again only
    // for a count the last parameter did not have.
    double corrected_t = 0, bias_correction1 = 0, bias_correction2_sqrt = 0;
    for (const Tensor& param : group.params) {
      ParamState& state = this->state(k++);
      Tensor p = param;
      if (!p.requires_grad()) continue;  // frozen
      const Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (state.empty())
        state = {{"step", scalar_tensor(0)}, {"exp_avg", zeros(p.shape())}, {"exp_avg_sq", zeros(p.shape())}};
      double& t = state[0].second.data()[0];
      double* m = state[1].second.data();
      double* v = state[2].second.data();
      t += 1;
      // torch's order of operations, so that the rounding matches too.
      if (t != corrected_t) {
        corrected_t = t;
        bias_correction1 = 1 - std::pow(beta1, t);
        bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, t));
      }
      const double step_size = lr / bias_correction1;
      const double* gv = grad.data();
      double* pv = p.data();
      litgrad::detail::bump_version(p);  // the update is in place, as torch's
      // Each element on its own, so ranges of them go to different threads with the same bits.
      kernels::in_ranges(p.numel(), kernels::kElementWork, [&](std::int64_t begin, std::int64_t end) {
        if (shrink != 1.0)
          for (std::int64_t i = begin; i < end; ++i) pv[i] *= shrink;
        for (std::int64_t i = begin; i < end; ++i) {
          const double g = gv[i] + l2 * pv[i];
          m[i] = m[i] * beta1 + (1 - beta1) * g;
          v[i] = v[i] * beta2 + (1 - beta2) * g * g;
          const double denom = std::sqrt(v[i]) / bias_correction2_sqrt + eps;
          pv[i] -= step_size * (m[i] / denom);
        }
      });
    }
  }
}

}  // namespace litgrad::optim
