// Exercise 10.1 · The training loop, yourself
// ===========================================
//
// Write section 2's training loop for a language model, every step of it:
// ``train_loop(model, scores, next_batch, validation, options)``. For each of
// ``options.steps`` steps:
//
// 1. take the step's batch from ``next_batch()``: ``inputs`` and ``targets``, each
//    ``[N, T]``, a target of -100 marking padding;
// 2. compute the loss: ``cross_entropy`` of the scores, ``scores(inputs)`` of shape
//    ``[N, T, 27]`` laid out as ``[N·T, 27]``, against the targets laid out as
//    ``[N·T]``, with its default mean over the predictions that are not padding (the
//    loss is defined so, and the tests ask for its bits);
// 3. record the loss's value in ``training``, clear the gradients the last step left,
//    backpropagate, let an ``optim::AdamW`` over ``model.parameters()`` at rate
//    ``options.rate`` take its step, and move a schedule on: the rate rises over the
//    first ``options.warmup`` steps and falls along a cosine to 0 by the last,
//    ``optim::lr_scheduler::cosine_with_warmup(options.warmup, options.steps)`` in a
//    ``LambdaLR``, stepped once after each of the optimiser's steps, as torch's are;
// 4. after every ``options.every``-th step, measure the loss on ``validation`` the same
//    way, with the model in evaluation mode (its dropout off) and without recording
//    gradients, record it in ``validation``, and put the model back to training.
//
// Return the record. The tests train a small model with dropout, as section 3's, from
// the same start and on the same batches as the reference loop, and hold your record,
// the model you leave and the gradients it holds to the reference's, bit for bit (the
// same operations on the same numbers give the same bits, in whatever order you clear
// the gradients); they also watch each call of ``scores``, in which mode the model was
// and whether gradients were being recorded.

// %% hint
// Section 2's ``train`` is the model to follow; what it leaves out is the validation
// in evaluation mode. Which of the model's parts behaves differently in training, and
// what has to be true of the model when the next training step starts?

// %% fold: includes, the reference loop and its variants
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"
#include "small_speller.hpp"  // Batch, the invented words, the small model

using namespace litgrad;

// The loop's settings and what it records.
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
                          const Batch& validation, const LoopOptions& options);

