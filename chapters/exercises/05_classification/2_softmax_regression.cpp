// Exercise 5.2 · Softmax regression by hand
// =========================================
//
// Train section 4's linear softmax classifier without autograd. For inputs ``x`` of
// shape :math:`[N, D]` and classes ``y`` of shape :math:`[N]`, the model scores
// :math:`z = x W^T + b`, with :math:`W` of shape :math:`[K, D]` and :math:`b` of
// :math:`[K]`, and its loss is the mean cross-entropy of the scores. Write
// ``gradients``, which returns :math:`\partial L / \partial W` and :math:`\partial L /
// \partial b` from section 2's gradient with respect to the scores, carried through
// the linear layer by hand (no ``backward()``), and ``train_softmax``, full-batch
// gradient descent with them. The tests compare your gradients with autograd's, once
// with scores in the thousands (exercise 5.1's lesson applies); then
// they train on section 4's blobs, from ``nn::Linear``'s random start, for 1,500 steps
// at rate 0.5. Your weights must be the ones autograd's training reaches, to rounding,
// and your classifier must be as accurate as the chapter's: within four paired standard
// errors of the Bayes classifier on 3,000 fresh points.

// %% hint
// Section 2 gives the gradient with respect to the scores, one row per example. From
// there it is the last layer of exercise 4.3 again: a change in W_kd changes the score
// z_k of every example, in proportion to that example's x_d.

// %% fold: includes, autograd's answers, the blobs, and a diagnosis of a mismatch
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

struct Softmax {
  Tensor W, b;  // [K, D], [K]
};

struct Grads {
  Tensor W, b;  // each the shape of its parameter
};

namespace {
// Autograd's gradients of the mean cross-entropy of x Wᵀ + b.
Grads autograd_gradients(const Softmax& model, const Tensor& x, const Tensor& y) {
  Tensor W = model.W.detach().requires_grad_(), b = model.b.detach().requires_grad_();
  cross_entropy(matmul(x, transpose(W, 0, 1)) + b, y).backward();
  return {W.grad(), b.grad()};
}

// What is wrong with `yours` against `truth`: nothing, a factor, or something else.
// Each example's gradient with respect to its scores sums to zero over the classes
// (its probabilities sum to one, and so does its one-hot), so dL/db sums to zero;
// what a sum of 1, or of anything else, points to.
std::string score_gradient_problem(const Tensor& db) {
  const double total = sum(db).item();
  if (std::fabs(total) <= 1e-12) return "";
  if (std::fabs(total - 1) <= 1e-12)
    return "each example's gradient with respect to its scores should sum to zero over "
           "the classes; yours sum to 1, which points to the one-hot not subtracted";
  return "each example's gradient with respect to its scores should sum to zero over "
         "the classes; yours do not, which points to softmax along the wrong dimension";
}

std::string diagnosis(const std::string& name, const Tensor& yours, const Tensor& truth,
                      double N) {
  if (yours.shape() != truth.shape())
    return name + " has shape " + to_string(yours.shape()) + ", its parameter's is " +
           to_string(truth.shape());
  if (max(abs(yours - truth)).item() <= 1e-12) return "";
  if (max(abs(yours)).item() == 0) return name + " is all zeros";
  const double ratio = sum(yours * truth).item() / sum(truth * truth).item();
  if (max(abs(yours - ratio * truth)).item() <= 1e-12) {
    const auto near = [&](double k) {
      return std::fabs(ratio - k) <= 1e-9 * std::fabs(k);
    };
    const std::string points =
        near(N)       ? ": this points to the mean's 1/N forgotten"
        : near(1 / N) ? ": this points to the bias's gradient averaged over the "
                        "examples"
                      : ": a constant factor, such as a sign, went missing or in twice";
    return name + " is the right gradient times " + std::to_string(ratio) + points;
  }
  return name +
         " is not the gradient, nor a multiple of it: check the gradient with "
         "respect to the scores, then how it reaches " +
         name.substr(4);
}

// The gradients of an answer whose softmax is exp(z) / Σ exp(z), without the max
// shift (the catalogued mistake, written out here to compare its output with yours).
Grads unshifted_gradients(const Softmax& model, const Tensor& x, const Tensor& y) {
  const double n = static_cast<double>(x.size(0));
  const Tensor z = matmul(x, transpose(model.W, 0, 1)) + model.b;
  const Tensor e = exp(z);
  const Tensor d_z =
      (e / sum(e, {1}, true) - one_hot(y, model.W.size(0)).to(DType::Float64)) / n;
  return {matmul(transpose(d_z, 0, 1), x), sum(d_z, {0})};
}

// The chapter's blobs: n points of each of three classes, around centres 1.5 from the
// origin, a third of a turn apart.
void blobs(std::int64_t n, Generator& gen, Tensor& x, Tensor& y) {
  std::vector<Tensor> xs, ys;
  for (int k = 0; k < 3; ++k) {
    const double angle = 2 * M_PI * k / 3;
    xs.push_back(tensor({1.5 * std::cos(angle), 1.5 * std::sin(angle)}, {1, 2}) +
                 randn({n, 2}, gen));
    ys.push_back(full({n}, k, DType::Int64));
  }
  x = cat(xs, 0), y = cat(ys, 0);
}

// The Bayes classifier's verdicts: 1 where the nearest centre is the true class.
Tensor bayes_right(const Tensor& x, const Tensor& y) {
  const double s = 1.5 * std::sqrt(3.0) / 2;
  const Tensor centres = tensor({1.5, 0.0, -0.75, s, -0.75, -s}, {3, 2});
  return eq(argmax(matmul(x, transpose(centres, 0, 1)), 1), y).to(DType::Float64);
}
}  // namespace

