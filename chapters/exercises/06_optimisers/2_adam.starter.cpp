// Exercise 6.2 · Adam, the whole optimiser. This is your file: write MyAdam's
// constructor, zero_grad and step below, then run `tools/exercise check 06.2`.
#include <cmath>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// Adam over a model's parameters, used as optim::Adam is: zero_grad() before each
// backward(), step() after it. Keep the struct as it is: the tests read it.
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
  // your state here
}

void MyAdam::zero_grad() {
  // your code here
}

void MyAdam::step() {
  // your step here
}
