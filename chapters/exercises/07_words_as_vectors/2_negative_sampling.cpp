// Exercise 7.2 · Negative sampling
// ================================
//
// Section 4's softmax scores all :math:`V` words for every pair, which is too much for
// a vocabulary of a million. word2vec (Mikolov et al., 2013) asks a cheaper question
// instead: for the true pair (centre :math:`c`, neighbour :math:`o`) and for :math:`k`
// *negative* words :math:`n_1, \dots, n_k` drawn at random, is this a real neighbour
// or noise? With :math:`v` the centre's vector and :math:`u_w` word :math:`w`'s row of
// an output table, the answer is the probability :math:`\sigma(u_w \cdot v)`, and the
// pair's loss is
//
// .. math::
//
//    -\log \sigma(u_o \cdot v) - \sum_{i=1}^{k} \log \sigma(-u_{n_i} \cdot v),
//
// with :math:`\sigma(x) = 1/(1 + e^{-x})`. Only :math:`k + 1` rows of the output table
// take part, not :math:`V`. Write the loss of one pair, and add its gradients with
// respect to :math:`v` and to every row of the output table into the two arrays you
// are given. The tests compare both with litgrad's autograd on
// ``binary_cross_entropy_with_logits`` (the same loss, with targets 1 for the
// neighbour and 0 for the noise), with a noise word drawn twice and the neighbour
// itself drawn as noise, check that rows no word used get nothing, and feed you
// scores of :math:`\pm 800`.

// %% hint
// The derivative of :math:`-\log \sigma(s)` with respect to :math:`s` is
// :math:`\sigma(s) - 1`, and that of :math:`-\log \sigma(-s)` is :math:`\sigma(s)`;
// from a score :math:`s = u \cdot v` the chain rule hands each of them to both
// :math:`u` and :math:`v`. For the scores of :math:`\pm 800`, write :math:`-\log
// \sigma(x) = \log(1 + e^{-x})` so that the exponential never overflows.

// %% fold: includes, and the same loss with litgrad
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
struct Result {
  double loss = 0;
  std::vector<double> grad_centre, grad_output;
};

// The loss and its gradients by autograd: the scores of the neighbour and the noise
// words, and binary cross-entropy with targets 1, 0, ..., 0, summed.
Result litgrad_loss(const std::vector<double>& centre,
                    const std::vector<double>& output, int D, int context,
                    const std::vector<int>& negatives) {
  const auto V = static_cast<std::int64_t>(output.size()) / D;
  Tensor v = tensor(centre, {D}).requires_grad_();
  Tensor u = tensor(output, {V, D}).requires_grad_();
  std::vector<double> words = {double(context)}, targets = {1};
  for (int w : negatives) words.push_back(w), targets.push_back(0);
  const auto n = static_cast<std::int64_t>(words.size());
  const Tensor scores =
      matmul(index_select(u, 0, tensor(words, {n}, DType::Int64)), v.reshape({D, 1}))
          .reshape({n});
  const Tensor loss =
      binary_cross_entropy_with_logits(scores, tensor(targets, {n}), Reduction::Sum);
  loss.backward();
  return {loss.item(), v.grad().to_vector(), u.grad().to_vector()};
}

double largest_gap(const std::vector<double>& a, const std::vector<double>& b) {
  double gap = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    gap = std::fmax(gap, std::fabs(a[i] - b[i]));
  return gap;
}

std::vector<double> random_numbers(std::int64_t n, std::uint64_t seed, double scale) {
  Generator gen(seed);
  return (scale * randn({n}, gen)).to_vector();
}
}  // namespace

// %%
// The function to write, in ``exercises/07_words_as_vectors/2_negative_sampling.cpp``:

double negative_sampling_loss(const std::vector<double>& centre,
                              const std::vector<double>& output, int D, int context,
                              const std::vector<int>& negatives,
                              std::vector<double>& grad_centre,
                              std::vector<double>& grad_output);

