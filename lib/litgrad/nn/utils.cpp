#include "litgrad/nn/utils.hpp"

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/grad_mode.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/indexing.hpp"
#include "litgrad/ops/reduction.hpp"

namespace litgrad::nn::utils {

// As torch computes it: the norm of each gradient, then the norm of those norms; every gradient
// multiplied by max_norm / (total + 1e-6) when that is below 1.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type) {
  if (!(max_norm >= 0)) throw ValueError("clip_grad_norm_: max_norm must be at least 0, got ", max_norm);
  if (!(norm_type > 0)) throw ValueError("clip_grad_norm_: norm_type must be positive, got ", norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> norms;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) norms.push_back(norm(p.grad(), norm_type));
  if (norms.empty()) return 0.0;
  const double total = norm(stack(norms), norm_type).item();
  const double coefficient = max_norm / (total + 1e-6);
  if (coefficient < 1)
    for (const Tensor& p : parameters) {
      Tensor g = p.grad();
      if (g.defined()) g.copy_(g * coefficient);
    }
  return total;
}

}  // namespace litgrad::nn::utils
