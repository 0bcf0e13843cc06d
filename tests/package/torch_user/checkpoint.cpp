// Checkpointing as a torch user does it, against the installed package: the model's, the
// optimiser's, the schedule's and the generator's state_dict saved to one file mid-training,
// loaded into fresh objects, and training continued. The resumed run must end with exactly
// the bits of the run that never stopped; the program exits non-zero otherwise.
#include <cstring>
#include <iostream>
#include <string>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Run {
  Generator gen{42};
  nn::Sequential model{nn::Linear(4, 16, true, gen), nn::Tanh(), nn::Linear(16, 1, true, gen)};
  optim::Adam opt{model.parameters(), {1e-2}};
  optim::lr_scheduler::CosineAnnealingLR schedule{opt, 20};

  void train(int steps) {  // fresh data from the generator each step, as a data loader shuffles
    for (int i = 0; i < steps; ++i) {
      const Tensor x = randn({32, 4}, gen);
      const Tensor y = sum(x * x, {1}, true);
      opt.zero_grad();
      const Tensor loss = mse_loss(model(x), y);
      loss.backward();
      opt.step();
      schedule.step();
    }
  }
};

int main() {
  const std::string path = "checkpoint_test.ckpt";
  Run straight;
  straight.train(20);

  Run first;
  first.train(10);
  StateDict checkpoint;
  checkpoint.update("model", first.model.state_dict());
  checkpoint.update("optimizer", first.opt.state_dict());
  checkpoint.update("scheduler", first.schedule.state_dict());
  checkpoint.update("generator", first.gen.state_dict());
  save(checkpoint, path);

  Run resumed;  // fresh objects, built the same way, then the checkpoint loaded into them
  const StateDict loaded = load(path);
  resumed.model.load_state_dict(loaded.sub("model"));
  resumed.opt.load_state_dict(loaded.sub("optimizer"));
  resumed.schedule.load_state_dict(loaded.sub("scheduler"));
  resumed.gen.load_state_dict(loaded.sub("generator"));
  resumed.train(10);

  int differing = 0;
  const auto a = straight.model.parameters(), b = resumed.model.parameters();
  for (std::size_t i = 0; i < a.size(); ++i)
    differing += std::memcmp(a[i].data(), b[i].data(), static_cast<std::size_t>(a[i].numel()) * sizeof(double)) != 0;
  std::cout << "checkpoint: " << a.size() << " parameters after 10 + 10 steps, " << differing
            << " differing from 20 steps without a stop\n";
  return differing == 0 ? 0 : 1;
}
