#pragma once
/// \file optim/lr_scheduler.hpp
/// \brief Learning-rate schedules, as `torch.optim.lr_scheduler`: each sets the optimiser's
/// learning rate from a step count, and `step()` moves to the next count.

#include <cstdint>
#include <functional>
#include <vector>

#include "litgrad/optim/optimizer.hpp"

namespace litgrad::optim::lr_scheduler {

/// \brief `lr = base_lr * lr_lambda(t)` at step t, as `torch.optim.lr_scheduler.LambdaLR`.
///
/// base_lr is the optimiser's learning rate when the schedule is made. Making it sets the rate
/// for t = 0; each step() (after the optimiser's step, as in torch) moves to t + 1.
///
/// \code
/// optim::AdamW opt(model.parameters(), {3e-3});
/// lr_scheduler::LambdaLR schedule(opt, lr_scheduler::cosine_with_warmup(100, 2000));
/// for (int t = 0; t < 2000; ++t) { ...; opt.step(); schedule.step(); }
/// \endcode
class LambdaLR {
 public:
  /// \brief The schedule of \p optimizer (which must outlive it), its factors from \p lr_lambda.
  /// \throws ValueError when the factor at 0 is negative or NaN.
  LambdaLR(Optimizer& optimizer, std::function<double(std::int64_t)> lr_lambda);
  /// \brief Moves to the next step count and sets the learning rate for it.
  /// \throws ValueError when the factor is negative or NaN.
  void step();
  /// \brief The learning rate set last, as torch's `get_last_lr()[0]`.
  double get_last_lr() const { return last_lr_; }
  /// \brief The step count the current learning rate is for (torch's `last_epoch`).
  std::int64_t last_epoch() const { return t_; }

 private:
  void apply();
  Optimizer& optimizer_;
  std::function<double(std::int64_t)> lambda_;
  double base_lr_;
  std::int64_t t_ = 0;
  double last_lr_ = 0;
};

/// \brief `lr = eta_min + (base_lr - eta_min) (1 + cos(π t / T_max)) / 2`, as
/// `torch.optim.lr_scheduler.CosineAnnealingLR`'s closed form (torch itself updates the rate
/// step by step, which rounds differently in the last digits).
class CosineAnnealingLR {
 public:
  /// \throws ValueError for T_max < 1.
  CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min = 0);
  /// \brief Moves to the next step count and sets the learning rate for it.
  void step();
  /// \brief The learning rate set last.
  double get_last_lr() const { return schedule_.get_last_lr(); }

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
