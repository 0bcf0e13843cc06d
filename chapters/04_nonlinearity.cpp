// Chapter 4 · Nonlinearity
// ========================
//
// Chapter 3 fitted a line. Most things worth learning are not lines, and the smallest
// example of one is XOR: four points in the plane, labelled 1 when exactly one of the
// two inputs is 1. No line fits it, and the best one gives up entirely. Stacking linear
// layers does not help, because a linear map of a linear map is one linear map. What
// helps is a *bend* between the layers: a nonlinear function, an *activation*, such as
// :math:`\tanh` or :math:`\max(0, z)`, applied to every hidden number. With one, four
// hidden units fit XOR, and not approximately: four units can fit four points exactly.
//
// A bend brings its own troubles, and this chapter measures each. Its slope is what
// carries gradients back, and where the bend flattens out, gradients die. The hidden
// units must start different from one another, or they stay identical forever. And the
// size of the random start decides whether a signal survives a deep stack of layers, by
// a factor per layer that we derive and hold the measurements to. Last, what the bends
// buy: one hidden layer of rectifiers draws a curve of straight pieces, one per unit at
// most, while a deep stack of two units a layer can double its pieces with every layer.

// %% about: XOR, which no line and no stack of linear layers can fit; activations and
// their slopes, where gradients die; why the start must be random and how large it must
// be; straight pieces, and what depth buys once there is a bend.
// %% assumes: 1, 2, 3

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <litgrad/book/bits.hpp>
#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::kU;  // u = 2^-53, double's unit roundoff (chapter 1)
using book::out;