// %%
// The functions to write, in ``exercises/05_classification/2_softmax_regression.cpp``:

Grads gradients(const Softmax& model, const Tensor& x, const Tensor& y);
void train_softmax(Softmax& model, const Tensor& x, const Tensor& y, int steps,
                   double lr);

// %%
// The tests. A right answer agrees with autograd to rounding, about :math:`10^{-16}`
// here; the mistakes worth catching miss by far more than the :math:`10^{-12}` allowed.

TEST_CASE("your gradients are autograd's: 3 classes, 2 inputs, 12 examples") {
  Generator gen(21);
  const Softmax model{randn({3, 2}, gen), randn({3}, gen)};
  const Tensor x = randn({12, 2}, gen), y = randint(0, 3, {12}, gen);
  const double N = 12;
  const Grads yours = gradients(model, x, y), truth = autograd_gradients(model, x, y);
  const std::string why = exercise::quietly(score_gradient_problem, yours.b);
  INFO(why);
  for (const std::string& wrong : {diagnosis("dL/dW", yours.W, truth.W, N),
                                   diagnosis("dL/db", yours.b, truth.b, N)})
    CHECK_MESSAGE(wrong.empty(), wrong);
}

TEST_CASE("your gradients are autograd's: 4 classes, 5 inputs, 7 examples") {
  Generator gen(22);
  const Softmax model{randn({4, 5}, gen), randn({4}, gen)};
  const Tensor x = randn({7, 5}, gen), y = randint(0, 4, {7}, gen);
  const double N = 7;
  const Grads yours = gradients(model, x, y), truth = autograd_gradients(model, x, y);
  const std::string why = exercise::quietly(score_gradient_problem, yours.b);
  INFO(why);
  for (const std::string& wrong : {diagnosis("dL/dW", yours.W, truth.W, N),
                                   diagnosis("dL/db", yours.b, truth.b, N)})
    CHECK_MESSAGE(wrong.empty(), wrong);
}

TEST_CASE(
    "your gradients are autograd's when the scores run into the thousands: 3 classes, "
    "2 inputs, 12 examples") {
  Generator gen(23);
  const Softmax model{randn({3, 2}, gen) * 1000.0, randn({3}, gen)};
  const Tensor x = randn({12, 2}, gen), y = randint(0, 3, {12}, gen);
  const Grads yours = gradients(model, x, y), truth = autograd_gradients(model, x, y);
  const Grads unshifted = unshifted_gradients(model, x, y);
  const double largest = max(abs(matmul(x, transpose(model.W, 0, 1)))).item();
  INFO("the largest score is about ", largest,
       ", and e^710 is already past the "
       "largest double");
  const std::string unshifted_named =
      exercise::agrees(yours.W, unshifted.W) && exercise::agrees(yours.b, unshifted.b)
          ? "your gradients are those of a softmax without the max shift: exp of "
            "a score in the thousands is infinite, and infinity over infinity is NaN"
          : "";
  INFO(unshifted_named);
  for (const std::string& wrong : {diagnosis("dL/dW", yours.W, truth.W, 12),
                                   diagnosis("dL/db", yours.b, truth.b, 12)})
    CHECK_MESSAGE(wrong.empty(), wrong);
}

TEST_CASE(
    "trained by hand on the blobs, your classifier has autograd's weights, to 1e-9, "
    "and is within four paired standard errors of the Bayes classifier on fresh "
    "points") {
  Generator gen(1);
  Tensor x, y, test_x, test_y;
  blobs(200, gen, x, y);
  blobs(1000, gen, test_x, test_y);
  nn::Linear reference(2, 3, true, gen);
  const Tensor w = reference.weight, b = reference.bias;
  Softmax mine{tensor(w.to_vector(), w.shape()), tensor(b.to_vector(), b.shape())};
  train_softmax(mine, x, y, 1500, 0.5);
  optim::SGD opt(reference.parameters(), {0.5});
  for (int t = 0; t < 1500; ++t) {
    opt.zero_grad();
    cross_entropy(reference(x), y).backward();
    opt.step();
  }
  const double gap = std::max(max(abs(mine.W - reference.weight)).item(),
                              max(abs(mine.b - reference.bias)).item());
  CHECK_MESSAGE(gap < 1e-9, "your weights ended ", gap, " from autograd's: the steps ",
                "differ, in size, in sign (the step taken uphill?), or in how many ",
                "were taken");
  const Tensor scores = matmul(test_x, transpose(mine.W, 0, 1)) + mine.b;
  const Tensor d =
      eq(argmax(scores, 1), test_y).to(DType::Float64) - bayes_right(test_x, test_y);
  const double m = mean(d).item(), se = std::sqrt((mean(d * d).item() - m * m) / 3000);
  INFO("your accuracy minus the Bayes classifier's: ", m, " (paired SE ", se, ")");
  CHECK_MESSAGE(std::fabs(m) < 4 * se,
                "your classifier is not as accurate as a trained line should be: did ",
                "it train?");
}
