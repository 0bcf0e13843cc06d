// Exercise 4.3 · Backpropagation by hand
// ======================================
//
// Section 4's network, written without autograd. For inputs ``x`` of shape
// :math:`[n, 2]` and targets ``y`` of shape :math:`[n, 1]`, a network of :math:`H`
// hidden units computes
//
// .. math::
//
//    z = x W_1^T + b_1, \quad h = \tanh z, \quad \hat y = h W_2^T + b_2, \quad
//    L = \tfrac1n \textstyle\sum_i (\hat y_i - y_i)^2,
//
// with :math:`W_1` of shape :math:`[H, 2]`, :math:`b_1` of :math:`[H]`, :math:`W_2` of
// :math:`[1, H]` and :math:`b_2` of :math:`[1]`, as ``nn::Linear`` stores them. Write
// ``gradients``, which returns :math:`\partial L / \partial W_1`, :math:`\partial L /
// \partial b_1`, :math:`\partial L / \partial W_2` and :math:`\partial L / \partial
// b_2`, each of its parameter's shape, from the forward pass's numbers and the chain
// rule alone: no ``backward()``, no ``requires_grad``. Then write ``train_by_hand``,
// gradient descent with your gradients. The tests compare your gradients with
// autograd's, and train section 4's network on XOR by hand from the same random start
// as autograd's training, expecting the same weights, to rounding, and the same fit.

// %% hint
// Go backwards one line of the forward pass at a time, keeping the gradient of L with
// respect to each intermediate result, with that result's shape. Start from ŷ: what is
// the derivative of a mean of squares with respect to one of its terms? A weight's
// gradient pairs the gradient arriving at its layer's output with that layer's input,
// summed over the n rows; a bias's sums the arriving gradient over the rows. Crossing
// tanh multiplies by its slope, which chapter 4 wrote in terms of tanh's output.

// %% fold: includes, autograd's answers to compare with, and a diagnosis of a mismatch
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct Net {
  Tensor W1, b1, W2, b2;  // [H, 2], [H], [1, H], [1]
};

struct Grads {
  Tensor W1, b1, W2, b2;  // each the shape of its parameter
};

namespace {
// A network of `hidden` units with nn::Linear's random start.
Net random_net(std::int64_t hidden, std::uint64_t seed) {
  Generator gen(seed);
  const nn::Linear first(2, hidden, true, gen), second(hidden, 1, true, gen);
  return {first.weight.detach(), first.bias.detach(), second.weight.detach(),
          second.bias.detach()};
}

// Autograd's gradients of the same loss.
Grads autograd_gradients(const Net& net, const Tensor& x, const Tensor& y) {
  Tensor W1 = net.W1.detach().requires_grad_(), b1 = net.b1.detach().requires_grad_();
  Tensor W2 = net.W2.detach().requires_grad_(), b2 = net.b2.detach().requires_grad_();
  const Tensor out =
      matmul(tanh(matmul(x, transpose(W1, 0, 1)) + b1), transpose(W2, 0, 1)) + b2;
  mse_loss(out, y).backward();
  return {W1.grad(), b1.grad(), W2.grad(), b2.grad()};
}

// What is wrong with `yours` against `truth`: nothing, a factor, or something else.
std::string diagnosis(const std::string& name, const Tensor& yours, const Tensor& truth,
                      double n) {
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
        near(0.5)     ? ": this points to the 2 of the square forgotten"
        : near(n)     ? ": this points to the mean's 1/n forgotten"
        : near(1 / n) ? ": this points to a bias's gradient averaged over the rows"
        : near(-1.0)  ? ": a sign went wrong"
                      : ": a constant factor went missing or in twice";
    return name + " is the right gradient times " + std::to_string(ratio) + points;
  }
  if (name == "dL/dW1" || name == "dL/db1")
    return name +
           " is not the gradient, nor a multiple of it: check the step back through "
           "tanh; this points to tanh's slope taken as 1 - tanh, or to the step "
           "through tanh skipped";
  return name +
         " is not the gradient, nor a multiple of it: check the step back "
         "through the layer it belongs to";
}

