// Exercise 4.3 · Backpropagation by hand. This is your file: write gradients and
// train_by_hand below, then run `tools/exercise check 04.3`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Net {
  Tensor W1, b1, W2, b2;  // [H, 2], [H], [1, H], [1]
};

struct Grads {
  Tensor W1, b1, W2, b2;  // each the shape of its parameter
};

// dL/dW1, dL/db1, dL/dW2, dL/db2 for L = mean((ŷ - y)²), ŷ = tanh(x W1ᵀ + b1) W2ᵀ + b2.
Grads gradients(const Net& net, const Tensor& x, const Tensor& y) {
  const Tensor h = tanh(matmul(x, transpose(net.W1, 0, 1)) + net.b1);  // [n, H]
  const Tensor out = matmul(h, transpose(net.W2, 0, 1)) + net.b2;      // [n, 1]
  (void)out, (void)y;
  // The backward pass is yours to write; zeros of the right shapes until then.
  return {zeros_like(net.W1), zeros_like(net.b1), zeros_like(net.W2),
          zeros_like(net.b2)};
}

// `steps` steps of gradient descent at rate `lr`, with your gradients.
void train_by_hand(Net& net, const Tensor& x, const Tensor& y, int steps, double lr) {
  (void)net, (void)x, (void)y, (void)steps, (void)lr;
}
