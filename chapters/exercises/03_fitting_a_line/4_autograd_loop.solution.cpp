// Exercise 3.4 · The loop with autograd, and no optimiser: the reference solution.
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Line {
  double w = 0, b = 0;
};

std::vector<Line> descend_with_autograd(const Tensor& x, const Tensor& y, double lr,
                                        int steps) {
  Tensor w = scalar_tensor(0).requires_grad_(), b = scalar_tensor(0).requires_grad_();
  std::vector<Line> path = {{0, 0}};
  for (int t = 0; t < steps; ++t) {
    // Forward: the mean squared error; backward adds dL/dw to w.grad(), dL/db to b.grad
    const Tensor loss = mean(pow(x * w + b - y, 2.0));
    loss.backward();
    {
      NoGradGuard no_grad;  // the step is arithmetic on the parameters, not a new graph
      w -= lr * w.grad();
      b -= lr * b.grad();
    }
    w.zero_grad(), b.zero_grad();  // backward adds: the next step needs fresh gradients
    path.push_back({w.item(), b.item()});
  }
  return path;
}
