#pragma once
/// \file gradcheck.hpp
/// \brief Checking a gradient against finite differences, as `torch.autograd.gradcheck`.

#include <functional>
#include <string>
#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

/// \brief Step and tolerances of gradcheck(); the defaults are torch's.
struct GradcheckOptions {
  double eps = 1e-6;   ///< the finite-difference step
  double atol = 1e-5;  ///< absolute tolerance
  double rtol = 1e-3;  ///< relative tolerance, against the numerical value
};

/// \brief What gradcheck() found: whether every entry agreed, the largest error, and the
/// first entry that disagreed.
struct GradcheckResult {
  bool ok = true;            ///< every entry within atol + rtol * |numerical|
  double max_abs_error = 0;  ///< the largest |analytical - numerical| over all entries
  std::string message;       ///< the first entry that disagreed, described (empty when ok)
  /// \brief True when the check passed.
  explicit operator bool() const { return ok; }
};

/// \brief Compares the gradients backward() computes for \p fn with central differences.
///
/// For every element x_j of every input that requires grad and every element y_i of the
/// output, the analytical derivative dy_i/dx_j (from one backward() per output element) must
/// agree with `(f(x + eps e_j) - f(x - eps e_j))_i / (2 eps)` within `atol + rtol * |numerical|`.
/// In double precision the central difference is accurate to about eps² times the third
/// derivative plus 1e-16/eps rounding, about 1e-10 for smooth functions with the defaults.
///
/// \code
/// Tensor x = randn({3, 4}).requires_grad_();
/// CHECK(gradcheck([](const std::vector<Tensor>& in) { return softmax(in[0], 1); }, {x}));
/// \endcode
/// \throws ValueError when no input requires grad or an input is not Float64.
GradcheckResult gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
                          const std::vector<Tensor>& inputs, const GradcheckOptions& options = {});

}  // namespace litgrad
