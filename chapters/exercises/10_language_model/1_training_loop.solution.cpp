// Exercise 10.1 · The training loop, yourself: the reference solution.
#include <functional>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Batch {
  Tensor inputs, targets;
};
struct LoopOptions {
  int steps = 0, warmup = 0, every = 0;
  double rate = 0;
};
struct TrainingRecord {
  std::vector<double> training, validation;
};
using Scores = std::function<Tensor(const Tensor&)>;

TrainingRecord train_loop(nn::Module& model, const Scores& scores,
                          const std::function<Batch()>& next_batch,
                          const Batch& validation, const LoopOptions& options) {
  // The mean loss over a batch's predictions that are not padding (-100).
  const auto loss_of = [&](const Batch& b) {
    const Tensor s = scores(b.inputs);  // [N, T, 27]
    return cross_entropy(s.reshape({-1, s.size(-1)}), b.targets.reshape({-1}));
  };
  optim::AdamW adam(model.parameters(), {options.rate});
  optim::lr_scheduler::LambdaLR schedule(
      adam, optim::lr_scheduler::cosine_with_warmup(options.warmup, options.steps));
  TrainingRecord record;
  for (int step = 1; step <= options.steps; ++step) {
    const Batch b = next_batch();
    adam.zero_grad();  // the last step's gradients
    const Tensor loss = loss_of(b);
    record.training.push_back(loss.item());
    loss.backward();
    adam.step();
    schedule.step();  // after the optimiser's step, as torch's schedules
    if (step % options.every == 0) {
      model.eval();  // dropout off while measuring
      NoGradGuard no_grad;
      record.validation.push_back(loss_of(validation).item());
      model.train();
    }
  }
  return record;
}
