// Exercise 10.1 · The training loop, yourself. This is your file: write train_loop
// below, then run `tools/exercise check 10.1`.
#include <functional>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// A batch of words: inputs and targets [N, T] (targets -100 after each word).
struct Batch {
  Tensor inputs, targets;
};
struct LoopOptions {
  int steps = 0, warmup = 0, every = 0;
  double rate = 0;
};
struct TrainingRecord {
  std::vector<double> training, validation;  // every step's loss; every every-th step's
};
using Scores = std::function<Tensor(const Tensor&)>;  // inputs [N, T] -> [N, T, 27]

TrainingRecord train_loop(nn::Module& model, const Scores& scores,
                          const std::function<Batch()>& next_batch,
                          const Batch& validation, const LoopOptions& options) {
  (void)model, (void)scores, (void)next_batch, (void)validation, (void)options;
  return {};  // your loop here
}