// %% fold: what a wrong answer points to
namespace {
// One pair in two dimensions: v = (1, 0), the neighbour's row (2, 0) and one noise
// word's row (1, 0), drawn twice: loss log(1 + e^-2) + 2 log(1 + e^1) = 2.7596.
std::string probe() {
  const std::vector<double> v = {1, 0}, output = {2, 0, 1, 0, 0, 0};
  std::vector<double> gc(2, 0), go(6, 0);
  const double loss = negative_sampling_loss(v, output, 2, 0, {1, 1}, gc, go);
  const Result right = litgrad_loss(v, output, 2, 0, {1, 1});
  const std::string s =
      "for v = (1, 0), u_o = (2, 0) and a noise row (1, 0) drawn "
      "twice, your loss is " +
      std::to_string(loss) + " (right: " + std::to_string(right.loss) + ")";
  const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-9; };
  if (near(loss, std::log1p(std::exp(-2.0)) + 2 * std::log1p(std::exp(-1.0))))
    return s +
           ": the noise is scored like the neighbour; this points to the noise "
           "words' sign";
  if (near(loss, right.loss) && near(go[2], right.grad_output[2] / 2))
    return s +
           ": the noise row drawn twice got one draw's gradient; this points to a "
           "repeated noise word's gradient overwritten";
  if (near(loss, right.loss) && near(gc[0], 2 * (1 / (1 + std::exp(-2.0)) - 1)))
    return s +
           ": the centre's gradient has only the neighbour's part; this points to "
           "the centre's gradient without the noise words";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("the loss is -log σ(u_o · v) - Σ log σ(-u_n · v), as litgrad computes it") {
  INFO(probe());
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto v = random_numbers(4, seed, 1.0),
               u = random_numbers(6 * 4, seed + 10, 0.7);
    std::vector<double> gc(4, 0), go(24, 0);
    const double loss = negative_sampling_loss(v, u, 4, 2, {0, 5, 3}, gc, go);
    const Result right = litgrad_loss(v, u, 4, 2, {0, 5, 3});
    INFO("seed ", seed, ": your loss ", loss, ", litgrad's ", right.loss);
    CHECK(std::fabs(loss - right.loss) <= 1e-14 * right.loss);
  }
}

TEST_CASE(
    "the gradients of v and of every output row match autograd's, with a noise word "
    "drawn twice and the neighbour drawn as noise") {
  INFO(probe());
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto v = random_numbers(4, seed, 1.0),
               u = random_numbers(6 * 4, seed + 10, 0.7);
    std::vector<double> gc(4, 0), go(24, 0);
    negative_sampling_loss(v, u, 4, 2, {5, 2, 5, 1}, gc, go);
    const Result right = litgrad_loss(v, u, 4, 2, {5, 2, 5, 1});
    INFO("seed ", seed);
    CHECK(largest_gap(gc, right.grad_centre) <= 1e-14);
    CHECK(largest_gap(go, right.grad_output) <= 1e-14);
  }
}

TEST_CASE("output rows that no word of the pair used get no gradient, in any bit") {
  INFO(probe());
  const auto v = random_numbers(4, 7, 1.0), u = random_numbers(6 * 4, 8, 0.7);
  std::vector<double> gc(4, 0), go(24, 0);
  negative_sampling_loss(v, u, 4, 1, {3, 4}, gc, go);
  int used = 0, unused = 0;
  for (int w = 0; w < 6; ++w)
    for (int j = 0; j < 4; ++j) {
      const bool touched = go[w * 4 + j] != 0.0;
      (w == 1 || w == 3 || w == 4 ? used : unused) += touched;
    }
  INFO(used, " of the 12 numbers of the used rows got a gradient");
  CHECK(used == 12);
  CHECK(unused == 0);
}

TEST_CASE("scores of ±800 give the same finite loss and gradients as litgrad's") {
  INFO(probe());
  // The neighbour scores -800 and both noise words 800: a model as wrong as can be.
  const std::vector<double> v = {40, -20}, u = {-20, 0, 0, -40, 20, 0};
  std::vector<double> gc(2, 0), go(6, 0);
  const double loss = negative_sampling_loss(v, u, 2, 0, {1, 2}, gc, go);
  const Result right = litgrad_loss(v, u, 2, 0, {1, 2});
  INFO("your loss ", loss, ", litgrad's ", right.loss,
       std::string(std::isfinite(loss)
                       ? ""
                       : ": e^800 overflowed; this points to log σ computed "
                         "as it is written"));
  CHECK(std::isfinite(loss));
  CHECK(std::fabs(loss - right.loss) <= 1e-12 * right.loss);
  CHECK(largest_gap(gc, right.grad_centre) <= 1e-12);
  CHECK(largest_gap(go, right.grad_output) <= 1e-12);
}
