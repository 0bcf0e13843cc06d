#include "litgrad/optim/lr_scheduler.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/error.hpp"

namespace litgrad::optim::lr_scheduler {

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(std::int64_t)> lr_lambda)
    : optimizer_(optimizer), lambda_(std::move(lr_lambda)), base_lr_(optimizer.param_groups().front().lr) {
  if (!lambda_) throw ValueError("LambdaLR: no lr_lambda given");
  apply();
}

void LambdaLR::step() {
  ++t_;
  apply();
}

void LambdaLR::apply() {
  const double factor = lambda_(t_);
  if (!(factor >= 0))
    throw ValueError("LambdaLR: the factor at step " + std::to_string(t_) + " is " + format(factor) +
                     "; it must be at least 0");
  last_lr_ = base_lr_ * factor;
  for (auto& group : optimizer_.param_groups()) group.lr = last_lr_;
}

namespace {
std::function<double(std::int64_t)> cosine_factor(Optimizer& optimizer, std::int64_t T_max, double eta_min) {
  if (T_max < 1) throw ValueError("CosineAnnealingLR: T_max must be at least 1, got " + std::to_string(T_max));
  const double base = optimizer.param_groups().front().lr;
  return [base, T_max, eta_min](std::int64_t t) {
    const double lr = eta_min + (base - eta_min) * (1 + std::cos(M_PI * static_cast<double>(t) / static_cast<double>(T_max))) / 2;
    return base == 0 ? 0.0 : lr / base;
  };
}
}  // namespace

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min)
    : schedule_(optimizer, cosine_factor(optimizer, T_max, eta_min)) {}

void CosineAnnealingLR::step() { schedule_.step(); }

std::function<double(std::int64_t)> cosine_with_warmup(std::int64_t warmup, std::int64_t total, double final_factor) {
  if (warmup < 0 || total <= warmup)
    throw ValueError("cosine_with_warmup: need 0 <= warmup_steps < total_steps, got " + std::to_string(warmup) +
                     " and " + std::to_string(total));
  if (!(final_factor >= 0 && final_factor <= 1))
    throw ValueError("cosine_with_warmup: final_factor must be in [0, 1], got " + format(final_factor));
  return [warmup, total, final_factor](std::int64_t t) {
    if (t < warmup) return static_cast<double>(t) / static_cast<double>(warmup);
    const double progress = std::clamp(static_cast<double>(t - warmup) / static_cast<double>(total - warmup), 0.0, 1.0);
    return final_factor + (1 - final_factor) * (1 + std::cos(M_PI * progress)) / 2;
  };
}

}  // namespace litgrad::optim::lr_scheduler
