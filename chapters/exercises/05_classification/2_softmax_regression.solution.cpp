// Exercise 5.2 · Softmax regression by hand: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Softmax {
  Tensor W, b;  // [K, D], [K]
};

struct Grads {
  Tensor W, b;  // each the shape of its parameter
};

Grads gradients(const Softmax& model, const Tensor& x, const Tensor& y) {
  const double n = static_cast<double>(x.size(0));
  const Tensor z = matmul(x, transpose(model.W, 0, 1)) + model.b;  // [N, K]
  const Tensor truth = one_hot(y, model.W.size(0)).to(DType::Float64);
  const Tensor d_z = (softmax(z, 1) - truth) / n;  // section 2's gradient [N, K]
  return {matmul(transpose(d_z, 0, 1), x), sum(d_z, {0})};  // [K, D], [K]
}

void train_softmax(Softmax& model, const Tensor& x, const Tensor& y, int steps,
                   double lr) {
  for (int t = 0; t < steps; ++t) {
    const Grads g = gradients(model, x, y);
    model.W = model.W - lr * g.W;
    model.b = model.b - lr * g.b;
  }
}
