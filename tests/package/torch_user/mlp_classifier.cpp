// A torch user's first program, written against the installed package: an MLP classifier on
// three Gaussian blobs, AdamW with no weight decay on biases (two parameter groups), softmax
// cross-entropy, and held-out accuracy. It exits non-zero when the classifier fails.
#include <iostream>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// n points per class around the corners of a triangle of side 6, unit variance: [3n, 2], [3n].
std::pair<Tensor, Tensor> blobs(std::int64_t n, Generator& gen) {
  const Tensor centres = tensor({{0.0, 0.0}, {6.0, 0.0}, {3.0, 5.2}});
  const Tensor labels = reshape(expand(reshape(arange(3), {3, 1}), {3, n}), {3 * n});
  return {index_select(centres, 0, labels) + randn({3 * n, 2}, gen), labels};
}

int main() {
  Generator gen(0);
  const auto [x, y] = blobs(200, gen);
  const auto [x_test, y_test] = blobs(500, gen);
  nn::Sequential model(nn::Linear(2, 32, true, gen), nn::ReLU(), nn::Linear(32, 3, true, gen));
  std::vector<Tensor> weights, biases;
  for (const auto& [name, p] : model.named_parameters())
    (name.find("bias") != std::string::npos ? biases : weights).push_back(p);
  optim::AdamW opt({{weights}, {biases, {{"weight_decay", 0.0}}}}, {1e-2});
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    const Tensor loss = cross_entropy(model(x), y);
    loss.backward();
    opt.step();
  }
  NoGradGuard no_grad;
  const double accuracy = mean(eq(argmax(model(x_test), 1), y_test).to(DType::Float64)).item();
  // The blobs' centres are 6 standard deviations apart: the best classifier errs on about
  // 0.3% of points (each boundary is 3 deviations from a centre), so 0.97 leaves room.
  std::cout << "mlp_classifier: held-out accuracy " << accuracy << "\n";
  return accuracy > 0.97 ? 0 : 1;
}
