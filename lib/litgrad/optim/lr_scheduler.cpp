#include "litgrad/optim/lr_scheduler.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/base/error.hpp"

namespace litgrad::optim::lr_scheduler {

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(std::int64_t)> lr_lambda)
    : LambdaLR(optimizer,
               std::vector<std::function<double(std::int64_t)>>(optimizer.param_groups().size(), lr_lambda)) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<std::function<double(std::int64_t)>> lr_lambdas)
    : optimizer_(optimizer), lambdas_(std::move(lr_lambdas)) {
  if (lambdas_.size() != optimizer.param_groups().size())
    throw ValueError("LambdaLR: ", lambdas_.size(), " lr_lambdas for ", optimizer.param_groups().size(),
                     " param groups");
  for (const auto& lambda : lambdas_)
    if (!lambda) throw ValueError("LambdaLR: no lr_lambda given");
  for (const auto& group : optimizer.param_groups()) base_lrs_.push_back(group["lr"]);
  apply();
}

void LambdaLR::step() {
  ++t_;
  apply();
}

void LambdaLR::apply() {
  auto& groups = optimizer_.param_groups();
  if (groups.size() != lambdas_.size())
    throw ValueError("LambdaLR: the optimiser has ", groups.size(), " param groups, the schedule ", lambdas_.size(),
                     " (add groups before making the schedule)");
  std::vector<double> rates;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double factor = lambdas_[g](t_);
    if (!(factor >= 0))
      throw ValueError("LambdaLR: the factor at step ", t_, " is ", factor, "; it must be at least 0");
    rates.push_back(base_lrs_[g] * factor);
  }
  for (std::size_t g = 0; g < groups.size(); ++g) groups[g]["lr"] = rates[g];
  last_lrs_ = std::move(rates);
}

StateDict LambdaLR::state_dict() const {
  const auto groups = static_cast<std::int64_t>(base_lrs_.size());
  StateDict dict;
  dict.insert("base_lrs", tensor(base_lrs_, {groups}));
  dict.insert("last_epoch", tensor({static_cast<double>(t_)}, {}, DType::Int64));
  dict.insert("_last_lr", tensor(last_lrs_, {groups}));
  return dict;
}

void LambdaLR::load_state_dict(const StateDict& dict) {
  IncompatibleKeys keys;
  for (const char* key : {"base_lrs", "last_epoch", "_last_lr"})
    if (!dict.contains(key)) keys.missing_keys.push_back(key);
  for (const auto& [key, value] : dict)
    if (key != "base_lrs" && key != "last_epoch" && key != "_last_lr") keys.unexpected_keys.push_back(key);
  litgrad::detail::check_keys("LambdaLR", keys);
  const auto groups = static_cast<std::int64_t>(base_lrs_.size());
  litgrad::detail::check_entry("LambdaLR", "base_lrs", dict.at("base_lrs"), {groups}, DType::Float64);
  litgrad::detail::check_entry("LambdaLR", "_last_lr", dict.at("_last_lr"), {groups}, DType::Float64);
  litgrad::detail::check_entry("LambdaLR", "last_epoch", dict.at("last_epoch"), {}, DType::Int64);
  const double epoch = dict.at("last_epoch").item();
  if (!(epoch >= 0)) throw ValueError("LambdaLR.load_state_dict: last_epoch is ", epoch, ", below 0");
  base_lrs_ = dict.at("base_lrs").to_vector();
  last_lrs_ = dict.at("_last_lr").to_vector();
  t_ = static_cast<std::int64_t>(epoch);
}

namespace {
// One factor per group: lr / base_lr of that group's closed form.
std::vector<std::function<double(std::int64_t)>> cosine_factors(Optimizer& optimizer, std::int64_t T_max,
                                                                double eta_min) {
  if (T_max < 1) throw ValueError("CosineAnnealingLR: T_max must be at least 1, got ", T_max);
  std::vector<std::function<double(std::int64_t)>> factors;
  for (const auto& group : optimizer.param_groups()) {
    const double base = group["lr"];
    factors.push_back([base, T_max, eta_min](std::int64_t t) {
      const double lr =
          eta_min + (base - eta_min) * (1 + std::cos(M_PI * static_cast<double>(t) / static_cast<double>(T_max))) / 2;
      return base == 0 ? 0.0 : lr / base;
    });
  }
  return factors;
}
}  // namespace

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min)
    : schedule_(optimizer, cosine_factors(optimizer, T_max, eta_min)) {}

void CosineAnnealingLR::step() { schedule_.step(); }

std::function<double(std::int64_t)> cosine_with_warmup(std::int64_t warmup, std::int64_t total, double final_factor) {
  if (warmup < 0 || total <= warmup)
    throw ValueError("cosine_with_warmup: need 0 <= warmup_steps < total_steps, got ", warmup, " and ", total);
  if (!(final_factor >= 0 && final_factor <= 1))
    throw ValueError("cosine_with_warmup: final_factor must be in [0, 1], got ", final_factor);
  return [warmup, total, final_factor](std::int64_t t) {
    if (t < warmup) return static_cast<double>(t) / static_cast<double>(warmup);
    const double progress = std::clamp(static_cast<double>(t - warmup) / static_cast<double>(total - warmup), 0.0, 1.0);
    return final_factor + (1 - final_factor) * (1 + std::cos(M_PI * progress)) / 2;
  };
}

}  // namespace litgrad::optim::lr_scheduler