namespace {
using namespace small_speller;

// The loop with the catalogued mistakes as switches.
struct Variant {
  bool no_zero_grad = false, no_schedule = false, validation_in_training = false;
  bool left_in_eval = false, step_before_backward = false;
};

Tensor loss_of(const Scores& scores, const Batch& b) {
  return cross_entropy(scores(b.inputs).reshape({-1, kSymbols}),
                       b.targets.reshape({-1}));
}

TrainingRecord reference_loop(nn::Module& model, const Scores& scores,
                              const std::function<Batch()>& next_batch,
                              const Batch& validation, const LoopOptions& o,
                              const Variant& v = {}) {
  optim::AdamW adam(model.parameters(), {o.rate});
  optim::lr_scheduler::LambdaLR schedule(
      adam, optim::lr_scheduler::cosine_with_warmup(o.warmup, o.steps));
  TrainingRecord record;
  for (int step = 1; step <= o.steps; ++step) {
    const Batch b = next_batch();
    if (!v.no_zero_grad) adam.zero_grad();
    const Tensor loss = loss_of(scores, b);
    record.training.push_back(loss.item());
    if (v.step_before_backward) adam.step();
    loss.backward();
    if (!v.step_before_backward) adam.step();
    if (!v.no_schedule) schedule.step();
    if (step % o.every == 0) {
      if (!v.validation_in_training) model.eval();
      NoGradGuard no_grad;
      record.validation.push_back(loss_of(scores, validation).item());
      if (!v.left_in_eval) model.train();
    }
  }
  return record;
}

// One run: a model from Generator(seed), batches from Generator(seed + 1), the loop
// either yours or the reference's (with a variant); the record and the model's
// parameters after it.
struct Run {
  TrainingRecord record;
  std::vector<double> parameters, gradients;  // after the loop
  bool training_mode = true;
  std::string error;  // what the loop threw, if it stopped
  std::vector<std::string>
      calls;  // each call of the scores: "train" or "eval", "+grad"
};

Run run(std::uint64_t seed, const LoopOptions& o, const Variant* variant) {
  Generator init(seed), data(seed + 1), validation_words(seed + 2);
  SmallSpeller model(init);
  Run r;
  const Scores scores = [&](const Tensor& inputs) {
    r.calls.push_back(std::string(model.is_training() ? "train" : "eval") +
                      (is_grad_enabled() ? "+grad" : ""));
    return model.forward(inputs);
  };
  const auto next_batch = [&] { return invented_words(16, data); };
  const Batch validation = invented_words(200, validation_words);
  try {
    r.record = variant
                   ? reference_loop(model, scores, next_batch, validation, o, *variant)
                   : train_loop(model, scores, next_batch, validation, o);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  for (const Tensor& p : model.parameters()) {
    for (double x : p.to_vector()) r.parameters.push_back(x);
    if (p.grad().defined())
      for (double x : p.grad().to_vector()) r.gradients.push_back(x);
  }
  r.training_mode = model.is_training();
  return r;
}

bool same(const Run& a, const Run& b) {
  return a.error == b.error && a.record.training == b.record.training &&
         a.record.validation == b.record.validation && a.parameters == b.parameters &&
         a.gradients == b.gradients && a.calls == b.calls;
}

// The catalogued mistake whose run yours is, when exactly one is.
std::string mistake_behind(std::uint64_t seed, const LoopOptions& o, const Run& yours) {
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {{true, false, false, false, false}, "the gradients never cleared"},
      {{false, true, false, false, false}, "the schedule never stepped"},
      {{false, false, true, false, false}, "validation measured in training mode"},
      {{false, false, false, true, false}, "the model left in evaluation mode"},
      {{false, false, false, false, true}, "the step taken before backpropagating"}};
  const std::string name = exercise::the_mistake(
      mistakes, [&](const Variant& v) { return same(run(seed, o, &v), yours); });
  return name.empty() ? "" : "your run is exactly that of " + name;
}

// Your loop against the reference, from the same start on the same batches.
void check_loop(std::uint64_t seed, const LoopOptions& o) {
  const Run yours = run(seed, o, nullptr);
  const Variant right;
  const Run expected = run(seed, o, &right);
  const std::string why =
      same(yours, expected) ? "" : exercise::quietly(mistake_behind, seed, o, yours);
  INFO(why);
  REQUIRE_MESSAGE(yours.error.empty(), "your loop stopped: ", yours.error);
  CHECK_MESSAGE(exercise::agrees(yours.record.training, expected.record.training),
                "the training losses, one per step");
  CHECK_MESSAGE(exercise::agrees(yours.record.validation, expected.record.validation),
                "the validation losses, one every ", o.every, " steps");
  CHECK_MESSAGE(exercise::agrees(yours.parameters, expected.parameters),
                "the model's parameters after training");
  CHECK_MESSAGE(yours.training_mode, "the model is left in evaluation mode");
  CHECK_MESSAGE(exercise::agrees(yours.gradients, expected.gradients),
                "the gradients the model holds after the loop: the last training "
                "step's, and nothing from the validation");
  CHECK_MESSAGE(yours.calls == expected.calls,
                "how the model was called, in order (train or eval, +grad when "
                "gradients were recorded)");
}
}  // namespace

// %%
// The function to write, in ``exercises/10_language_model/1_training_loop.cpp``:

TrainingRecord train_loop(nn::Module& model, const Scores& scores,
                          const std::function<Batch()>& next_batch,
                          const Batch& validation, const LoopOptions& options);

// %%
// The tests.

TEST_CASE(
    "40 steps, a warm-up of 10 and a validation every 10: your record and your model "
    "are the reference loop's, bit for bit") {
  check_loop(1, {40, 10, 10, 0.01});
}

TEST_CASE(
    "35 steps and a validation every 10: three validations, none after the last "
    "step, and the same bits") {
  check_loop(2, {35, 5, 10, 0.01});
}

// %%
// And the loop does what it is for: 300 steps of it take the loss on the validation
// words from about :math:`\ln 27 \approx 3.30` nats, a uniform guess's, to below
// :math:`\ln 16 \approx 2.77`, a uniform guess among the 16 symbols the invented
// language uses (its 15 letters and the boundary): the model has learnt more than its
// alphabet.

TEST_CASE("300 steps of your loop take the validation loss below ln 16 nats") {
  const Run yours = run(3, {300, 30, 100, 0.01}, nullptr);
  REQUIRE_MESSAGE(yours.error.empty(), "your loop stopped: ", yours.error);
  REQUIRE(yours.record.validation.size() == 3);
  INFO("your validation losses: ", yours.record.validation);
  CHECK(yours.record.validation.back() < std::log(16.0));
}
