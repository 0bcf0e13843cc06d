// Exercise 3.3 · Gradient descent by hand: the reference solution.
#include <cstdint>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Line {
  double w = 0, b = 0;
};

Line descend_by_hand(const Tensor& x, const Tensor& y, double lr, int steps) {
  const double* xs = x.data();
  const double* ys = y.data();
  const std::int64_t n = x.numel();
  Line theta;
  for (int t = 0; t < steps; ++t) {
    double grad_w = 0, grad_b = 0;  // dL/dw = (2/n) sum r x, dL/db = (2/n) sum r
    for (std::int64_t i = 0; i < n; ++i) {
      const double r = xs[i] * theta.w + theta.b - ys[i];
      grad_w += 2.0 / n * r * xs[i];
      grad_b += 2.0 / n * r;
    }
    theta.w -= lr * grad_w;
    theta.b -= lr * grad_b;
  }
  return theta;
}
