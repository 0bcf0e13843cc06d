#pragma once
/// \file optim/lr_scheduler.hpp
/// \brief Learning-rate schedules, as `torch.optim.lr_scheduler`: each sets the learning rate
/// of every parameter group of an optimiser from a step count, and `step()` moves to the next.

#include <cstdint>
#include <functional>
#include <vector>

#include "litgrad/core/state_dict.hpp"
#include "litgrad/optim/optimizer.hpp"

namespace litgrad::optim::lr_scheduler {

/// \brief `lr = base_lr * lr_lambda(t)` at step t for each group, as
/// `torch.optim.lr_scheduler.LambdaLR`.
///
/// Each group's base_lr is its learning rate when the schedule is made. Making it sets the
/// rates for t = 0; each step() (after the optimiser's step, as in torch) moves to t + 1.
///
/// \code
/// optim::AdamW opt(model.parameters(), {3e-3});
/// optim::lr_scheduler::LambdaLR schedule(opt, optim::lr_scheduler::cosine_with_warmup(100, 2000));
/// for (int t = 0; t < 2000; ++t) {
///   opt.zero_grad();
///   mse_loss(model(x), y).backward();
///   opt.step();
///   schedule.step();   // after the optimiser's step, as in torch
/// }
/// \endcode
///
/// state_dict() gives torch's `base_lrs` (one per group), `last_epoch` and `_last_lr`; the
/// factors themselves are code, which no state holds (torch leaves a plain function out too).
class LambdaLR {
 public:
  /// \brief The schedule of \p optimizer (which must outlive it), one factor for every group.
  /// \throws ValueError when the factor at 0 is negative or NaN.
  LambdaLR(Optimizer& optimizer, std::function<double(std::int64_t)> lr_lambda);
  /// \brief A factor for each group, as torch's list of lambdas. \throws ValueError when their
  /// number is not the number of groups, or as above.
  LambdaLR(Optimizer& optimizer, std::vector<std::function<double(std::int64_t)>> lr_lambdas);
  /// \brief Moves to the next step count and sets every group's learning rate for it.
  /// \throws ValueError when a factor is negative or NaN.
  void step();
  /// \brief The learning rate set last in the first group (torch's `get_last_lr()[0]`).
  double get_last_lr() const { return last_lrs_.front(); }
  /// \brief The learning rates set last, one per group (torch's `get_last_lr()`).
  const std::vector<double>& get_last_lrs() const { return last_lrs_; }
  /// \brief The step count the current learning rates are for (torch's `last_epoch`).
  std::int64_t last_epoch() const { return t_; }

  /// \brief `base_lrs`, `last_epoch` and `_last_lr`, as torch names them.
  StateDict state_dict() const;
  /// \brief Restores a state given by state_dict(); the optimiser's rates are restored by its
  /// own load_state_dict(), as in torch. \throws ValueError for a missing or unexpected key, or
  /// a number of rates that is not the number of groups.
  void load_state_dict(const StateDict& dict);

 private:
  void apply();
  Optimizer& optimizer_;
  std::vector<std::function<double(std::int64_t)>> lambdas_;
  std::vector<double> base_lrs_;
  std::int64_t t_ = 0;
  std::vector<double> last_lrs_;
};

/// \brief `lr = eta_min + (base_lr - eta_min) (1 + cos(π t / T_max)) / 2` for each group, as
/// `torch.optim.lr_scheduler.CosineAnnealingLR`'s closed form (torch itself updates the rate
/// step by step, which rounds differently in the last digits).
class CosineAnnealingLR {
 public:
  /// \throws ValueError for T_max < 1.
  CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min = 0);
  /// \brief Moves to the next step count and sets the learning rates for it.
  void step();
  /// \brief The learning rate set last in the first group.
  double get_last_lr() const { return schedule_.get_last_lr(); }
  /// \brief The learning rates set last, one per group.
  const std::vector<double>& get_last_lrs() const { return schedule_.get_last_lrs(); }
  /// \brief The step count the current learning rates are for.
  std::int64_t last_epoch() const { return schedule_.last_epoch(); }
  /// \brief As LambdaLR's.
  StateDict state_dict() const { return schedule_.state_dict(); }
  /// \brief As LambdaLR's. \throws ValueError as LambdaLR's.
  void load_state_dict(const StateDict& dict) { schedule_.load_state_dict(dict); }

 private:
  LambdaLR schedule_;
};

/// \brief A factor for LambdaLR that rises linearly from 0 over \p warmup_steps, then falls
/// along half a cosine to \p final_factor at \p total_steps and stays there: the schedule of
/// `transformers.get_cosine_schedule_with_warmup`, with a floor.
///
/// factor(t) = t / warmup for t < warmup; otherwise, with p = (t - warmup) / (total - warmup)
/// clamped to [0, 1], `final + (1 - final) (1 + cos(π p)) / 2`.
/// \throws ValueError for negative counts, total_steps <= warmup_steps, or a final factor
/// outside [0, 1].
std::function<double(std::int64_t)> cosine_with_warmup(std::int64_t warmup_steps, std::int64_t total_steps,
                                                       double final_factor = 0);

}  // namespace litgrad::optim::lr_scheduler
