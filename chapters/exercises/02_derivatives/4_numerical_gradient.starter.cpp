// Exercise 2.4 · A numerical gradient of a tensor function. This is your file: write
// numerical_gradient below, then run `tools/exercise check 02.4`.
#include <functional>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// The gradient of f at x, each element estimated by a finite difference with step h.
Tensor numerical_gradient(const std::function<Tensor(const Tensor&)>& f,
                          const Tensor& x, double h) {
  NoGradGuard no_grad;
  Tensor grad = zeros_like(x);
  const double base = f(x).item();
  for (std::int64_t i = 0; i < x.numel();
       ++i) {  // a first attempt: the forward difference
    Tensor step = to(x, DType::Float64);
    step.data()[i] += h;
    grad.data()[i] = (f(step).item() - base) / h;
  }
  return grad;
}