// One diagnosis per parameter, in the order W2, b2, W1, b1: empty where yours is right.
std::vector<std::string> diagnoses(const Grads& yours, const Grads& truth, double n) {
  return {diagnosis("dL/dW2", yours.W2, truth.W2, n),
          diagnosis("dL/db2", yours.b2, truth.b2, n),
          diagnosis("dL/dW1", yours.W1, truth.W1, n),
          diagnosis("dL/db1", yours.b1, truth.b1, n)};
}

const Tensor kX = tensor({0, 0, 0, 1, 1, 0, 1, 1}, {4, 2});  // XOR's corners
const Tensor kY = tensor({0, 1, 1, 0}, {4, 1});              // and its targets
}  // namespace

// %%
// The functions to write, in ``exercises/04_nonlinearity/3_backprop.cpp``:

Grads gradients(const Net& net, const Tensor& x, const Tensor& y);
void train_by_hand(Net& net, const Tensor& x, const Tensor& y, int steps, double lr);

// %%
// The tests. A right answer agrees with autograd to rounding, some :math:`10^{-16}`
// here; every mistake worth catching misses by far more than the :math:`10^{-12}` they
// allow.

TEST_CASE("your gradients are autograd's, for four hidden units on XOR's corners") {
  const Net net = random_net(4, 1);
  const Grads yours = gradients(net, kX, kY), truth = autograd_gradients(net, kX, kY);
  for (const std::string& wrong : diagnoses(yours, truth, 4))
    CHECK_MESSAGE(wrong.empty(), wrong);
}

TEST_CASE(
    "your gradients are autograd's for 8 hidden units on 16 random points: no size "
    "is special") {
  Generator gen(11);
  const Net net = random_net(8, 2);
  const Tensor x = randn({16, 2}, gen), y = randn({16, 1}, gen);
  const Grads yours = gradients(net, x, y), truth = autograd_gradients(net, x, y);
  for (const std::string& wrong : diagnoses(yours, truth, 16))
    CHECK_MESSAGE(wrong.empty(), wrong);
}

TEST_CASE(
    "trained by hand for 600 steps at rate 0.2 from autograd's start, the network fits "
    "XOR (loss below 1e-12) with autograd's weights, to 1e-9") {
  Net mine = random_net(4, 1);
  train_by_hand(mine, kX, kY, 600, 0.2);
  // The same start, trained by autograd and optim::SGD.
  Generator gen(1);
  nn::Linear first(2, 4, true, gen), second(4, 1, true, gen);
  std::vector<Tensor> parameters = first.parameters();
  for (const Tensor& p : second.parameters()) parameters.push_back(p);
  optim::SGD opt(parameters, {0.2});
  for (int t = 0; t < 600; ++t) {
    opt.zero_grad();
    mse_loss(second(tanh(first(kX))), kY).backward();
    opt.step();
  }
  const Tensor h = tanh(matmul(kX, transpose(mine.W1, 0, 1)) + mine.b1);
  const Tensor out = matmul(h, transpose(mine.W2, 0, 1)) + mine.b2;
  const double loss = mean((out - kY) * (out - kY)).item();
  INFO("your loss after 600 steps: ", loss, " (autograd's training reaches ",
       mse_loss(second(tanh(first(kX))), kY).item(), ")");
  CHECK_MESSAGE(
      loss < 1e-12, "the loss did not fall below 1e-12: a loss that grows ",
      "points to the step taken uphill; one that falls but stops short points ",
      "to a gradient that is off (the tests above say which); does each step ",
      "go against the gradient, for every parameter, at the given rate?");
  const double gap = std::max({max(abs(mine.W1 - first.weight)).item(),
                               max(abs(mine.b1 - first.bias)).item(),
                               max(abs(mine.W2 - second.weight)).item(),
                               max(abs(mine.b2 - second.bias)).item()});
  CHECK_MESSAGE(gap < 1e-9, "your weights ended ", gap, " from autograd's: the steps ",
                "differ, in size, in sign, or in how many were taken");
}
