// Exercise 5.2 · Cross-entropy's gradient by hand
// ===============================================
//
// Section 2 derived the gradient of the mean cross-entropy with respect to the scores:
// :math:`(\text{softmax}(z) - \text{one\_hot}(y)) / N`. Compute it yourself, without
// autograd, for scores ``[N, K]`` and classes ``[N]``. The tests compare it with
// autograd's on random scores and on scores near :math:`\pm 1000`, to :math:`8u/N` as
// in section 2.

// %% hint
// litgrad's softmax(z, 1) is safe for scores of ±1000; one_hot(y, K) gives the
// one-hot rows (as Int64: convert with .to(DType::Float64) before subtracting).

// %% fold: includes, autograd's answer to compare with, and what yours points to
#include <doctest/doctest.h>

#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
Tensor autograd_gradient(const Tensor& scores, const Tensor& targets) {
  Tensor z = scores.detach().requires_grad_();
  cross_entropy(z, targets).backward();
  return z.grad();
}

// What your gradient for `scores` [N, K] points to, against autograd's.
std::string gradient_problem(const Tensor& yours, const Tensor& autograd) {
  const double n = static_cast<double>(yours.size(0));
  if (exercise::agrees(yours, n * autograd, 1e-12))
    return "yours is N = " + exercise::number(n) +
           " times autograd's, the gradient of the sum over the batch: this points to "
           "the 1/N of the mean forgotten";
  if (exercise::agrees(yours, -autograd, 1e-12))
    return "yours is autograd's with every sign flipped: this points to the sign of "
           "the "
           "gradient flipped";
  const double row_sums = max(abs(sum(yours, {1}))).item();
  if (row_sums > 1e-12)
    return "each row of the gradient sums to 0, since a row of softmax sums to 1 as "
           "the "
           "one-hot row does; a row of yours sums to " +
           exercise::number(row_sums) +
           ": this points to softmax along the wrong dimension";
  return "";
}
}  // namespace

// %%
// The function to write, in ``exercises/05_classification/2_gradient.cpp``:

Tensor cross_entropy_gradient(const Tensor& scores, const Tensor& targets);

// %%
// The tests.

TEST_CASE("it equals autograd's gradient on random scores, to 8u/N") {
  Generator gen(6);
  const Tensor z = 2.0 * randn({10, 4}, gen), y = randint(0, 4, {10}, gen);
  const Tensor yours = cross_entropy_gradient(z, y), autograd = autograd_gradient(z, y);
  REQUIRE(yours.shape() == Shape{10, 4});
  CHECK_MESSAGE(exercise::agrees(yours, autograd, 8 * 0x1p-53 / 10),
                gradient_problem(yours, autograd));
}

TEST_CASE("it is finite and equals autograd's gradient for scores near ±1000") {
  const Tensor z = tensor({{1000, 999, -1000}, {-1000, -1001, -999}});
  const Tensor y = tensor({1, 2}, {2}, DType::Int64);
  const Tensor yours = cross_entropy_gradient(z, y), autograd = autograd_gradient(z, y);
  REQUIRE(yours.shape() == Shape{2, 3});
  CHECK_MESSAGE(exercise::agrees(yours, autograd, 8 * 0x1p-53 / 2),
                gradient_problem(yours, autograd));
}
