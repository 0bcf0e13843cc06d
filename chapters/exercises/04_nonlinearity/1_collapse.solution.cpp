// Exercise 4.1 · A stack of linear layers is one: the reference solution.
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

nn::Linear collapse(const std::vector<nn::Linear>& layers) {
  NoGradGuard no_grad;
  Tensor w = layers.front().weight, b = layers.front().bias;  // [out, in], [out]
  for (std::size_t k = 1; k < layers.size(); ++k) {
    const nn::Linear& next = layers[k];
    b = matmul(next.weight, b.unsqueeze(1)).squeeze(1) + next.bias;
    w = matmul(next.weight, w);
  }
  nn::Linear one(layers.front().in_features, layers.back().out_features);
  one.weight.copy_(w);
  one.bias.copy_(b);
  return one;
}
