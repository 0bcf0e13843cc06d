#include "litgrad/optim/rmsprop.hpp"

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/kernels/parallel.hpp"

namespace litgrad::optim {

namespace {
HyperParameters defaults(const RMSpropOptions& o) {
  return {{"lr", o.lr},
          {"alpha", o.alpha},
          {"eps", o.eps},
          {"weight_decay", o.weight_decay},
          {"momentum", o.momentum},
          {"centered", o.centered ? 1.0 : 0.0}};
}
}  // namespace

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions options)
    : RMSprop(std::vector<ParamGroup>{{std::move(params)}}, options) {}

RMSprop::RMSprop(std::vector<ParamGroup> groups, RMSpropOptions options)
    : Optimizer("RMSprop", std::move(groups), defaults(options)) {
  check_groups();
}

std::vector<Optimizer::StateKey> RMSprop::state_layout() const {
  return {{"step", true}, {"square_avg", false}, {"momentum_buffer", false}, {"grad_avg", false}};
}

void RMSprop::check(const ParamGroup& group, std::size_t index) const {
  const double lr = group["lr"], alpha = group["alpha"], eps = group["eps"], weight_decay = group["weight_decay"];
  const double momentum = group["momentum"], centered = group["centered"];
  if (!(lr >= 0) || !(eps >= 0) || !(alpha >= 0 && alpha <= 1) || !(weight_decay >= 0) || !(momentum >= 0))
    throw ValueError("RMSprop: need lr >= 0, eps >= 0, 0 <= alpha <= 1, weight_decay >= 0, momentum >= 0; got lr=", lr,
                     " alpha=", alpha, " eps=", eps, " weight_decay=", weight_decay, " momentum=", momentum,
                     " (param group ", index, ")");
  if (centered != 0 && centered != 1)
    throw ValueError("RMSprop: centered must be 0 or 1, got ", centered, " (param group ", index, ")");
}

void RMSprop::step() {
  check_groups();
  std::size_t k = 0;  // the parameter's index across the groups, which names its state
  for (const ParamGroup& group : param_groups()) {
    const double lr = group["lr"], alpha = group["alpha"], eps = group["eps"], weight_decay = group["weight_decay"];
    const double momentum = group["momentum"];
    const bool centered = group["centered"] == 1;
    for (const Tensor& param : group.params) {
      ParamState& state = this->state(k++);
      Tensor p = param;
      if (!p.requires_grad()) continue;  // frozen
      const Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (state.empty())
        state = {{"step", scalar_tensor(0)},
                 {"square_avg", zeros(p.shape())},
                 {"momentum_buffer", zeros(p.shape())},
                 {"grad_avg", zeros(p.shape())}};
      state[0].second.data()[0] += 1;
      double* v = state[1].second.data();
      double* b = state[2].second.data();
      double* m = state[3].second.data();
      const double* gv = grad.data();
      double* pv = p.data();
      litgrad::detail::bump_version(p);  // the update is in place, as torch's
      // Each element on its own, so ranges of them go to different threads with the same bits;
      // torch's order of operations (mul_ then addcmul_, addcdiv_), so the rounding matches.
      kernels::in_ranges(p.numel(), kernels::kElementWork, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          const double g = weight_decay != 0 ? gv[i] + weight_decay * pv[i] : gv[i];
          v[i] = v[i] * alpha + (1 - alpha) * g * g;
          double mean_square = v[i];
          if (centered) {
            m[i] = m[i] * alpha + (1 - alpha) * g;
            mean_square = v[i] + -1.0 * m[i] * m[i];
          }
          const double denom = std::sqrt(mean_square) + eps;
          if (momentum > 0) {
            b[i] = b[i] * momentum + g / denom;
            pv[i] = pv[i] + -lr * b[i];
          } else {
            pv[i] = pv[i] + -lr * g / denom;
          }
        }
      });
    }
  }
}

}  // namespace litgrad::optim
