// Exercise 10.3 · Dropout
// =======================
//
// Write the dropout of section 3 yourself. For a tensor :math:`x` of any shape, a
// probability :math:`0 \le p \le 1` and a generator: in training mode, set each element
// to 0 with probability :math:`p`, independently, and multiply each element kept by
// :math:`1/(1-p)`, so that its expected value is the element itself; in evaluation mode
// (``training`` false), return :math:`x` unchanged. With :math:`p = 1` everything is
// dropped and the answer is all zeros, although :math:`1/(1-p)` is then infinite. Build
// it from tensor operations, so that autograd carries the gradient back through the
// same mask: each kept element passes :math:`1/(1-p)` of its gradient and each dropped
// one none.
//
// The tests drop with :math:`p = 0.25` from 200,000 ones. The share dropped is then off
// from :math:`p` by a standard error of :math:`\sqrt{p(1-p)/n} \approx 0.001`, and the
// mean of the outputs, whose elements have variance :math:`p/(1-p) = 1/3`, from 1 by
// :math:`\sqrt{1/(3n)} \approx 0.0013`; each test allows 0.01, more than 7 standard
// errors, so a right answer passes whatever its generator draws. They check evaluation
// mode and :math:`p = 0` (the input itself, bit for bit), that every element is 0 or
// :math:`1/(1-p)` times its input, the share dropped, the mean, the gradient, and
// :math:`p = 1`.

// %% hint
// Draw one uniform number in :math:`[0, 1)` for each element, with
// ``rand(x.shape(), gen)``: it falls below :math:`p` with probability :math:`p`. Turn
// the draws into a tensor of factors, 0 or :math:`1/(1-p)`, and multiply :math:`x` by
// it. Which values of :math:`p` and ``training`` need no draws at all?

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/10_language_model/3_dropout.cpp``:

Tensor inverted_dropout(const Tensor& x, double p, bool training, Generator& gen);

// %% fold: what a wrong dropout points to
namespace {
constexpr double kP = 0.25;
constexpr std::int64_t kN = 200000;

// The share of zeros and the mean of the answer on kN ones, in training mode.
std::vector<double> share_and_mean() {
  Generator gen(3);
  const std::vector<double> y = inverted_dropout(ones({kN}), kP, true, gen).to_vector();
  double zeros = 0, total = 0;
  for (double v : y) zeros += v == 0, total += v;
  return {zeros / kN, total / kN};
}

std::string dropout_problem() {
  Generator gen(6);
  const Tensor x = ones({100});
  if (inverted_dropout(x, kP, false, gen).to_vector() != x.to_vector())
    return "evaluation mode changed the input: this points to dropout in evaluation "
           "mode too";
  const std::vector<double> m = share_and_mean();
  const double share = m[0], mean = m[1];
  if (std::fabs(share - (1 - kP)) < 0.01)
    return "about 3 in 4 elements are dropped where 1 in 4 should be: this points to "
           "the elements kept with probability p instead of dropped with it";
  if (std::fabs(share - kP) < 0.01 && std::fabs(mean - (1 - kP)) < 0.01)
    return "the right share is dropped, but the mean is 1 - p: this points to the kept "
           "elements not scaled by 1/(1 - p)";
  if (std::fabs(share - kP) < 0.01 && std::fabs(mean - (1 - kP) * (1 - kP)) < 0.01)
    return "the mean is (1 - p)², not 1: this points to the kept elements "
           "multiplied by 1 - p instead of divided by it";
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE("in evaluation mode, and with p = 0, the answer is the input, bit for bit") {
  INFO(dropout_problem());
  Generator gen(1);
  const Tensor x = randn({4, 5}, gen);
  const std::vector<double> want = x.to_vector();
  CHECK_MESSAGE(inverted_dropout(x, kP, false, gen).to_vector() == want,
                "evaluation mode drops nothing and scales nothing");
  CHECK_MESSAGE(inverted_dropout(x, 0, true, gen).to_vector() == want,
                "with p = 0 nothing is dropped, and 1/(1 - p) = 1");
}

TEST_CASE("in training mode each element is 0 or its input over 1 - p, to 1e-15") {
  INFO(dropout_problem());
  Generator gen(2), draws(7);
  const std::vector<double> x = randn({1000}, gen).to_vector();
  const std::vector<double> y =
      inverted_dropout(tensor(x, {1000}), kP, true, draws).to_vector();
  REQUIRE(y.size() == x.size());
  int neither = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    neither += !(y[i] == 0 || std::fabs(y[i] - x[i] / (1 - kP)) <=
                                  1e-15 * std::fabs(x[i] / (1 - kP)));
  CHECK_MESSAGE(neither == 0,
                neither << " of 1000 elements are neither 0 nor x/(1 - p)");
}

TEST_CASE("the share of elements dropped is p, to within 0.01") {
  INFO(dropout_problem());
  const double share = share_and_mean()[0];
  CHECK_MESSAGE(std::fabs(share - kP) < 0.01,
                "dropped " << share << " of " << kN << " elements, at p = " << kP);
}

TEST_CASE("the mean of the answer on ones is 1, to within 0.01") {
  INFO(dropout_problem());
  const double mean = share_and_mean()[1];
  CHECK_MESSAGE(std::fabs(mean - 1) < 0.01,
                "mean " << mean << ": each element's expected value must be kept");
}

TEST_CASE(
    "the gradient through dropout is the same mask: 1/(1 - p) where kept, 0 where "
    "dropped") {
  INFO(dropout_problem());
  Generator gen(4);
  const Tensor x = ones({1000}).requires_grad_();
  const Tensor y = inverted_dropout(x, kP, true, gen);
  sum(y).backward();
  REQUIRE(x.grad().defined());
  CHECK_MESSAGE(x.grad().to_vector() == y.to_vector(),
                "on ones, each element's gradient is its own factor, 0 or 1/(1 - p)");
}

TEST_CASE("with p = 1 every element is exactly 0, with no NaN") {
  INFO(dropout_problem());
  Generator gen(5);
  const std::vector<double> y =
      inverted_dropout(randn({100}, gen), 1, true, gen).to_vector();
  int nonzero = 0;
  for (double v : y) nonzero += !(v == 0);  // NaN is not 0
  CHECK_MESSAGE(nonzero == 0, nonzero << " of 100 elements are not 0: NaN at p = 1 "
                                         "comes from dividing by 1 - p = 0");
}