namespace {

// The seeds of every claim that starts from random numbers.
const std::vector<std::uint64_t> kSeeds = {1, 2, 3};

// %% 1 · XOR, which no line can fit
//
// The four inputs are the corners of the unit square, and the target is 1 on the two
// corners where exactly one input is 1. No line separates the two kinds of corner: a
// line :math:`w_1 x_1 + w_2 x_2 + b = 0` with :math:`(0, 1)` and :math:`(1, 0)` on its
// positive side needs :math:`w_2 + b > 0` and :math:`w_1 + b > 0`, which add up to
// :math:`w_1 + w_2 + 2b > 0`; with :math:`(0, 0)` and :math:`(1, 1)` on its negative
// side it needs :math:`b < 0` and :math:`w_1 + w_2 + b < 0`, which add up to the
// opposite.

struct Xor {
  Tensor x, y;  // x [4, 2], the corners; y [4, 1], the targets
};

Xor xor_data() {
  return {tensor({0, 0, 0, 1, 1, 0, 1, 1}, {4, 2}), tensor({0, 1, 1, 0}, {4, 1})};
}

// %%
// The best *affine* model :math:`\hat y = w_1 x_1 + w_2 x_2 + b` is chapter 3's least
// squares with one input more. Subtracting the means
// (:math:`\bar x = (\tfrac12, \tfrac12)`, :math:`\bar y = \tfrac12`) takes :math:`b`
// out of the problem: the best :math:`w` solves :math:`C w = c`, and then
// :math:`b = \bar y - w \cdot \bar x`. Here :math:`C = \tfrac1n \sum_i (x_i - \bar
// x)(x_i - \bar x)^T` is the inputs' *covariance* (how they vary together) and :math:`c
// = \tfrac1n \sum_i (x_i - \bar x)(y_i - \bar y)` their covariance with the target:
// chapter 3's normal equations, written for centred data so that the intercept drops
// out. For XOR, :math:`c = 0`: each input is 1 at two corners, where the target is 1
// once and 0 once. The inputs are uncorrelated, :math:`C = \tfrac14 I`, so
// :math:`w = 0` and :math:`b = \tfrac12`. The best plane is flat: it predicts
// :math:`\tfrac12` at every corner, each error is :math:`\tfrac12`, and the mean
// squared error is :math:`\tfrac14`. Halves and quarters are exact in binary, so all of
// this holds exactly, and the test asks for equality.

struct Affine {
  double w1 = 0, w2 = 0, b = 0;
};

// Least squares from centred sums: C w = c, solved by Cramer's rule for two inputs.
Affine best_affine(const Xor& d) {
  const Tensor x_mean = mean(d.x, {0}, true), y_mean = mean(d.y);  // [1, 2], []
  const Tensor xc = d.x - x_mean, yc = d.y - y_mean;               // [4, 2], [4, 1]
  const Tensor C = matmul(transpose(xc, 0, 1), xc) / 4;            // [2, 2]
  const Tensor c = matmul(transpose(xc, 0, 1), yc) / 4;            // [2, 1]
  const double c00 = C.at({0, 0}), c01 = C.at({0, 1}), c11 = C.at({1, 1});
  const double det = c00 * c11 - c01 * c01;
  Affine fit;
  fit.w1 = (c.at({0, 0}) * c11 - c01 * c.at({1, 0})) / det;
  fit.w2 = (c00 * c.at({1, 0}) - c01 * c.at({0, 0})) / det;
  fit.b = y_mean.item() - fit.w1 * x_mean.at({0, 0}) - fit.w2 * x_mean.at({0, 1});
  return fit;
}

TEST_CASE(
    "the best affine fit to XOR is flat: w = 0 and b = 1/2 exactly, so it predicts 1/2 "
    "at every corner and its mean squared error is exactly 1/4") {
  const Xor d = xor_data();
  const Affine fit = best_affine(d);
  const Tensor predicted = d.x.matmul(tensor({fit.w1, fit.w2}, {2, 1})) + fit.b;
  out() << "best affine fit: w = (" << fit.w1 << ", " << fit.w2 << "), b = " << fit.b
        << ", predictions " << predicted.flatten() << "\n";
  book::check("w1", fit.w1, "the first input's weight", book::exactly(0));
  book::check("w2", fit.w2, "the second input's weight", book::exactly(0));
  book::check("b", fit.b, "the intercept", book::exactly(0.5));
  book::check("mean squared error", mse_loss(predicted, d.y).item(),
              "of the best affine fit", book::exactly(0.25));
}

// %%
// Gradient descent lands there too, as chapter 3 showed it must on a bowl, at a speed
// set by the bowl's curvatures. The Hessian of the mean squared error is
// :math:`H = \tfrac2n A^T A`, with :math:`A` the inputs with a column of ones for
// :math:`b`:
//
// .. math::
//
//    H = \begin{pmatrix} 1 & \tfrac12 & 1 \\ \tfrac12 & 1 & 1 \\ 1 & 1 & 2
//    \end{pmatrix}.
//
// Its eigenvalues can be found by hand: :math:`(1, -1, 0)` is an eigenvector with
// eigenvalue :math:`\tfrac12`, and the other two, at right angles to it, have the form
// :math:`(1, 1, t)`; the first row of :math:`H v = \lambda v` gives
// :math:`t = \lambda - \tfrac32`, and the last row then :math:`\lambda^2 - \tfrac72
// \lambda + 1 = 0`, so :math:`\lambda = (7 \pm \sqrt{33})/4`, about 3.19 and 0.31.
//
// So a rate of 0.5, below :math:`2 / \lambda_{\max} \approx 0.63`, converges, and the
// slowest axis shrinks by :math:`1 - 0.5 \cdot 0.31 \approx 0.84` per step: after 300
// steps the distance from the flat plane is down by :math:`0.84^{300} \approx
// 10^{-23}`. What is left is rounding. Each step rounds every parameter by up to
// :math:`u` times its size (at most :math:`\tfrac12` here) and computes the gradient,
// four residuals of size :math:`\tfrac12` times inputs of 0 or 1, a couple of :math:`u`
// off, which the rate halves: about :math:`1.5u` of error a step. The slowest axis
// forgives 16% of any error per step, so errors of that size, all pushing the same
// way, would pile up to about :math:`1.5u / 0.16 \approx 9.4u`. That is an estimate,
// not a bound: "a couple of :math:`u`" is itself a guess, and rounding errors need not
// line up. The test holds every parameter to :math:`10u` of the flat plane, a
// threshold the estimate suggests rather than proves.

TEST_CASE(
    "gradient descent on the affine model ends on the flat plane from three random "
    "starts: w = 0 and b = 1/2, to 10u") {
  const Xor d = xor_data();
  book::check_seeds("largest parameter gap", "how far w or b ends from the flat plane",
                    book::at_most(10 * kU), kSeeds, [&](std::uint64_t seed) {
                      Generator gen(seed);
                      nn::Linear plane(2, 1, true, gen);
                      optim::SGD opt(plane.parameters(), {0.5});
                      for (int t = 0; t < 300; ++t) {
                        opt.zero_grad();
                        mse_loss(plane(d.x), d.y).backward();
                        opt.step();
                      }
                      return std::max({std::fabs(plane.weight.at({0, 0})),
                                       std::fabs(plane.weight.at({0, 1})),
                                       std::fabs(plane.bias.at({0}) - 0.5)});
                    });
}

// %% 2 · Linear layers stacked are one linear layer
//
// A linear layer computes :math:`W x + b`. Two in a row compute :math:`W_2 (W_1 x +
// b_1) + b_2 = (W_2 W_1) x + (W_2 b_1 + b_2)`: one layer, with weight :math:`W_2 W_1`
// and bias :math:`W_2 b_1 + b_2`. However many are stacked, the result is an affine
// map, and so can do no better on XOR than section 1's flat plane.
//
// In floating point the two routes round differently: one rounds :math:`W_1 x` first,
// the other :math:`W_2 W_1`. Each output is made of :math:`n = 3 \cdot 8 + 8 + 1` terms
// (the products :math:`W_{2,ij} W_{1,jk} x_k`, the products :math:`W_{2,ij} b_{1,j}`,
// and :math:`b_{2,i}`), and however they are grouped, each term passes through at most
// :math:`n` roundings on the way to the output, so to first order each route is within
// :math:`n u S` of the exact value, with :math:`S` the sum of the terms' sizes, and the
// two routes within :math:`2 n u S` of each other.

// One layer equal to second(first(x)): weight W2 W1, bias W2 b1 + b2.
nn::Linear compose(const nn::Linear& first, const nn::Linear& second) {
  nn::Linear one(first.in_features, second.out_features);
  NoGradGuard no_grad;
  one.weight.copy_(matmul(second.weight, first.weight));
  one.bias.copy_(matmul(second.weight, first.bias.unsqueeze(1)).squeeze(1) +
                 second.bias);
  return one;
}

TEST_CASE(
    "two linear layers give what one composed layer gives, to within the rounding "
    "bound 2nuS of each output") {
  Generator gen(2);
  const nn::Linear first(3, 8, true, gen), second(8, 2, true, gen);
  const nn::Linear one = compose(first, second);
  const Tensor x = randn({100, 3}, gen);
  const Tensor gap = abs(second(first(x)) - one(x));  // [100, 2]
  // S: every product |x_k| |W1_jk| |W2_ij|, every |b1_j| |W2_ij|, and |b2_i|.
  const Tensor w1 = abs(first.weight), w2 = abs(second.weight);
  const Tensor size = matmul(matmul(abs(x), transpose(w1, 0, 1)) + abs(first.bias),
                             transpose(w2, 0, 1)) +
                      abs(second.bias);
  const double n = 3 * 8 + 8 + 1;
  book::check("largest gap / bound", max(gap / (2 * n * kU * size)).item(),
              "the worst output's gap as a fraction of its bound 2nuS",
              book::at_most(1.0));
}

// %%
// Training a stack of linear layers therefore cannot beat :math:`\tfrac14` on XOR. The
// test trains three of them, :math:`2 \to 8 \to 8 \to 1`, by gradient descent for 3,000
// steps. At no step may the loss go below :math:`\tfrac14` by more than rounding, and
// the bound above says how much that can be. Each output of the stack is a sum of
// :math:`n = 2 \cdot 8 \cdot 8 + 8 \cdot 8 + 8 + 1 = 201` terms (the products through
// both hidden layers from each input, and from each bias on), so it is within
// :math:`\delta = n u S` of its exact value, :math:`S` the sum of the terms' sizes. An
// output :math:`\hat y` off by :math:`\delta` moves its squared error by at most
// :math:`2 |\hat y - y| \delta` to first order, and so the mean of the four by at most
// :math:`2 E \delta`, with :math:`E` the largest :math:`|\hat y - y|`. Computing the
// loss rounds each of its four terms a few more times: the difference (which the
// square doubles, :math:`2u`), the square (:math:`u`), and at most three additions
// (:math:`3u`); the terms are all positive, so the loss :math:`L` is off by at most
// :math:`6uL`, and the division by 4 is exact. So the computed loss may sit below
// :math:`\tfrac14` by at most :math:`2 E n u S + 6 u L`. The test computes that bound
// at every step, from the weights that made the step's loss, and checks the loss
// against it. It is a worst case, which sums every rounding at its largest; the loss
// comes far closer to :math:`\tfrac14` than that (the run's account shows how close).
// How close to :math:`\tfrac14` the stack gets in 3,000 steps is shown, measured, but
// not claimed: its loss as a function of three layers of weights is not a bowl, and
// chapter 3's rates do not apply.

// Three linear layers, 2 → 8 → 8 → 1, trained on XOR by gradient descent at rate 0.1.
struct LinearStack {
  nn::Linear first, second, third;
  explicit LinearStack(Generator& gen)
      : first(2, 8, true, gen), second(8, 8, true, gen), third(8, 1, true, gen) {}
  Tensor forward(const Tensor& x) const { return third(second(first(x))); }
  std::vector<Tensor> parameters() const {
    return {first.weight, first.bias,   second.weight,
            second.bias,  third.weight, third.bias};
  }
  // S for each output [4, 1]: the sizes of its terms, summed (the same products as the
  // output's, on absolute values).
  Tensor term_sizes(const Tensor& x) const {
    NoGradGuard no_grad;
    Tensor s = matmul(abs(x), transpose(abs(first.weight), 0, 1)) + abs(first.bias);
    s = matmul(s, transpose(abs(second.weight), 0, 1)) + abs(second.bias);
    return matmul(s, transpose(abs(third.weight), 0, 1)) + abs(third.bias);
  }
};

// The loss at every step, and how far below 1/4 rounding could put it:
// 2 E n u S + 6 u L.
struct StackRun {
  std::vector<double> losses, rounding;
};

StackRun linear_losses(std::uint64_t seed, int steps) {
  const Xor d = xor_data();
  const double n = 2 * 8 * 8 + 8 * 8 + 8 + 1;
  Generator gen(seed);
  LinearStack net(gen);
  optim::SGD opt(net.parameters(), {0.1});
  StackRun run;
  for (int t = 0; t < steps; ++t) {
    opt.zero_grad();
    const Tensor out = net.forward(d.x);
    const Tensor loss = mse_loss(out, d.y);
    const double e = max(abs(out.detach() - d.y)).item();
    const double s = max(net.term_sizes(d.x)).item();
    run.losses.push_back(loss.item());
    run.rounding.push_back(2 * e * n * kU * s + 6 * kU * loss.item());
    loss.backward();
    opt.step();
  }
  return run;
}

TEST_CASE(
    "three linear layers trained on XOR never go below 1/4 by more than the rounding "
    "bound 2EnuS + 6uL, at any of 3,000 steps, for three seeds") {
  book::check_seeds(
      "lowest (loss - 1/4) / bound",
      "the least, over 3,000 steps, of the loss minus 1/4 as a fraction of that step's "
      "rounding bound",
      book::at_least(-1.0).large_margin_because(book::kWorstCaseRounding), kSeeds,
      [](std::uint64_t seed) {
        const StackRun run = linear_losses(seed, 3000);
        double lowest = 0;
        for (std::size_t t = 0; t < run.losses.size(); ++t)
          lowest = std::min(lowest, (run.losses[t] - 0.25) / run.rounding[t]);
        out() << "seed " << seed << ": final loss minus 1/4 "
              << run.losses.back() - 0.25 << ", least loss minus 1/4 "
              << *std::min_element(run.losses.begin(), run.losses.end()) - 0.25
              << ", rounding bound at the end " << run.rounding.back() << "\n";
        return lowest;
      });
}

// %% 3 · Bends and their slopes
//
// A bend is a function applied to every number of a layer's output, one at a time.
// Three are common. The *sigmoid* :math:`\sigma(z) = 1 / (1 + e^{-z})` squeezes every
// number into :math:`(0, 1)`; :math:`\tanh z = (e^z - e^{-z}) / (e^z + e^{-z})`, which
// is :math:`2 \sigma(2z) - 1`, squeezes into :math:`(-1, 1)`, centred on 0; and the
// *rectifier* :math:`\operatorname{relu}(z) = \max(0, z)` keeps positive numbers and
// zeroes the rest.
//
// Backpropagation (chapter 2) multiplies the gradient arriving at a bend by its slope,
// so the slopes matter as much as the bends. Each can be written with the bend's own
// output, which the forward pass has already computed: :math:`\sigma'(z) = e^{-z} / (1
// + e^{-z})^2`, a product of :math:`1 / (1 + e^{-z}) = \sigma` and :math:`e^{-z} / (1 +
// e^{-z}) = 1 - \sigma`, so :math:`\sigma' = \sigma (1 - \sigma)`; the quotient rule
// on tanh's fraction gives :math:`\tanh' = 1 - \tanh^2`; and
// :math:`\operatorname{relu}'(z)` is 1 for :math:`z > 0` and 0 for :math:`z < 0` (at 0
// itself litgrad, like torch, takes 0). The sigmoid's slope is largest where
// :math:`\sigma = \tfrac12`, at :math:`z = 0`, and there it is exactly
// :math:`\tfrac14`; tanh's is 1 at 0. Away from 0 both flatten: :math:`\tanh'(z) = 4 /
// (e^z + e^{-z})^2` is below :math:`4 e^{-2|z|}`, under :math:`2 \cdot 10^{-4}` at
// :math:`|z| = 5`, and :math:`\sigma'(z) = e^{-z} / (1 + e^{-z})^2` is below
// :math:`e^{-|z|}`. A unit whose input sits out there is *saturated*: whatever its
// output is doing wrong, almost no gradient gets back through it. And since the
// sigmoid's slope is at most :math:`\tfrac14`, a chain of :math:`L` sigmoids shrinks
// the gradient by at least :math:`4^L`, unless the weights between them make up for it.
//
// .. figure:: activations
//
//    The three bends (left) and their slopes (right), as autograd computes them: the
//    sigmoid's slope never passes 1/4; tanh's and the sigmoid's die away on both sides;
//    relu's is 1 on the right and 0 on the left.

// %% fold: drawing the bends and their slopes
void draw_activations(const Tensor& z, const std::vector<Tensor>& values,
                      const std::vector<Tensor>& slopes) {
  const std::vector<std::string> names = {"sigmoid", "tanh", "relu"};
  std::vector<double> xs = z.to_vector();
  std::vector<book::Json> left, right;
  for (std::size_t k = 0; k < names.size(); ++k) {
    left.push_back(book::series(names[k], xs, values[k].to_vector()));
    right.push_back(book::series(names[k], xs, slopes[k].to_vector()));
  }
  book::figure(
      "activations",
      book::side_by_side(
          {book::line_plot("z", "f(z)", left).set("title", "bend"),
           book::line_plot("z", "f'(z), by autograd", right).set("title", "slope")}));
}

// Autograd's slope of f at every point of z: each output depends on its own input only.
Tensor slope(Tensor (*f)(const Tensor&), const Tensor& z) {
  Tensor at = z.detach().requires_grad_();
  sum(f(at)).backward();
  return at.grad();
}

// %%
// The test asks autograd for the slopes at the 1,601 points :math:`z = k / 100` of
// :math:`[-8, 8]` (so that :math:`z = 0` is among them exactly), and sends one number
// through ten sigmoids in a row.

TEST_CASE(
    "the sigmoid's slope is at most 1/4, reached only at 0, tanh's at most 1 and "
    "relu's exactly 1 or 0: at z = 5 tanh's and the sigmoid's are below 4e^-10 and "
    "e^-5, and ten sigmoids in a row pass back less than 4^-10") {
  std::vector<double> grid;
  for (int k = -800; k <= 800; ++k) grid.push_back(k / 100.0);
  const Tensor z = tensor(grid, {1601});
  const Tensor s = slope(sigmoid, z), t = slope(tanh, z), r = slope(relu, z);
  int other_peaks = 0, wrong_relu = 0;
  for (std::int64_t i = 0; i < 1601; ++i) {
    other_peaks += grid[i] != 0 && s.at({i}) >= 0.25;
    wrong_relu += r.at({i}) != (grid[i] > 0 ? 1.0 : 0.0);
  }
  book::check("largest sigmoid slope", max(s).item(), "over the 1,601 points",
              book::exactly(0.25));
  book::check("other points at 1/4", other_peaks,
              "points other than z = 0 where the sigmoid's slope reaches 1/4",
              book::exactly(0));
  book::check("largest tanh slope", max(t).item(), "over the 1,601 points",
              book::exactly(1));
  book::check("wrong relu slopes", wrong_relu, "points whose slope is not [z > 0]",
              book::exactly(0));
  book::check("tanh slope at 5", t.at({1300}), "1 - tanh²(5): saturated",
              book::below(4 * std::exp(-10.0)));
  book::check("sigmoid slope at 5", s.at({1300}), "σ(5)(1 - σ(5))",
              book::below(std::exp(-5.0)));
  Tensor x = scalar_tensor(0.5).requires_grad_();
  Tensor chain = x;
  for (int k = 0; k < 10; ++k) chain = sigmoid(chain);
  chain.backward();
  book::check("slope through ten sigmoids", x.grad().item(),
              "d(σ∘σ∘...∘σ)/dx at 0.5, ten of them", book::at_most(std::pow(4.0, -10)));
  draw_activations(z, {sigmoid(z), tanh(z), relu(z)}, {s, t, r});
}

// %%
// The rectifier does not saturate on the right, where its slope is 1 however large
// :math:`z` grows. Its trouble is on the left. A rectified unit whose input is negative
// for *every* example outputs 0 for all of them, and its slope there is exactly 0, so
// its incoming weights and bias receive a gradient of exactly 0; its output weight
// multiplies a 0, so it receives exactly 0 too. Nothing about the unit ever changes: it
// is *dead*, not approximately but bit for bit. The test builds a 2 → 4 → 1 rectifier
// network for XOR, sets one unit's bias to :math:`-10` (its weights are below 1 in
// size, so its input is below :math:`2 - 10` at every corner), trains the network for
// 1,000 steps and compares.

// A network with one hidden layer of rectified units: [n, in] → [n, out].
struct ReluNet : nn::Module {
  nn::Linear hidden, output;
  ReluNet(std::int64_t in, std::int64_t width, Generator& gen)
      : Module("ReluNet"), hidden(in, width, true, gen), output(width, 1, true, gen) {
    register_module("hidden", hidden);
    register_module("output", output);
  }
  Tensor forward(const Tensor& x) const { return output(relu(hidden(x))); }
};

// Unit j's numbers: its two input weights, its bias and its output weight.
std::vector<double> unit(const ReluNet& net, std::int64_t j) {
  return {net.hidden.weight.at({j, 0}), net.hidden.weight.at({j, 1}),
          net.hidden.bias.at({j}), net.output.weight.at({0, j})};
}

TEST_CASE(
    "a rectified unit that is negative on every input gets a gradient of exactly 0 and "
    "stays unchanged bit for bit through training, while the others move") {
  const Xor d = xor_data();
  Generator gen(5);
  ReluNet net(2, 4, gen);
  {
    NoGradGuard no_grad;
    net.hidden.bias.data()[3] = -10;  // unit 3: input at most |w1| + |w2| - 10 < 0
  }
  std::vector<std::vector<double>> before;
  for (std::int64_t j = 0; j < 4; ++j) before.push_back(unit(net, j));
  optim::SGD opt(net.parameters(), {0.1});
  for (int t = 0; t < 1000; ++t) {
    opt.zero_grad();
    mse_loss(net.forward(d.x), d.y).backward();
    opt.step();
  }
  int dead_changed = 0, live_changed = 0;
  for (std::int64_t j = 0; j < 4; ++j) {
    const std::vector<double> after = unit(net, j);
    for (std::size_t k = 0; k < 4; ++k)
      (j == 3 ? dead_changed : live_changed) += after[k] != before[j][k];
  }
  book::check("dead unit's changed numbers", dead_changed,
              "of its two weights, bias and output weight, those that moved in any bit",
              book::exactly(0));
  book::check("live units' changed numbers", live_changed,
              "of the other three units' twelve numbers, those that moved",
              book::above(0));
}

// %% 4 · A bend between the layers
//
// Put a bend between the layers and the composition is no longer affine. Two rectified
// units already compute XOR exactly: with :math:`s = x_1 + x_2`, the network
// :math:`\operatorname{relu}(s) - 2 \operatorname{relu}(s - 1)` gives 0, 1, 1 and 0 at
// the four corners (:math:`s` = 0, 1, 1, 2, and at 2 the second unit takes back twice
// what the first adds past 1). Every number here is a small integer, so the outputs
// equal the targets exactly. The test writes the weights into two ``nn::Linear`` layers
// with ``copy_``, inside a ``NoGradGuard``: weights are leaves of the graph that
// require gradients, and writing over them in place is only allowed while nothing is
// being recorded (torch has the same rule).

TEST_CASE("two ReLU units, with weights set by hand, compute XOR exactly") {
  const Xor d = xor_data();
  nn::Linear hidden(2, 2), output(2, 1);
  {
    NoGradGuard no_grad;
    hidden.weight.copy_(tensor({1, 1, 1, 1}, {2, 2}));
    hidden.bias.copy_(tensor({0, -1}, {2}));
    output.weight.copy_(tensor({1, -2}, {1, 2}));
    output.bias.copy_(tensor({0}, {1}));
  }
  const Tensor y = output(relu(hidden(d.x)));
  out() << "relu(s) - 2 relu(s - 1) at the corners: " << y.flatten() << "\n";
  book::check("corners missed", sum(ne(y, d.y).to(DType::Float64)).item(),
              "corners whose output differs from the target in any bit",
              book::exactly(0));
}

// %%
// Weights set by hand prove that a bent network *can* fit XOR; the question for
// learning is whether gradient descent *finds* such weights. We use :math:`\tanh`,
// smooth where relu has a corner, four hidden units, and litgrad's default start for
// ``nn::Linear`` (uniform in :math:`\pm 1/\sqrt{\text{inputs}}`, as torch's). The
// network is a small ``nn::Module``: a class holding its layers as members, which it
// registers so that ``parameters()`` can hand all their weights to the optimiser.
//
// How well can it fit? Look at the output layer alone: it combines the four hidden
// numbers :math:`h_{ij}` of corner :math:`i` with four weights and a bias, five numbers
// for four targets. Four equations in five unknowns have an exact solution unless the
// hidden numbers are degenerate (two units that compute the same thing, say), which a
// random start makes infinitely unlikely. So the least loss is not small but *zero*,
// and the network *interpolates*: four units can fit four points.
//
// Near such a fit the loss is chapter 3's bowl again, with its bottom at zero. Write
// :math:`e` for the four errors, output minus target, and :math:`J` for the
// :math:`4 \times 17` matrix of derivatives of the four outputs with respect to the
// seventeen weights. A step of rate :math:`\eta` moves the weights by
// :math:`-\eta \tfrac2n J^T e` (the gradient of the mean squared error), which moves
// the outputs by :math:`J` times that, so
//
// .. math::
//
//    e \leftarrow \left(I - \tfrac{2\eta}{n} J J^T\right) e.
//
// The errors shrink by a fixed matrix every step, each direction by its own factor, and
// the loss heads to zero geometrically, as in chapter 3. It is only a first-order
// picture: :math:`J` changes as the weights move. But once the loss is below
// :math:`10^{-12}` the errors are below :math:`10^{-6}`, the weights have about as far
// left to go, and :math:`J` changes by a relative :math:`10^{-6}` or so from there on.
// Each step's factor :math:`\tfrac{2\eta}{n} J J^T` (about 0.1 in size here) is then
// off by some :math:`10^{-7}`, and 200 steps of it by :math:`2 \cdot 10^{-5}`, twice
// that in the squared errors. So the test trains from a random start until the loss
// first drops below :math:`10^{-12}`, computes :math:`J` there with one backward pass
// per corner, predicts the loss 200 steps later by applying the matrix 200 times, and
// asks the prediction to match the training's loss to a relative :math:`10^{-4}`.

// A 2 → 4 → 1 network with tanh between its layers.
struct TanhNet : nn::Module {
  nn::Linear hidden, output;
  explicit TanhNet(Generator& gen)
      : Module("TanhNet"), hidden(2, 4, true, gen), output(4, 1, true, gen) {
    register_module("hidden", hidden);
    register_module("output", output);
  }
  Tensor forward(const Tensor& x) const { return output(tanh(hidden(x))); }
};

constexpr double kRate = 0.2;  // the rate every XOR network here trains with

// Full-batch gradient descent on XOR; the loss before every step.
std::vector<double> train_xor(TanhNet& net, int steps) {
  const Xor d = xor_data();
  optim::SGD opt(net.parameters(), {kRate});
  std::vector<double> losses;
  for (int t = 0; t < steps; ++t) {
    opt.zero_grad();
    const Tensor loss = mse_loss(net.forward(d.x), d.y);
    losses.push_back(loss.item());
    loss.backward();
    opt.step();
  }
  return losses;
}

// %% fold: the Jacobian of the four outputs, one backward pass per corner
// J [4, P]: row i holds d output_i / d parameter, for the P parameters in order.
Tensor jacobian(TanhNet& net, const Tensor& x) {
  std::vector<Tensor> rows;
  for (std::int64_t i = 0; i < x.shape()[0]; ++i) {
    net.zero_grad();
    net.forward(select(x, 0, i).unsqueeze(0)).sum().backward();
    std::vector<Tensor> row;
    for (const Tensor& p : net.parameters()) row.push_back(p.grad().flatten());
    rows.push_back(cat(row, 0));
  }
  net.zero_grad();
  return stack(rows, 0);
}

// %%
// The training loop is the one above, stopped where the loss first drops below
// :math:`10^{-12}`; a network that never gets there in 3,000 steps fails the claim.

// The relative gap between the loss 200 steps after it first drops below 1e-12 and
// what e ← (I - 2η/n J Jᵀ) e predicts; infinite if it never drops that low.
double bowl_prediction_gap(TanhNet& net) {
  const Xor d = xor_data();
  int t = 0;
  while (mse_loss(net.forward(d.x), d.y).item() >= 1e-12) {
    if (++t > 3000) return INFINITY;
    train_xor(net, 1);
  }
  const Tensor J = jacobian(net, d.x);  // [4, 17]
  const Tensor step = eye(4) - (2 * kRate / 4) * matmul(J, transpose(J, 0, 1));
  Tensor e = (net.forward(d.x) - d.y).detach();  // [4, 1]
  for (int k = 0; k < 200; ++k) e = matmul(step, e);
  const double predicted = mean(e * e).item();
  const double measured = train_xor(net, 201).back();
  out() << "loss below 1e-12 after " << t << " steps; 200 steps on: predicted "
        << predicted << ", measured " << measured << "\n";
  return std::fabs(predicted / measured - 1);
}

TEST_CASE(
    "four tanh units fit XOR's four points exactly: from a random start, once the loss "
    "is below 1e-12 it falls as the bowl e ← (I - 2η/n J Jᵀ) e predicts, to 1e-4 over "
    "200 steps, for three seeds") {
  book::check_seeds("relative gap", "between the predicted and the measured loss",
                    book::at_most(1e-4), kSeeds, [](std::uint64_t seed) {
                      Generator gen(seed);
                      TanhNet net(gen);
                      return bowl_prediction_gap(net);
                    });
}

// %% 5 · Why the start must be random
//
// Start every weight and bias at the same value, 0.25. Then the four hidden units are
// interchangeable: they compute the same number on every input, so the output weights
// receive the same gradient, so the hidden units receive the same gradient back, and
// after the step they are still identical. By induction they stay identical forever,
// and not just to rounding: the same operations on the same bits give the same bits.
// XOR is also symmetric in its two inputs, and at the corners (0, 1) and (1, 0) the
// units see the same sum, so each unit's two input weights stay equal too.

// Every weight and bias set to value + noise · (a standard normal draw).
void start_equal(TanhNet& net, double value, double noise, Generator& gen) {
  NoGradGuard no_grad;
  for (Tensor& p : net.parameters()) p.copy_(value + noise * randn(p.shape(), gen));
}

TEST_CASE(
    "started equal, the hidden units stay identical bit for bit through 3,000 steps, "
    "and so do each unit's two input weights") {
  Generator gen(4);
  TanhNet net(gen);
  start_equal(net, 0.25, 0.0, gen);
  train_xor(net, 3000);
  const Tensor& w1 = net.hidden.weight;  // [4, 2]
  out() << "hidden weights after training:\n" << w1 << "\n";
  int differing = 0;
  for (std::int64_t j = 0; j < 4; ++j) {
    differing += w1.at({j, 0}) != w1.at({0, 0}) || w1.at({j, 1}) != w1.at({0, 0});
    differing += net.hidden.bias.at({j}) != net.hidden.bias.at({0});
    differing += net.output.weight.at({0, j}) != net.output.weight.at({0, 0});
  }
  book::check("differing numbers", differing,
              "hidden weights, biases or output weights unlike unit 0's",
              book::exactly(0));
}

// %%
// Such a network is really one unit: its output is
// :math:`a \tanh(w (x_1 + x_2) + b) + d`, a monotone function of :math:`s = x_1 + x_2`.
// The corners have :math:`s` = 0, 1, 1, 2 with targets 0, 1, 1, 0: up, then down, which
// no monotone function follows. The best it can do is the best monotone fit. A rising
// fit cannot be lower at :math:`s = 2` than at :math:`s = 1`, so its best is 0 at
// :math:`s = 0` and one value for both :math:`s = 1` and 2: the mean of their three
// targets, :math:`\tfrac23`, with squared errors
// :math:`\tfrac19 + \tfrac19 + \tfrac49`. A falling fit is the mirror image. So the
// mean squared error can never go below :math:`\tfrac14 \cdot \tfrac69 = \tfrac16`,
// whatever the training does, to the rounding of the loss, for which we allow
// :math:`10^{-14}`.
//
// .. figure:: xor_losses
//
//    The loss of three models trained on XOR, on a log scale: three linear layers stop
//    at 1/4; a tanh network started with all weights equal creeps down towards 1/6,
//    which it cannot pass; the same network started at random falls by a steady factor
//    per step, a straight line on this scale, until rounding stops it.
//
// .. figure:: xor_outputs
//
//    What the models compute over the plane, with XOR's four corners: the best plane is
//    1/2 everywhere; the tanh network from a random start is high near the corners
//    labelled 1 and low near those labelled 0; from an equal start its output depends
//    on x1 + x2 alone, constant along every line x1 + x2 = constant.

// %% fold: drawing the three loss curves, with the levels 1/4 and 1/6, and the outputs
void draw_losses(const std::vector<double>& linear, const std::vector<double>& equal,
                 const std::vector<double>& random) {
  std::vector<double> steps, lin, eq, rnd;
  for (std::size_t t = 0; t < random.size(); t += 10) {
    steps.push_back(static_cast<double>(t));
    lin.push_back(linear[t]), eq.push_back(equal[t]), rnd.push_back(random[t]);
  }
  const std::vector<double> ends = {0, steps.back()};
  book::figure(
      "xor_losses",
      book::line_plot("step", "mean squared error",
                      {book::series("1/4", ends, {0.25, 0.25}).set("style", "k--"),
                       book::series("1/6", ends, {1.0 / 6, 1.0 / 6}).set("style", "k:"),
                       book::series("three linear layers", steps, lin),
                       book::series("tanh, equal start", steps, eq),
                       book::series("tanh, random start", steps, rnd)},
                      true));
}

// The output over a grid of the plane, as a field; the corners, by target.
book::Json output_panel(const std::string& title, const Tensor& z, bool colorbar) {
  std::vector<double> axis;
  for (int i = 0; i <= 40; ++i) axis.push_back(-0.25 + 1.5 * i / 40);
  book::Json field = book::field(axis, axis, z, "contour", 10);
  field.set("vmin", 0.0).set("vmax", 1.0);
  if (colorbar) field.set("colorbar", "output");
  return book::plane("x1", "x2", field, {},
                     {book::points("corner, with its target", {0, 0, 1, 1},
                                   {0, 1, 0, 1}, {"0", "1", "1", "0"})},
                     true)
      .set("title", title);
}

void draw_outputs(const TanhNet& random, const TanhNet& equal) {
  std::vector<double> grid;  // 41 × 41 points (x1, x2), x1 fastest
  for (int i = 0; i <= 40; ++i)
    for (int j = 0; j <= 40; ++j)
      grid.push_back(-0.25 + 1.5 * j / 40), grid.push_back(-0.25 + 1.5 * i / 40);
  const Tensor x = tensor(grid, {41 * 41, 2});
  NoGradGuard no_grad;
  book::figure(
      "xor_outputs",
      book::side_by_side({output_panel("best plane", full({41, 41}, 0.5), false),
                          output_panel("tanh, random start",
                                       random.forward(x).reshape({41, 41}), false),
                          output_panel("tanh, equal start",
                                       equal.forward(x).reshape({41, 41}), true)}));
}

// %%
// The test trains the equal start and checks every step's loss against
// :math:`\tfrac16`.

TEST_CASE(
    "started equal, the network's error never goes below 1/6, the best a monotone "
    "function of x1 + x2 can do") {
  Generator gen(4);
  TanhNet net(gen);
  start_equal(net, 0.25, 0.0, gen);
  const std::vector<double> equal = train_xor(net, 3000);
  book::check(
      "lowest loss minus 1/6", *std::min_element(equal.begin(), equal.end()) - 1.0 / 6,
      "the least the loss reached, at any step, minus 1/6", book::at_least(-1e-14));
  Generator other(1);
  TanhNet random(other);
  draw_losses(linear_losses(1, 3000).losses, equal, train_xor(random, 3000));
  draw_outputs(random, net);
}

// %%
// Randomness breaks the tie, and it need not be much: add a normal draw of scale
// :math:`10^{-3}` to each of those equal values, and the units differ a little at the
// start, receive slightly different gradients, and drift apart. Once apart, they are
// four units again, and section 4's exact fit is open to them. The test counts the
// steps until the loss first drops below :math:`10^{-12}`, where section 4 found the
// random start's bowl, and asks for fewer than 3,000, for three seeds. This is why
// layers whose weights mix their inputs, such as ``nn::Linear``, start from random
// numbers, in the library as in torch.

TEST_CASE(
    "a start equal but for noise of scale 1e-3 breaks the tie: the loss drops below "
    "1e-12 within 3,000 steps, for three seeds") {
  const Xor d = xor_data();
  book::check_seeds("steps to 1e-12", "until the loss first drops below 1e-12",
                    book::below(3000), kSeeds, [&](std::uint64_t seed) {
                      Generator gen(seed);
                      TanhNet net(gen);
                      start_equal(net, 0.25, 1e-3, gen);
                      int t = 0;
                      while (t < 3000 && train_xor(net, 1)[0] >= 1e-12) ++t;
                      return static_cast<double>(t);
                    });
}

// %% 6 · How large to start
//
// Random, then, but how large? Take a deep stack: :math:`L` layers of width :math:`n`,
// each computing :math:`z = h W` and passing :math:`h' = f(z)` on, with every weight
// drawn from a normal distribution of standard deviation :math:`g / \sqrt n`, a *gain*
// :math:`g` over the square root of the layer's inputs. One output of a layer is a sum
// of :math:`n` independent terms :math:`h_j W_{jk}`, each of mean 0, so its variance
// is the sum of theirs:
//
// .. math::
//
//    \operatorname{Var} z_k = n \cdot \frac{g^2}{n} \cdot \overline{h^2}
//    = g^2\, \overline{h^2},
//
// with :math:`\overline{h^2}` the mean square of the layer's inputs. Write
// :math:`q_l` for the mean square of layer :math:`l`'s :math:`z`. Each :math:`z` is a
// sum of many small independent terms, close to normal, so the next layer's inputs have
// mean square :math:`\mathbb{E}[f(\sqrt{q_l}\, \xi)^2]`, with :math:`\xi` a standard
// normal draw, and
//
// .. math::
//
//    q_{l+1} = g^2\, \mathbb{E}\left[f(\sqrt{q_l}\, \xi)^2\right].
//
// For the rectifier this is exact and simple: half of a symmetric :math:`z` is
// zeroed, so :math:`\mathbb{E}[\operatorname{relu}(z)^2] = q_l / 2`, and every layer
// multiplies the mean square by :math:`g^2 / 2`. The gain must be :math:`\sqrt 2`:
// this is He (or Kaiming) initialisation (He et al., 2015). With :math:`g = 1` (Glorot
// and Bengio's 2010 choice, *Xavier* initialisation, derived for layers without a bend
// or with tanh, whose slope at 0 is 1) the signal halves at every layer, and thirty
// layers leave :math:`2^{-30} \approx 10^{-9}` of it; with :math:`g = 2` it doubles,
// and thirty layers make it :math:`10^9` times larger. The gradient on its way back
// crosses the same weights (transposed, again :math:`n` of them per sum) and the same
// zeroed half, so it shrinks or grows by the same :math:`g^2/2` per layer, on the way
// to the first layer's weights.
//
// How close should a measurement come? Given one layer's inputs, its :math:`n` outputs
// are independent normal draws, so their mean square is the expected one times a
// chi-square average of :math:`n` squares, of relative variance :math:`2/n`. The
// layer's inputs, a rectified half of the previous :math:`z`, add their own sampling
// noise: the mean of :math:`\operatorname{relu}(z)^2` differs from half the mean of
// :math:`z^2` by half the mean of :math:`z^2 \operatorname{sign} z`, of relative
// variance :math:`3/n`. So each layer's measured factor is off by a relative
// :math:`\sqrt{5/n}` or so, independently, and the average over :math:`L - 1` layers of
// the log of measured over predicted factor has standard error :math:`s = \sqrt{5 / (n
// (L - 1))}`. With :math:`n = 512` and :math:`L = 30`, :math:`s \approx 0.018`: we ask
// each per-layer factor to be within :math:`e^{\pm 4s}`, 7.6%, of :math:`g^2 / 2`,
// forward and back, for three seeds, from one input of standard normal numbers. (For
// the gradient we start at the last :math:`z` with standard normal numbers and measure
// what reaches the input, one more product by :math:`W` and no zeroed half, so the
// prediction there is :math:`g^2 (g^2/2)^{L-1}`.)

constexpr std::int64_t kWidth = 512;
constexpr int kDepth = 30;

// A stack of kDepth layers z = h W, h' = f(z), weights of standard deviation g/√n, from
// one input of standard normal numbers: the mean square of every layer's z, and that of
// the gradient reaching the input when the last z is given a standard normal gradient.
struct Stack {
  std::vector<double> q;  // q[l], the mean square of layer l + 1's z
  double input_grad = 0, output_grad = 0;
  double saturated = 0;  // the fraction of the last layer's units with |z| > 2
};

Stack deep_stack(Tensor (*f)(const Tensor&), double gain, std::uint64_t seed) {
  Generator gen(seed);
  const Tensor x = randn({1, kWidth}, gen).requires_grad_();
  Tensor h = x, z;
  Stack s;
  for (int l = 0; l < kDepth; ++l) {
    const Tensor W = (gain / std::sqrt(double(kWidth))) * randn({kWidth, kWidth}, gen);
    z = matmul(h, W);  // [1, n] @ [n, n]
    s.q.push_back(mean(z * z).item());
    h = f(z);
  }
  const Tensor r = randn({1, kWidth}, gen);  // the gradient given to the last z
  sum(z * r).backward();
  s.input_grad = mean(x.grad() * x.grad()).item();
  s.output_grad = mean(r * r).item();
  s.saturated = mean((abs(z) > 2.0).to(DType::Float64)).item();
  return s;
}

// %% fold: each stack built once per process; drawing the mean squares against depth
struct Gain {
  double g;
  std::string name;
};

const Stack& stack_of(Tensor (*f)(const Tensor&), const Gain& gain,
                      std::uint64_t seed) {
  static std::vector<std::pair<std::string, Stack>> built;
  const std::string key =
      (f == relu ? "relu " : "tanh ") + gain.name + " " + std::to_string(seed);
  for (const auto& [k, st] : built)
    if (k == key) return st;
  built.push_back({key, deep_stack(f, gain.g, seed)});
  return built.back().second;
}

book::Json depth_panel(const std::string& title, const std::vector<Gain>& gains,
                       const std::vector<std::vector<double>>& measured,
                       const std::vector<std::vector<double>>& predicted) {
  std::vector<double> layers;
  for (int l = 1; l <= kDepth; ++l) layers.push_back(l);
  std::vector<book::Json> series;
  for (std::size_t k = 0; k < gains.size(); ++k)
    series.push_back(book::series(gains[k].name, layers, measured[k]));
  for (std::size_t k = 0; k < gains.size(); ++k)
    series.push_back(book::series(k == 0 ? "predicted" : "", layers, predicted[k])
                         .set("style", "k--"));
  return book::line_plot("layer", "mean square of z", series, true).set("title", title);
}

// %%
// The rectifier stack first: gains 1, :math:`\sqrt 2` and 2, the same random numbers
// scaled. Since :math:`\operatorname{relu}(c z) = c \operatorname{relu}(z)` for
// :math:`c > 0`, the three stacks are one stack at three scales, and their measured
// factors over :math:`g^2/2` agree to rounding: the gain decides nothing but the factor
// itself.
//
// .. figure:: depth_scale_relu
//
//    The mean square of each layer's z through 30 rectifier layers of width 512, on a
//    log scale (one seed; dashed, the prediction): the gain g shrinks, keeps or grows
//    the signal by g²/2 per layer.

TEST_CASE(
    "through 30 ReLU layers, the mean square of the signal changes by g²/2 per layer, "
    "forward and back, within 4 standard errors, for g = 1, √2 and 2 and three seeds") {
  const double s = std::sqrt(5.0 / (kWidth * (kDepth - 1)));
  const std::vector<Gain> gains = {
      {1.0, "g = 1"}, {std::sqrt(2.0), "g = √2"}, {2.0, "g = 2"}};
  std::vector<std::vector<double>> shown, predicted;
  for (const Gain& gain : gains) {
    const double factor = gain.g * gain.g / 2;
    book::check_seeds(
        "forward factor / (g²/2), " + gain.name,
        "the measured per-layer factor, (q_L / q_1)^(1/(L-1)), over g²/2",
        book::between(std::exp(-4 * s), std::exp(4 * s)), kSeeds,
        [&](std::uint64_t seed) {
          const Stack& st = stack_of(relu, gain, seed);
          return std::pow(st.q.back() / st.q.front(), 1.0 / (kDepth - 1)) / factor;
        });
    book::check_seeds(
        "backward factor / (g²/2), " + gain.name,
        "the same for the gradient's mean square, from the last z to the input",
        book::between(std::exp(-4 * s), std::exp(4 * s)), kSeeds,
        [&](std::uint64_t seed) {
          const Stack& st = stack_of(relu, gain, seed);
          const double total = st.input_grad / (gain.g * gain.g * st.output_grad);
          return std::pow(total, 1.0 / (kDepth - 1)) / factor;
        });
    const Stack& first = stack_of(relu, gain, kSeeds[0]);
    shown.push_back(first.q);
    predicted.push_back({first.q[0]});
    for (int l = 1; l < kDepth; ++l)
      predicted.back().push_back(predicted.back().back() * factor);
  }
  book::figure("depth_scale_relu", depth_panel("relu", gains, shown, predicted));
}

// %%
// For tanh the expectation has no closed form, so the chapter computes it by Simpson's
// rule over :math:`\xi \in [-12, 12]` (beyond which the normal density is below
// :math:`10^{-31}`), and follows the recursion from the measured :math:`q_1`. Small
// signals pass almost unbent, :math:`\tanh z \approx z`, so with :math:`g = \tfrac12`
// the mean square falls by :math:`\tfrac14` per layer. With Xavier's :math:`g = 1` it
// still fades, because tanh squashes: :math:`\mathbb{E}[\tanh^2] \approx q - 2q^2` for
// small :math:`q`, and :math:`q_l` falls like :math:`1 / (2l)`, slowly but without end.
// A larger gain makes up for the squashing: torch's recommended gain for tanh,
// :math:`\tfrac53`, and :math:`g = 2` both lead to a fixed point :math:`q^*` where the
// two balance (:math:`\tfrac53` is ``torch.nn.init.calculate_gain("tanh")``). The
// price is saturation: at :math:`g = 2` the fixed point is :math:`q^* \approx 2.1` (the
// run prints it, and the test holds it within 0.05 of that), and the fraction of units
// beyond :math:`|z| = 2`, where tanh's slope is below 0.071, is
// :math:`P(|\xi| > 2 / \sqrt{q^*})`, about a sixth (within 0.01, checked too).
//
// The comparison is layer by layer: each measured :math:`q_{l+1}` against the
// recursion applied to the measured :math:`q_l`. Each is a chi-square average over
// :math:`n` units as before, and the mean of :math:`\tanh^2` varies from sample to
// sample less than the mean of :math:`z^2` does (tanh flattens large values), so the
// same :math:`s` bounds the mean of the logs' standard error, and we ask again for
// :math:`e^{\pm 4s}`. The fraction saturated at the last layer is held to four of its
// standard errors, :math:`\sqrt{p (1 - p) / n}`: given the layer's inputs, its
// :math:`n` units are independent.
//
// .. figure:: depth_scale_tanh
//
//    The same for 30 tanh layers (dashed, the recursion): with g = 1/2 the signal
//    shrinks by 1/4 per layer; with g = 1 it fades slowly; with 5/3 or 2 it settles
//    where tanh's squashing balances the gain.

// E[tanh(√q ξ)²] for a standard normal ξ, by Simpson's rule on [-12, 12].
double mean_square_after_tanh(double q) {
  const int m = 2000;
  const double h = 24.0 / m;
  double total = 0;
  for (int i = 0; i <= m; ++i) {
    const double xi = -12 + i * h, weight = i == 0 || i == m ? 1 : i % 2 ? 4 : 2;
    const double t = std::tanh(std::sqrt(q) * xi);
    total += weight * t * t * std::exp(-xi * xi / 2);
  }
  return total * h / 3 / std::sqrt(2 * M_PI);
}

TEST_CASE(
    "through 30 tanh layers, each layer's mean square follows q' = g² E[tanh²(√q ξ)] "
    "within 4 standard errors, for g = 1/2, 1, 5/3 and 2 and three seeds, and at g = "
    "2 a sixth of the units saturate, as predicted") {
  const double s = std::sqrt(5.0 / (kWidth * (kDepth - 1)));
  const std::vector<Gain> gains = {
      {0.5, "g = 1/2"}, {1.0, "g = 1"}, {5.0 / 3, "g = 5/3"}, {2.0, "g = 2"}};
  std::vector<std::vector<double>> shown, predicted;
  for (const Gain& gain : gains) {
    const double g2 = gain.g * gain.g;
    book::check_seeds(
        "per-layer measured / predicted, " + gain.name,
        "exp of the mean over layers of log(q_l+1 / g² E[tanh²(√q_l ξ)])",
        book::between(std::exp(-4 * s), std::exp(4 * s)), kSeeds,
        [&](std::uint64_t seed) {
          const Stack& st = stack_of(tanh, gain, seed);
          double logs = 0;
          for (int l = 0; l + 1 < kDepth; ++l)
            logs += std::log(st.q[l + 1] / (g2 * mean_square_after_tanh(st.q[l])));
          return std::exp(logs / (kDepth - 1));
        });
    const Stack& first = stack_of(tanh, gain, kSeeds[0]);
    shown.push_back(first.q);
    predicted.push_back({first.q[0]});
    for (int l = 1; l < kDepth; ++l)
      predicted.back().push_back(g2 * mean_square_after_tanh(predicted.back().back()));
  }
  book::check_seeds(
      "saturated fraction minus predicted, g = 2",
      "units of the last layer with |z| > 2, minus P(|ξ| > 2/√q*), in standard errors",
      book::between(-4, 4), kSeeds, [&](std::uint64_t seed) {
        const Stack& st = stack_of(tanh, gains.back(), seed);
        double q = st.q[0];
        for (int l = 1; l < kDepth; ++l) q = 4 * mean_square_after_tanh(q);
        const double p = std::erfc(2 / std::sqrt(2 * q));  // P(|√q ξ| > 2)
        out() << "seed " << seed << ": q* = " << q << ", saturated " << st.saturated
              << ", predicted " << p << "\n";
        return (st.saturated - p) / std::sqrt(p * (1 - p) / kWidth);
      });
  double q = stack_of(tanh, gains.back(), kSeeds[0]).q[0];  // the fixed point at g = 2
  for (int l = 1; l < kDepth; ++l) q = 4 * mean_square_after_tanh(q);
  book::check("q* at g = 2", q, "the recursion's fixed point, as the prose gives it",
              book::within(0.05, 2.1));
  book::check("predicted saturated fraction at g = 2", std::erfc(2 / std::sqrt(2 * q)),
              "P(|ξ| > 2/√q*), a sixth as the prose gives it",
              book::within(0.01, 1.0 / 6));
  book::figure("depth_scale_tanh", depth_panel("tanh", gains, shown, predicted));
}

// %% 7 · Straight pieces, and what depth buys
//
// With one input and a hidden layer of :math:`m` rectified units, a network computes
// :math:`f(x) = \sum_j v_j \operatorname{relu}(w_j x + b_j) + d`. Each unit is zero on
// one side of :math:`x_j = -b_j / w_j` and straight on the other, so :math:`f` is made
// of straight pieces joined at the *kinks* :math:`x_j`: at most :math:`m` of them, and
// so at most :math:`m + 1` pieces. Crossing :math:`x_j` from left to right turns unit
// :math:`j` on (if :math:`w_j > 0`) or off (if :math:`w_j < 0`), and either way the
// slope jumps by :math:`v_j |w_j|`.
//
// Autograd sees exactly this. Its slope at :math:`x` is
// :math:`\sum_j v_j w_j [w_j x + b_j > 0]`, added in the same order wherever :math:`x`
// lies (chapter 1's product of a row with a column), and between two kinks the same
// terms are on. So the slope is constant *bit for bit* on each piece, and on a grid it
// takes exactly one value per piece the grid visits. At each kink the jump matches
// :math:`v_j |w_j|` to the rounding of a sum of :math:`m` terms, which the test bounds
// by :math:`2 m u \sum_j |v_j w_j|`.
//
// We look at trained networks: 16 units fitted by gradient descent to :math:`\sin 3x`
// at 64 points of :math:`[-1, 1]`, from three random starts.
//
// .. figure:: relu_fit
//
//    A network of 16 ReLU units fitted to sin 3x: straight pieces, with its kinks
//    inside [-1, 1] marked.

// %% fold: fitting a curve with ReLU networks, once per seed
struct Curve {
  Tensor x, y;  // [64, 1] each
};

Curve sine_curve() {
  const Tensor x = linspace(-1, 1, 64).reshape({64, 1});
  return {x, sin(3.0 * x)};
}

// A width-`width` network fitted to the curve: 5,000 steps of gradient descent at 0.1.
ReluNet fit_curve(std::int64_t width, std::uint64_t seed) {
  const Curve c = sine_curve();
  Generator gen(seed);
  ReluNet net(1, width, gen);
  optim::SGD opt(net.parameters(), {0.1});
  for (int t = 0; t < 5000; ++t) {
    opt.zero_grad();
    mse_loss(net.forward(c.x), c.y).backward();
    opt.step();
  }
  return net;
}

// Autograd's slope df/dx at each point of x ([m, 1]): each output depends on its own x.
Tensor slopes(const ReluNet& net, const Tensor& x) {
  Tensor at = x.detach().requires_grad_();
  sum(net.forward(at)).backward();
  return at.grad();
}

// Unit j's kink -b_j / w_j, for every unit whose w_j is not zero.
std::vector<std::pair<double, std::int64_t>> kinks(const ReluNet& net) {
  std::vector<std::pair<double, std::int64_t>> found;
  for (std::int64_t j = 0; j < net.hidden.out_features; ++j) {
    const double w = net.hidden.weight.at({j, 0}), b = net.hidden.bias.at({j});
    if (w != 0) found.push_back({-b / w, j});
  }
  std::sort(found.begin(), found.end());
  return found;
}

void draw_fit(const ReluNet& net) {
  const Tensor x = linspace(-1, 1, 401).reshape({401, 1});
  NoGradGuard no_grad;
  const Tensor f = net.forward(x), target = sin(3.0 * x);
  std::vector<double> xs(x.data(), x.data() + 401), fs(f.data(), f.data() + 401),
      ts(target.data(), target.data() + 401), kx, ky;
  for (const auto& [at, j] : kinks(net))
    if (at > -1 && at < 1)
      kx.push_back(at), ky.push_back(net.forward(tensor({at}, {1, 1})).item());
  book::figure("relu_fit",
               book::plane("x", "f(x)", book::Json(),
                           {book::path("sin 3x", xs, ts).set("markers", false),
                            book::path("16 ReLU units", xs, fs).set("markers", false)},
                           {book::points("kinks", kx, ky)}));
}

// %%
// The test takes five points inside each piece between consecutive kinks (and beyond
// the outermost ones), one point just either side of each kink, and then 20,001 evenly
// spaced points of :math:`[-3, 3]`, where it counts the distinct slopes against the
// pieces visited.

TEST_CASE(
    "a ReLU network's slope is constant bit for bit between its kinks, jumps by "
    "v_j |w_j| at kink j, to 2mu Σ|v_j w_j|, and so takes one value per piece, at most "
    "m + 1, for three trained networks") {
  int changes = 0, mismatched = 0;
  double worst = 0, most = 0;
  const Tensor grid = linspace(-3, 3, 20001).reshape({20001, 1});
  for (auto seed : kSeeds) {
    const ReluNet net = fit_curve(16, seed);
    const auto at = kinks(net);
    std::vector<double> edges = {at.front().first - 2};
    for (const auto& k : at) edges.push_back(k.first);
    edges.push_back(at.back().first + 2);
    for (std::size_t p = 0; p + 1 < edges.size(); ++p) {
      std::vector<double> inside;
      for (double f : {0.1, 0.3, 0.5, 0.7, 0.9})
        inside.push_back(edges[p] + f * (edges[p + 1] - edges[p]));
      const Tensor s = slopes(net, tensor(inside, {5, 1}));
      for (std::int64_t i = 1; i < 5; ++i) changes += s.at({i, 0}) != s.at({0, 0});
    }
    double scale = 0;
    for (std::int64_t j = 0; j < 16; ++j)
      scale += std::fabs(net.output.weight.at({0, j}) * net.hidden.weight.at({j, 0}));
    const double bound = 2 * 16 * kU * scale;
    for (std::size_t k = 0; k < at.size(); ++k) {
      const double left = k == 0 ? edges[0] : (at[k - 1].first + at[k].first) / 2;
      const double right =
          k + 1 == at.size() ? edges.back() : (at[k].first + at[k + 1].first) / 2;
      const Tensor s = slopes(net, tensor({left, right}, {2, 1}));
      const std::int64_t j = at[k].second;
      const double jump =
          net.output.weight.at({0, j}) * std::fabs(net.hidden.weight.at({j, 0}));
      worst = std::max(worst, std::fabs(s.at({1, 0}) - s.at({0, 0}) - jump) / bound);
    }
    // On the grid: distinct slopes against pieces visited (kinks left of a point).
    const Tensor s = slopes(net, grid);
    const std::set<double> distinct(s.data(), s.data() + s.numel());
    std::vector<double> positions;
    for (const auto& k : at) positions.push_back(k.first);
    std::set<std::ptrdiff_t> visited;
    for (std::int64_t i = 0; i < grid.numel(); ++i)
      visited.insert(
          std::lower_bound(positions.begin(), positions.end(), grid.data()[i]) -
          positions.begin());
    out() << "seed " << seed << ": " << at.size() << " kinks, " << distinct.size()
          << " distinct slopes on the grid, " << visited.size() << " pieces visited\n";
    most = std::max(most, static_cast<double>(distinct.size()));
    mismatched += distinct.size() != visited.size();
    if (seed == kSeeds[0]) draw_fit(net);
  }
  book::check("slope changes inside a piece", changes,
              "points whose slope differed in any bit from their piece's first",
              book::exactly(0));
  book::check("largest jump gap / bound", worst,
              "the worst kink's gap between jump and v_j |w_j|, over its bound",
              book::at_most(1.0).large_margin_because(book::kWorstCaseRounding));
  book::check("mismatched networks", mismatched,
              "networks whose distinct slopes on the grid differ in number from the "
              "pieces the grid visits",
              book::exactly(0));
  book::check("distinct slopes", most,
              "the most different values among one network's 20,001 slopes",
              book::at_most(17));
}

// %%
// More units, more pieces. Set by hand, :math:`m` units make the straight-line
// interpolant of a curve through :math:`m + 1` evenly spaced points of :math:`[-1, 1]`:
// unit :math:`k` switches on at the point :math:`x_k = -1 + 2k/m` (weight 1, bias
// :math:`-x_k`), and its output weight is the change of slope there. Between two points
// the interpolant is off by at most :math:`h^2 \max |f''| / 8`, with :math:`h = 2/m`
// the spacing (the error of a straight chord over a curve), and for :math:`\sin 3x`,
// :math:`|f''| \le 9`. So twice the units can follow this curve four times as closely.
// The bound is nearly reached, too. A chord's error at the middle of its interval is
// exactly :math:`h^2 |f''(\xi)| / 8` for some :math:`\xi` in the interval, and on the
// interval that holds :math:`\pi/6`, where :math:`|f''| = 9 |\sin 3x|` peaks at 9,
// every :math:`\xi` is within :math:`h` of the peak, so :math:`|f''(\xi)| \ge 9 \cos 3h
// \ge 9 (1 - 9h^2/2)`: at least 0.93 of the bound for 16 units, more for more. The
// grid's points miss that middle by at most 0.0005, which costs a relative :math:`4
// \cdot 0.0005^2 / h^2 \le 0.001`. The test builds the interpolant for 16, 32 and 64
// units and holds its largest error on 2,001 points between 0.92 and 1 times the bound.

// m ReLU units equal to the chord-by-chord interpolant of sin 3x on [-1, 1].
ReluNet interpolant(std::int64_t width) {
  Generator unused(0);  // the random start is overwritten below
  ReluNet net(1, width, unused);
  const double h = 2.0 / static_cast<double>(width);
  std::vector<double> bias, change;
  double before = 0;  // the slope left of the point, 0 left of -1
  for (std::int64_t k = 0; k < width; ++k) {
    const double at = -1 + h * static_cast<double>(k);
    const double slope = (std::sin(3 * (at + h)) - std::sin(3 * at)) / h;
    bias.push_back(-at), change.push_back(slope - before), before = slope;
  }
  NoGradGuard no_grad;
  net.hidden.weight.copy_(scalar_tensor(1));
  net.hidden.bias.copy_(tensor(bias, {width}));
  net.output.weight.copy_(tensor(change, {1, width}));
  net.output.bias.copy_(scalar_tensor(std::sin(-3.0)));
  return net;
}

TEST_CASE(
    "set by hand, m = 16, 32 and 64 ReLU units give the interpolant of sin 3x, off by "
    "at most 9h²/8 and by more than 0.92 of it") {
  const Tensor x = linspace(-1, 1, 2001).reshape({2001, 1});
  double worst = 0, least = INFINITY;
  for (std::int64_t width : {16, 32, 64}) {
    const double h = 2.0 / static_cast<double>(width);
    NoGradGuard no_grad;
    const double error = max(abs(interpolant(width).forward(x) - sin(3.0 * x))).item();
    out() << width << " units: largest error " << error << ", bound " << 9 * h * h / 8
          << "\n";
    worst = std::max(worst, error / (9 * h * h / 8));
    least = std::min(least, error / (9 * h * h / 8));
  }
  book::check("largest error / bound", worst,
              "the worst width's largest error as a fraction of 9h²/8",
              book::at_most(1.0));
  book::check("smallest error / bound", least,
              "the best width's largest error as a fraction of 9h²/8",
              book::above(0.92));
}

// %%
// One hidden layer buys pieces one unit at a time. Depth buys them by multiplication.
// The *tent* :math:`t(x) = 2 \operatorname{relu}(x) - 4 \operatorname{relu}(x -
// \tfrac12)` rises from 0 to 1 on :math:`[0, \tfrac12]` and falls back to 0 on
// :math:`[\tfrac12, 1]`: two units, two pieces, and it maps :math:`[0, 1]` onto itself
// twice over. Apply it again and each of its two pieces sweeps the whole tent: four
// pieces. After :math:`k` layers of it, :math:`t(t(\cdots t(x)))` is a sawtooth of
// :math:`2^k` pieces, each of slope :math:`\pm 2^k`, made by :math:`2k` units (the
// example is Telgarsky's, 2016). One hidden layer needs at least :math:`2^k - 1` units
// for as many pieces, by the count above. With :math:`k = 10`, twenty units in ten
// layers do what one layer needs 1,023 units for.
//
// Floating point does not blur this: on points :math:`(i + \tfrac12)/2^{13}` every
// number the network computes is a multiple of :math:`2^{-14}` below 2, a number
// doubles hold exactly, and the products by 2 and 4 and the subtractions of
// :math:`\tfrac12` are exact. So every slope autograd reports is exactly :math:`\pm
// 2^{10}`, and the pieces can be counted, exactly, as the sign changes of the slope
// along the grid, plus one.
//
// .. figure:: tent
//
//    One, two, three and four layers of the tent: each layer of two units doubles the
//    straight pieces.

// k layers of the tent, each Linear(1, 2), relu, Linear(2, 1): 2k units in all.
Tensor tents(const Tensor& x, int k) {
  nn::Linear up(1, 2), down(2, 1);
  {
    NoGradGuard no_grad;
    up.weight.copy_(tensor({1, 1}, {2, 1}));
    up.bias.copy_(tensor({0, -0.5}, {2}));
    down.weight.copy_(tensor({2, -4}, {1, 2}));
    down.bias.copy_(scalar_tensor(0));
  }
  Tensor y = x;  // [m, 1]
  for (int layer = 0; layer < k; ++layer) y = down(relu(up(y)));
  return y;
}

// %% fold: drawing the sawtooth after one to four layers
void draw_tents() {
  const Tensor x = linspace(0, 1, 513).reshape({513, 1});
  NoGradGuard no_grad;
  std::vector<book::Json> panels;
  for (int k = 1; k <= 4; ++k)
    panels.push_back(
        book::line_plot("x", "output",
                        {book::series("", x.to_vector(), tents(x, k).to_vector())})
            .set("title", std::to_string(k) + (k == 1 ? " layer" : " layers")));
  book::figure("tent", book::side_by_side(panels));
}

// %%
// The test counts the pieces of ten tent layers on :math:`2^{13}` points.

TEST_CASE(
    "ten layers of two ReLU units, the tent composed ten times, make exactly 1,024 "
    "straight pieces on [0, 1], every slope exactly ±1024, where one hidden layer "
    "would need 1,023 units") {
  const int k = 10, points = 1 << 13;
  std::vector<double> grid;
  for (int i = 0; i < points; ++i) grid.push_back((i + 0.5) / points);
  Tensor x = tensor(grid, {points, 1}).requires_grad_();
  sum(tents(x, k)).backward();
  const Tensor s = x.grad();
  int off = 0, changes = 0;
  for (std::int64_t i = 0; i < points; ++i) {
    off += std::fabs(s.at({i, 0})) != 1024.0;
    if (i > 0) changes += (s.at({i, 0}) > 0) != (s.at({i - 1, 0}) > 0);
  }
  book::check("slopes not ±1024", off, "grid points whose slope is not exactly ±2^10",
              book::exactly(0));
  book::check("pieces", changes + 1, "sign changes of the slope along the grid, plus 1",
              book::exactly(1024));
  draw_tents();
}

// %% fold: the end of the file's namespace
}  // namespace
