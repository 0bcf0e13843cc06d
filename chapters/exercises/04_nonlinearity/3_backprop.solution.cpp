// Exercise 4.3 · Backpropagation by hand: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Net {
  Tensor W1, b1, W2, b2;  // [H, 2], [H], [1, H], [1]
};

struct Grads {
  Tensor W1, b1, W2, b2;  // each the shape of its parameter
};

Grads gradients(const Net& net, const Tensor& x, const Tensor& y) {
  const double n = static_cast<double>(x.size(0));
  // Forward, keeping what the backward pass needs.
  const Tensor h = tanh(matmul(x, transpose(net.W1, 0, 1)) + net.b1);  // [n, H]
  const Tensor out = matmul(h, transpose(net.W2, 0, 1)) + net.b2;      // [n, 1]
  // Backward, one line of the forward pass at a time.
  const Tensor d_out = 2.0 * (out - y) / n;               // dL/dŷ     [n, 1]
  const Tensor d_W2 = matmul(transpose(d_out, 0, 1), h);  // Σ_i dŷ_i h_i  [1, H]
  const Tensor d_b2 = sum(d_out, {0});                    //           [1]
  const Tensor d_h = matmul(d_out, net.W2);               // dL/dh     [n, H]
  const Tensor d_z = d_h * (1.0 - h * h);                 // through tanh  [n, H]
  const Tensor d_W1 = matmul(transpose(d_z, 0, 1), x);    // [H, 2]
  const Tensor d_b1 = sum(d_z, {0});                      // [H]
  return {d_W1, d_b1, d_W2, d_b2};
}

void train_by_hand(Net& net, const Tensor& x, const Tensor& y, int steps, double lr) {
  for (int t = 0; t < steps; ++t) {
    const Grads g = gradients(net, x, y);
    net.W1 = net.W1 - lr * g.W1;
    net.b1 = net.b1 - lr * g.b1;
    net.W2 = net.W2 - lr * g.W2;
    net.b2 = net.b2 - lr * g.b2;
  }
}
