// Exercise 5.2 · Softmax regression by hand. This is your file: write gradients and
// train_softmax below, then run `tools/exercise check 05.2`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Softmax {
  Tensor W, b;  // [K, D], [K]
};

struct Grads {
  Tensor W, b;  // each the shape of its parameter
};

// dL/dW and dL/db for L = cross_entropy(x Wᵀ + b, y), the mean over the N examples.
Grads gradients(const Softmax& model, const Tensor& x, const Tensor& y) {
  const Tensor z = matmul(x, transpose(model.W, 0, 1)) + model.b;  // [N, K]
  (void)z, (void)y;
  // The gradients are yours to write; zeros of the right shapes until then.
  return {zeros_like(model.W), zeros_like(model.b)};
}

// `steps` steps of gradient descent at rate `lr`, with your gradients.
void train_softmax(Softmax& model, const Tensor& x, const Tensor& y, int steps,
                   double lr) {
  (void)model, (void)x, (void)y, (void)steps, (void)lr;
}
