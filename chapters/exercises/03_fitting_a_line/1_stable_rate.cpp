// Exercise 3.1 · The largest stable learning rate
// ===============================================
//
// For fitting a line :math:`w x + b` to inputs :math:`x_1, \dots, x_n` by the mean
// squared error, compute the learning rate above which gradient descent diverges:
// section 4's :math:`2 / \lambda_{\max}`, with :math:`\lambda_{\max}` the largest
// eigenvalue of the Hessian. The targets :math:`y` do not matter, only the inputs. The
// tests run gradient descent just below and just above your rate.

// %% hint
// The limit comes from the bowl's steepest direction (section 4). Write the Hessian for
// these inputs; its largest eigenvalue is the larger root of the quadratic equation
// that says :math:`H - \lambda I` has no inverse.

// %% fold: includes, and a descent to run
#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// The distance of (w, b) from the least-squares line after 400 steps of descent,
// as a fraction of where it started.
double shrinkage(const Tensor& x, const Tensor& y, double lr) {
  Tensor w = scalar_tensor(0).requires_grad_(), b = scalar_tensor(0).requires_grad_();
  optim::SGD opt({w, b}, {lr});
  for (int t = 0; t < 400; ++t) {
    opt.zero_grad();
    mse_loss(x * w + b, y).backward();
    opt.step();
  }
  const double n = static_cast<double>(x.numel()), sx = sum(x).item(),
               sxx = sum(x * x).item();
  const double sy = sum(y).item(), sxy = sum(x * y).item(), det = sxx * n - sx * sx;
  const double ws = (sxy * n - sx * sy) / det, bs = (sxx * sy - sx * sxy) / det;
  return std::hypot(w.item() - ws, b.item() - bs) / std::hypot(ws, bs);
}
}  // namespace

// %%
// The function to write, in ``exercises/03_fitting_a_line/1_stable_rate.cpp``:

double largest_stable_rate(const Tensor& x);

// %%
// The tests.

TEST_CASE(
    "descent converges at 0.97 of the rate and diverges at 1.03 of it, for inputs of "
    "scale 1 and 5") {
  for (double scale : {1.0, 5.0}) {
    Generator gen(static_cast<std::uint64_t>(scale));
    const Tensor x = uniform({100}, -scale, 2 * scale, gen);
    const Tensor y = 1.5 * x - 0.2 + 0.1 * randn({100}, gen);
    const double rate = largest_stable_rate(x);
    INFO("scale ", scale, ", your rate ", rate);
    CHECK_MESSAGE(shrinkage(x, y, 0.97 * rate) < 1e-3,
                  "just below the limit descent must converge: too large a rate "
                  "points to the rate from λ_min (the gentle axis), the Hessian "
                  "without its factor 2, or the off-diagonal ignored (Σx left out)");
    CHECK_MESSAGE(shrinkage(x, y, 1.03 * rate) > 1e3,
                  "just above the limit descent must diverge: a rate that still "
                  "converges points to 1/λ_max for 2/λ_max, half of the limit");
  }
}

TEST_CASE(
    "for inputs -1 and 1, whose Hessian is the diagonal (2, 2), the rate is exactly "
    "1") {
  CHECK_MESSAGE(
      largest_stable_rate(tensor({-1, 1, -1, 1})) == 1.0,
      "H = (2/n)[[Σx², Σx], [Σx, n]] = [[2, 0], [0, 2]] here, so 2/λ_max = 1");
}
