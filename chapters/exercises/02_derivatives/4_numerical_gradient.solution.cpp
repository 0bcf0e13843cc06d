// Exercise 2.4 · A numerical gradient of a tensor function: the reference solution.
#include <functional>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor numerical_gradient(const std::function<Tensor(const Tensor&)>& f,
                          const Tensor& x, double h) {
  NoGradGuard no_grad;
  Tensor grad = zeros_like(x);
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    Tensor up = to(x, DType::Float64), down = to(x, DType::Float64);  // copies of x
    up.data()[i] += h;
    down.data()[i] -= h;
    grad.data()[i] = (f(up).item() - f(down).item()) / (2 * h);
  }
  return grad;
}
