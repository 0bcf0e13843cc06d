// Exercise 6.2 · Adam, the whole optimiser: the reference solution.
#include <cmath>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct MyAdam {
  MyAdam(std::vector<Tensor> parameters, double lr, double beta1 = 0.9,
         double beta2 = 0.999, double eps = 1e-8);
  void zero_grad();
  void step();

  struct State {
    int t = 0;    // the steps this parameter has taken
    Tensor m, v;  // its running averages, each of its shape
  };
  std::vector<Tensor> parameters;
  std::vector<State> state;  // one per parameter, in order
  double lr, beta1, beta2, eps;
};

MyAdam::MyAdam(std::vector<Tensor> parameters, double lr, double beta1, double beta2,
               double eps)
    : parameters(std::move(parameters)), lr(lr), beta1(beta1), beta2(beta2), eps(eps) {
  for (const Tensor& p : this->parameters)
    state.push_back({0, zeros(p.shape()), zeros(p.shape())});
}

void MyAdam::zero_grad() {
  for (Tensor& p : parameters) p.zero_grad();
}

void MyAdam::step() {
  NoGradGuard no_grad;  // the update is not part of any model's graph
  for (std::size_t k = 0; k < parameters.size(); ++k) {
    Tensor& p = parameters[k];
    const Tensor g = p.grad();
    if (!g.defined()) continue;  // not used by the loss: no step, as torch
    State& s = state[k];
    ++s.t;
    s.m = beta1 * s.m + (1 - beta1) * g;
    s.v = beta2 * s.v + (1 - beta2) * g * g;
    const Tensor m_hat = s.m / (1 - std::pow(beta1, s.t)),
                 v_hat = s.v / (1 - std::pow(beta2, s.t));
    p.sub_(lr * m_hat / (sqrt(v_hat) + eps));
  }
}
