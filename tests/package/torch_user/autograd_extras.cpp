// Autograd's toolbox as a torch user reaches for it, against the installed package: a
// Hessian-vector product by autograd::grad with create_graph, a custom operation by
// autograd::Function, a hook that scales a gradient, and retain_grad on a non-leaf. Each is
// checked against its closed form; the program exits non-zero when one is wrong.
#include <cmath>
#include <iostream>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// y = x³ with its gradient written by hand, as a subclass of torch.autograd.Function would.
struct Cube {
  static constexpr const char* name = "cube";
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static std::vector<Tensor> backward(autograd::AutogradContext* ctx, const Tensor& g) {
    const Tensor x = ctx->saved_tensors()[0];
    return {g * 3.0 * x * x};
  }
};

double largest_gap(const Tensor& a, const Tensor& b) { return max(abs(a - b)).item(); }

int main() {
  Generator gen(3);
  const Tensor x = randn({5}, gen).requires_grad_(), v = randn({5}, gen);

  // f(x) = sum(x⁴): its Hessian is diag(12 x²), so H v = 12 x² v.
  const Tensor f = sum(pow(x, 4.0));
  const Tensor g = autograd::grad({f}, {x}, {}, {}, /*create_graph=*/true)[0];
  const Tensor hv = autograd::grad({sum(g * v)}, {x})[0];
  const double hvp_gap = largest_gap(hv, 12.0 * x.detach() * x.detach() * v);

  // The custom cube's gradient against 3x².
  const Tensor y = autograd::Function<Cube>::apply(x);
  sum(y).backward();
  const double cube_gap = largest_gap(x.grad(), 3.0 * x.detach() * x.detach());

  // A hook that doubles the gradient flowing into a non-leaf, and retain_grad on it.
  x.grad().zero_();
  Tensor h = x * 2.0;
  h.retain_grad();
  h.register_hook([](const Tensor& grad) { return grad * 2.0; });
  sum(h * h).backward();
  // d/dh sum(h²) = 2h, doubled by the hook to 4h; x's gradient is then 2 · 4h = 16x.
  const double hook_gap = largest_gap(x.grad(), 16.0 * x.detach());
  const double retained_gap = largest_gap(h.grad(), 4.0 * h.detach());

  std::cout << "autograd_extras: largest gaps: Hessian-vector product " << hvp_gap << ", custom cube " << cube_gap
            << ", hook " << hook_gap << ", retained gradient " << retained_gap << "\n";
  // Each is a few roundings of numbers of order one.
  return hvp_gap < 1e-12 && cube_gap < 1e-12 && hook_gap < 1e-12 && retained_gap < 1e-12 ? 0 : 1;
}
