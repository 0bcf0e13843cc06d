// pytorch.org's "Learning PyTorch with Examples", as a torch user first writes it against the
// installed package: a cubic a + b x + c x^2 + d x^3 fitted to sin(x) on [-pi, pi] by gradient
// descent, first with autograd by hand (each gradient cleared as torch's `a.grad = None`),
// then with nn.Sequential(Linear(3, 1), Flatten(0, 1)), MSELoss(reduction='sum'),
// x.unsqueeze(-1).pow(p) and model.zero_grad(); with torch.optim.RMSprop (its first 500 steps,
// below); with an
// autograd.Function of one's own (the Legendre polynomial P3); and with a Module of one's own
// trained by SGD. (The tutorial's last example draws its depth from Python's `random`.)
//
// Run as `tutorial reference/tutorial.state`: the random starting values are Python torch's,
// and every hundredth loss and the fitted coefficients are held to torch's
// (tests/reference/make_torch_user_reference.py) within 1e-12.
#include <cmath>
#include <iostream>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "against_torch.hpp"

using namespace litgrad;

// The Legendre polynomial P3(x) = (5x³ - 3x) / 2, with its derivative (15x² - 3) / 2 written by
// hand, as the tutorial's torch.autograd.Function.
struct LegendrePolynomial3 {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& input) {
    ctx->save_for_backward({input});
    return 0.5 * (5.0 * input.pow(3) - 3.0 * input);
  }
  static std::vector<Tensor> backward(autograd::AutogradContext* ctx, const Tensor& grad_output) {
    const Tensor input = ctx->saved_tensors()[0];
    return {grad_output * 1.5 * (5.0 * input.pow(2) - 1.0)};
  }
};

// The tutorial's nn.Module of its own: four scalar parameters and a cubic.
struct Polynomial3 : nn::Module {
  Tensor a = randn({}), b = randn({}), c = randn({}), d = randn({});
  Polynomial3() : Module("Polynomial3") {
    register_parameter("a", a);
    register_parameter("b", b);
    register_parameter("c", c);
    register_parameter("d", d);
  }
  Tensor forward(const Tensor& x) const { return a + b * x + c * x.pow(2) + d * x.pow(3); }
  Tensor operator()(const Tensor& x) const { return forward(x); }
};

