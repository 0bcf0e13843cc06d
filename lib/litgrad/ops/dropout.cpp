#include "litgrad/ops/dropout.hpp"

#include "litgrad/base/error.hpp"
#include "litgrad/kernels/elementwise.hpp"
#include "litgrad/ops/elementwise.hpp"

namespace litgrad {

// x: any shape; result: x's shape. Derived from mul, so its gradient needs no code of its own.
Tensor dropout(const Tensor& x, double p, bool training, Generator& gen) {
  if (!(p >= 0 && p <= 1)) throw ValueError("dropout: probability must be between 0 and 1, got ", p);
  if (!training || p == 0) return x;
  if (p == 1) return x * zeros(x.shape());  // everything dropped, as torch
  Tensor keep = rand(x.shape(), gen);       // uniform in [0, 1): below p, dropped; kept ones scaled up
  kernels::map(keep.numel(), keep.data(), keep.data(), [p](double u) { return u < p ? 0.0 : 1.0 / (1.0 - p); });
  return x * keep;
}

}  // namespace litgrad
