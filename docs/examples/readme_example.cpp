#include <iostream>
#include <litgrad/litgrad.hpp>
using namespace litgrad;

int main() {
  Tensor x = tensor({{1, 2}, {3, 4}}).requires_grad_();
  Tensor w = softmax(x, 1);  // each row becomes weights that sum to one
  Tensor loss = sum(w * x);  // the weighted average of each row, summed
  loss.backward();           // d loss / d x, into x.grad()
  std::cout << w << "\n" << loss << "\n" << x.grad() << "\n";
}
