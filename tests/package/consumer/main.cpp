// A program outside litgrad's tree that finds the installed package: it trains nothing, but
// uses a tensor, autograd, a module and the version, which is what a reader's project needs.
#include <iostream>

#include <litgrad/litgrad.hpp>
#include <litgrad/version.hpp>

int main() {
  using namespace litgrad;
  Generator gen(1);
  nn::Linear layer(3, 2, true, gen);
  const Tensor x = randn({4, 3}, gen);
  const Tensor loss = sum(layer(x) * layer(x));
  loss.backward();
  std::cout << "litgrad " << litgrad::version << ": loss " << loss.item() << ", weight gradient "
            << layer.weight.grad().shape() << "\n";
  return layer.weight.grad().defined() ? 0 : 1;
}