int main(int argc, char** argv) {
  const StateDict ref = against_torch::reference(argc, argv);
  against_torch::Comparison torch;
  const Tensor x = linspace(-M_PI, M_PI, 2000);
  const Tensor y = sin(x);
  const double learning_rate = 1e-6;

  // Autograd by hand.
  const Tensor start = ref.at("data.abcd");  // torch.randn((), requires_grad=True), four times
  Tensor a = start.select(0, 0).clone().requires_grad_(), b = start.select(0, 1).clone().requires_grad_();
  Tensor c = start.select(0, 2).clone().requires_grad_(), d = start.select(0, 3).clone().requires_grad_();
  std::vector<double> by_hand;
  for (int t = 0; t < 2000; ++t) {
    const Tensor y_pred = a + b * x + c * x.pow(2) + d * x.pow(3);
    const Tensor loss = (y_pred - y).pow(2).sum();
    if (t % 100 == 99) by_hand.push_back(loss.item());
    loss.backward();
    NoGradGuard no_grad;
    for (Tensor* p : {&a, &b, &c, &d}) {
      *p -= learning_rate * p->grad();
      p->set_grad(Tensor());  // a.grad = None
    }
  }
  std::cout << "tutorial: by hand, the loss " << by_hand.back() << ", y = " << a.item() << " + " << b.item() << " x + "
            << c.item() << " x^2 + " << d.item() << " x^3\n";
  torch.check("the loss by hand, every 100 steps", tensor(by_hand, {20}), ref.at("expected.by_hand_losses"));
  torch.check("a, b, c, d by hand", stack({a, b, c, d}), ref.at("expected.by_hand_abcd"));

  // With nn: the powers as features, a linear layer, a summed squared error.
  const Tensor p = tensor({1, 2, 3}, {3}, DType::Int64);
  const Tensor xx = x.unsqueeze(-1).pow(p);  // [2000, 3]
  nn::Sequential model(nn::Linear(3, 1), nn::Flatten(0, 1));
  model.load_state_dict(ref.sub("init"));
  const nn::MSELoss loss_fn(Reduction::Sum);
  std::vector<double> with_nn;
  for (int t = 0; t < 2000; ++t) {
    const Tensor loss = loss_fn(model(xx), y);
    if (t % 100 == 99) with_nn.push_back(loss.item());
    model.zero_grad();
    loss.backward();
    NoGradGuard no_grad;
    for (Tensor param : model.parameters()) param -= learning_rate * param.grad();
  }
  const auto& linear = model.at<nn::Linear>(0);
  std::cout << "tutorial: with nn, the loss " << with_nn.back() << "\n";
  torch.check("the loss with nn, every 100 steps", tensor(with_nn, {20}), ref.at("expected.nn_losses"));
  torch.check("the linear layer's weight", linear.weight, ref.at("expected.nn_weight"));
  torch.check("the linear layer's bias", linear.bias, ref.at("expected.nn_bias"));

  // With torch.optim: the same model and loss from the same start, RMSprop at lr 1e-3.
  model.load_state_dict(ref.sub("init"));
  optim::RMSprop optimizer(model.parameters(), {1e-3});
  std::vector<double> with_optim;
  for (int t = 0; t < 2000; ++t) {
    const Tensor loss = loss_fn(model(xx), y);
    with_optim.push_back(loss.item());
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  std::cout << "tutorial: with RMSprop, the loss " << with_optim.back() << "\n";
  // The first 500 steps: later, RMSprop at this rate steps about lr whatever the gradient,
  // and a difference of one rounding grows (make_torch_user_reference.py gives the measurement).
  torch.check("the loss with RMSprop, at each of the first 500 steps",
              tensor(std::vector<double>(with_optim.begin(), with_optim.begin() + 500), {500}),
              ref.at("expected.optim_losses"));

  // A Function of one's own: y = a + b P3(c + d x), from the tutorial's start, at lr 5e-6.
  Tensor la = full({}, 0.0).requires_grad_(), lb = full({}, -1.0).requires_grad_();
  Tensor lc = full({}, 0.0).requires_grad_(), ld = full({}, 0.3).requires_grad_();
  std::vector<double> legendre;
  for (int t = 0; t < 2000; ++t) {
    const Tensor y_pred = la + lb * autograd::Function<LegendrePolynomial3>::apply(lc + ld * x);
    const Tensor loss = (y_pred - y).pow(2).sum();
    if (t % 100 == 99) legendre.push_back(loss.item());
    loss.backward();
    NoGradGuard no_grad;
    for (Tensor* q : {&la, &lb, &lc, &ld}) {
      *q -= 5e-6 * q->grad();
      q->set_grad(Tensor());
    }
  }
  std::cout << "tutorial: with the Legendre polynomial, the loss " << legendre.back() << "\n";
  torch.check("the loss through P3, every 100 steps", tensor(legendre, {20}), ref.at("expected.legendre_losses"));
  torch.check("a, b, c, d through P3", stack({la, lb, lc, ld}), ref.at("expected.legendre_abcd"));

  // A Module of one's own, trained by SGD.
  Polynomial3 poly;
  poly.load_state_dict(ref.sub("init_poly"));
  const nn::MSELoss criterion(Reduction::Sum);
  optim::SGD sgd(poly.parameters(), {1e-6});
  std::vector<double> with_module;
  for (int t = 0; t < 2000; ++t) {
    const Tensor loss = criterion(poly(x), y);
    if (t % 100 == 99) with_module.push_back(loss.item());
    sgd.zero_grad();
    loss.backward();
    sgd.step();
  }
  std::cout << "tutorial: with a Module of one's own, the loss " << with_module.back() << "\n";
  torch.check("the loss of Polynomial3, every 100 steps", tensor(with_module, {20}), ref.at("expected.module_losses"));
  torch.check("Polynomial3's a, b, c, d", stack({poly.a, poly.b, poly.c, poly.d}), ref.at("expected.module_abcd"));
  return torch.failures();
}
