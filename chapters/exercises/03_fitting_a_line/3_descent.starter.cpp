// Exercise 3.3 · Gradient descent by hand. This is your file: write descend_by_hand
// below, then run `tools/exercise check 03.3`; `tools/exercise hint 03.3` prints a
// hint.
#include <cstdint>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Line {
  double w = 0, b = 0;
};

// Gradient descent on the mean squared error of w x + b, from (0, 0).
Line descend_by_hand(const Tensor& x, const Tensor& y, double lr, int steps) {
  const double* xs = x.data();
  const double* ys = y.data();
  const std::int64_t n = x.numel();
  Line theta;
  for (int t = 0; t < steps; ++t) {
    // A first attempt: the mean of r x and of r, as the gradient.
    double grad_w = 0, grad_b = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double r = xs[i] * theta.w + theta.b - ys[i];
      grad_w += r * xs[i] / n;
      grad_b += r / n;
    }
    theta.w -= lr * grad_w;
    theta.b -= lr * grad_b;
  }
  return theta;
}
