// Exercise 3.4 · The loop with autograd, and no optimiser. This is your file: write
// descend_with_autograd below, then run `tools/exercise check 03.4`.
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Line {
  double w = 0, b = 0;
};

// Gradient descent on the mean squared error of w x + b from (0, 0), the gradients by
// backward(): the line before the first step and after each of `steps` steps.
std::vector<Line> descend_with_autograd(const Tensor& x, const Tensor& y, double lr,
                                        int steps) {
  (void)x, (void)y, (void)lr, (void)steps;
  return {};  // your loop here
}
