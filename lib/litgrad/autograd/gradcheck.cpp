#include "litgrad/autograd/gradcheck.hpp"

#include <cmath>
#include <sstream>

#include "litgrad/autograd/autograd.hpp"
#include "litgrad/base/error.hpp"

namespace litgrad {

GradcheckResult gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
                          const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
  bool any = false;
  for (const Tensor& x : inputs) {
    if (x.dtype() != DType::Float64 && x.requires_grad())
      throw ValueError("gradcheck: inputs that require grad must be Float64");
    any = any || x.requires_grad();
  }
  if (!any) throw ValueError("gradcheck: no input requires grad, so there is nothing to check");

  // Analytical Jacobian, one row per output element: backward() with a one-hot gradient.
  const Tensor y0 = fn(inputs);
  const std::int64_t m = y0.numel();
  std::vector<std::vector<std::vector<double>>> analytical(inputs.size());  // [input][j][i]
  for (std::size_t k = 0; k < inputs.size(); ++k) analytical[k].assign(inputs[k].numel(), std::vector<double>(m, 0.0));
  for (std::int64_t i = 0; i < m; ++i) {
    for (Tensor x : inputs)  // a copy of the handle, the same tensor
      if (x.requires_grad()) x.zero_grad();
    const Tensor y = fn(inputs);
    if (!y.requires_grad()) break;  // the output does not depend on the inputs: all zeros
    Tensor onehot = zeros(y.shape());
    onehot.data()[i] = 1.0;
    y.backward(onehot);
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const Tensor g = inputs[k].requires_grad() ? inputs[k].grad() : Tensor();
      if (g.defined())
        for (std::int64_t j = 0; j < inputs[k].numel(); ++j) analytical[k][j][i] = g.data()[j];
    }
  }

  // Numerical Jacobian by central differences, one column per input element; then compare.
  GradcheckResult result;
  NoGradGuard no_grad;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].requires_grad()) continue;
    Tensor x = inputs[k];
    for (std::int64_t j = 0; j < x.numel(); ++j) {
      const double saved = x.data()[j];
      x.data()[j] = saved + options.eps;
      const Tensor plus = fn(inputs);
      x.data()[j] = saved - options.eps;
      const Tensor minus = fn(inputs);
      x.data()[j] = saved;
      for (std::int64_t i = 0; i < m; ++i) {
        const double numerical = (plus.data()[i] - minus.data()[i]) / (2 * options.eps);
        const double a = analytical[k][j][i], err = std::fabs(a - numerical);
        const bool bad = !(err <= options.atol + options.rtol * std::fabs(numerical));  // NaN is bad
        if (bad || err > result.max_abs_error) {
          result.max_abs_error = std::isnan(err) ? INFINITY : std::max(result.max_abs_error, err);
          if (bad && result.ok) {
            std::ostringstream os;
            os << "gradcheck: d output[" << i << "] / d input" << k << "[" << j << "]: analytical " << a
               << ", numerical " << numerical;
            result.message = os.str();
          }
          if (bad) result.ok = false;
        }
      }
    }
  }
  for (Tensor x : inputs)
    if (x.requires_grad()) x.zero_grad();
  return result;
}

}  // namespace litgrad
