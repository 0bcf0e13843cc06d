// Exercise 1.3 · A layer by loops: the reference solution.
#include <string>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// X: [batch, in]; W: [in, out]; b: [out]; result: [batch, out].
Tensor layer(const Tensor& X, const Tensor& W, const Tensor& b) {
  if (X.dim() != 2 || W.dim() != 2 || b.dim() != 1 || X.size(1) != W.size(0) ||
      b.size(0) != W.size(1))
    throw ShapeError("layer: X " + to_string(X.shape()) + ", W " +
                     to_string(W.shape()) + " and b " + to_string(b.shape()) +
                     " do not fit");
  const std::int64_t batch = X.size(0), in = X.size(1), out = W.size(1);
  Tensor Y = zeros({batch, out});
  const double *x = X.data(), *w = W.data(), *bias = b.data();
  double* y = Y.data();
  for (std::int64_t r = 0; r < batch; ++r)
    for (std::int64_t j = 0; j < out; ++j) {
      double total = 0;
      for (std::int64_t l = 0; l < in; ++l) total += x[r * in + l] * w[l * out + j];
      y[r * out + j] = total + bias[j];
    }
  return Y;
}
