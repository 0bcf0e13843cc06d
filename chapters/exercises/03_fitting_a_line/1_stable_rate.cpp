// Exercise 3.1 · The largest stable learning rate
// ===============================================
//
// For fitting a line :math:`w x + b` to inputs :math:`x_1, \dots, x_n` by the mean
// squared error, compute the learning rate above which gradient descent diverges:
// section 2's :math:`2 / \lambda_{\max}`, with :math:`\lambda_{\max}` the largest
// eigenvalue of the Hessian. The targets :math:`y` do not matter, only the inputs. The
// tests run gradient descent just below and just above your rate.

// %% hint
// The Hessian is (2/n) [[Σx², Σx], [Σx, n]]. A symmetric 2 × 2 matrix [[a, c], [c, e]]
// has eigenvalues (a + e)/2 ± sqrt(((a - e)/2)² + c²).

// %% fold: includes, and a descent to run
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <exercise_checks.hpp>
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

// %% fold: what your rate on two small inputs points to
namespace {
// Your rates for inputs (-1, 1), whose limit is 1, and (0, 2), whose Hessian
// [[4, 2], [2, 2]] has the eigenvalues 3 ± √5 and the limit 2 / (3 + √5); and the
// mistake they point to.
std::string rate_problem() {
  const double one = largest_stable_rate(tensor({-1, 1})),
               two = largest_stable_rate(tensor({0, 2}));
  const double limit = 2 / (3 + std::sqrt(5.0)), ratio = two / limit;
  std::string s = "your rates: " + exercise::number(one) + " for inputs -1 and 1 " +
                  "(the limit is 1), " + exercise::number(two) + " for 0 and 2 (the " +
                  "limit is " + exercise::number(limit) + ")";
  const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-9 * b; };
  if (near(one, 2) && near(ratio, 2))
    return s +
           ": twice the limit on both; this points to the Hessian's factor 2 "
           "dropped";
  if (near(one, 0.5) && near(ratio, 0.5))
    return s + ": half the limit on both; this points to 1/λ_max, half the limit";
  if (near(one, 1) && near(ratio, (3 + std::sqrt(5.0)) / (3 - std::sqrt(5.0))))
    return s +
           ": 2 over the smaller eigenvalue, 3 - √5; this points to the smallest "
           "eigenvalue instead of the largest";
  if (near(one, 1) && near(two, 0.5))
    return s +
           ": 2 over the curvature along w alone (4); this points to the "
           "intercept's curvature left out";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "descent converges at 0.97 of the rate and diverges at 1.03 of it, for inputs of "
    "scale 1 and 5") {
  const std::string why = exercise::quietly(rate_problem);
  INFO(why);
  for (double scale : {1.0, 5.0}) {
    Generator gen(static_cast<std::uint64_t>(scale));
    const Tensor x = uniform({100}, -scale, 2 * scale, gen);
    const Tensor y = 1.5 * x - 0.2 + 0.1 * randn({100}, gen);
    const double rate = largest_stable_rate(x);
    INFO("scale ", scale, ", your rate ", rate);
    CHECK_MESSAGE(shrinkage(x, y, 0.97 * rate) < 1e-3,
                  "below your rate descent should converge: your rate is too large");
    CHECK_MESSAGE(shrinkage(x, y, 1.03 * rate) > 1e3,
                  "above your rate descent should diverge: your rate is too small");
  }
}

TEST_CASE(
    "for inputs -1 and 1, whose Hessian is the diagonal (2, 2), the rate is exactly "
    "1") {
  const std::string why = exercise::quietly(rate_problem);
  INFO(why);
  CHECK(largest_stable_rate(tensor({-1, 1, -1, 1})) == 1.0);
}

TEST_CASE(
    "for inputs 0 and 2, whose Hessian [[4, 2], [2, 2]] has the eigenvalues 3 ± √5, "
    "the "
    "rate is 2 / (3 + √5), to rounding") {
  const std::string why = exercise::quietly(rate_problem);
  INFO(why);
  CHECK(std::fabs(largest_stable_rate(tensor({0, 2})) - 2 / (3 + std::sqrt(5.0))) <
        1e-15);
}
