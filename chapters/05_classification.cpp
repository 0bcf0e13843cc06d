// Chapter 5 · Classification
// ==========================
//
// Until now every model predicted a number. Many questions have a fixed set of answers
// instead: which of three clusters a point belongs to, which of 27 characters comes
// next, which word of a sentence to look at. A classifier gives every class a score,
// and *softmax* turns the scores into probabilities, positive and adding up to one. The
// loss that goes with it, *cross-entropy*, is not a choice of taste: it is what
// *maximum likelihood* asks for, and its gradient is simply "predicted minus true". We
// will see why squared error on probabilities is the wrong loss, and why the sigmoid of
// chapter 4 is softmax with two classes.
//
// Then data, and the question every classifier must answer: how often is it right on
// points it has never seen? Points held back for that, a *test set*, show a network
// that learns its training points by heart doing worse than a line. On Gaussian blobs
// we compare every classifier with the best one possible, on the very same points; on
// two rings we find the best line there is by searching all of them, and see why the
// line that cross-entropy picks is barely better than a coin.
//
// Chapter 8 uses softmax to turn attention scores into weights. What it starts from is
// measured here: the weights are positive, sum to one, keep the scores' order and do
// not change when every score moves by the same amount; what masking adds (a weight of
// exactly 0 for a score of :math:`-\infty`, and NaN for a row of nothing else) chapter
// 8 measures itself.

// %% about: Softmax, which turns scores into probabilities; cross-entropy, which is
// maximum likelihood, against squared error; the sigmoid for two classes; training and
// test sets, and a network that learns its training points by heart; and linear and
// bent classifiers against the best possible, on blobs and on rings.
// %% assumes: 1, 2, 3, 4

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <litgrad/book/bits.hpp>
#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::kU;  // u = 2^-53, double's unit roundoff (chapter 1)
using book::out;

namespace {

// The seeds of every claim that trains.
const std::vector<std::uint64_t> kSeeds = {1, 2, 3};

// %% 1 · Softmax
//
// Softmax maps scores :math:`z_1, \dots, z_K` to
// :math:`p_i = e^{z_i} / \sum_j e^{z_j}`. Each :math:`p_i` is positive, since every
// exponential is; they add up to 1, since the denominator is the sum of the numerators;
// and they keep the scores' order, since :math:`e^z` grows with :math:`z`: a larger
// score gets a larger share. So they can be read as probabilities.
//
// Only differences between scores matter: adding a constant :math:`c` to every score
// multiplies every :math:`e^{z_i}` by :math:`e^c`, which cancels. litgrad uses that to
// compute safely. It first subtracts the largest score :math:`m`, so every exponent
// :math:`z_i - m` is at most 0, every exponential at most 1, and the largest exactly 1.
// In floating point the three properties then hold as follows. Positive, unless a score
// trails the largest by more than about 745.13: the smallest positive double is
// :math:`2^{-1074} \approx 4.9 \cdot 10^{-324}` (about :math:`e^{-744.4}`), so
// :math:`e^{-745}` still rounds up to it, while below half of it, :math:`e^{-745.13}`,
// an exponential rounds to exactly 0. Summing to 1
// within :math:`2Ku`: the sum of :math:`K` terms is off by at most :math:`(K - 1) u`
// relatively (chapter 1), each division by it rounds by :math:`u`, and adding the
// :math:`K` quotients rounds by :math:`(K - 1) u` more. And in the scores' order, for
// scores that are not within a few :math:`u` of each other.
//
// The test draws 1,000 rows of :math:`K = 10` scores, three times standard normal
// numbers, and gives one more row the scores :math:`(0, -700, -800)`.

TEST_CASE(
    "softmax's probabilities are positive (until a score trails the largest by more "
    "than about 745), sum to one within 2Ku and keep the scores' order") {
  Generator gen(1);
  const std::int64_t k = 10;
  const Tensor z = 3.0 * randn({1000, k}, gen);
  const Tensor p = softmax(z, 1);  // [1000, 10]
  int out_of_order = 0;
  for (std::int64_t r = 0; r < 1000; ++r)
    for (std::int64_t i = 0; i < k; ++i)
      for (std::int64_t j = 0; j < k; ++j)
        out_of_order += z.at({r, i}) > z.at({r, j}) && !(p.at({r, i}) > p.at({r, j}));
  const Tensor far = softmax(tensor({0, -700, -800}), 0);
  const Tensor edge = softmax(tensor({0, -745, -745.2}), 0);  // either side of 745.13
  out() << "softmax(0, -700, -800) = (" << far.at({0}) << ", " << far.at({1}) << ", "
        << far.at({2}) << ")\n";
  book::check("smallest probability", min(p).item(), "over the 1,000 rows",
              book::above(0));
  book::check("largest |row sum - 1| / 2Ku",
              max(abs(sum(p, {1}) - 1.0)).item() / (2 * k * kU),
              "the worst row's distance from one, over its bound", book::at_most(1));
  book::check("pairs out of order", out_of_order,
              "pairs of entries whose probabilities do not follow their scores",
              book::exactly(0));
  book::check("probability of -700", far.at({1}), "e^-700, tiny but positive",
              book::above(0));
  book::check("probability of -800", far.at({2}), "e^-800, below the smallest double",
              book::exactly(0));
  book::check("probability of -745", edge.at({1}), "rounds up to the smallest double",
              book::above(0));
  book::check("probability of -745.2", edge.at({2}), "below half the smallest double",
              book::exactly(0));
}

// %%
// Subtracting the largest score is not a nicety. A double holds numbers up to about
// :math:`1.8 \cdot 10^{308}`, so :math:`e^x` overflows to infinity once :math:`x`
// passes :math:`\ln(1.8 \cdot 10^{308}) \approx 709.78`, and a score of 710 makes the
// formula as written :math:`\infty / \infty`, which is NaN, "not a number". At the
// other end, a row of scores near :math:`-1000` gives :math:`0 / 0`, NaN again.
// Subtracting first turns :math:`(1000, 999, 998)` into exactly :math:`(0, -1, -2)`,
// the same numbers :math:`(2, 1, 0)` turns into: these subtractions of nearby integers
// are exact. So litgrad's softmax of scores near 1000, or near -1000, is not just
// finite but equal *bit for bit* to the softmax of the same differences near 0.

// Softmax as the formula is written, without subtracting the largest score.
std::vector<double> written_softmax(const std::vector<double>& z) {
  std::vector<double> p;
  double total = 0;
  for (double zi : z) total += std::exp(zi);
  for (double zi : z) p.push_back(std::exp(zi) / total);
  return p;
}

TEST_CASE(
    "as written, softmax is NaN for scores of 710 and of -1000, while litgrad's "
    "softmax of (1000, 999, 998) and of (-1000, -1001, -1002) equals that of (2, 1, "
    "0) bit for bit") {
  const auto high = written_softmax({710, 0}), low = written_softmax({-1000, -1001});
  const Tensor small = softmax(tensor({2, 1, 0}), 0);
  const Tensor shifted_up = softmax(tensor({1000, 999, 998}), 0);
  const Tensor shifted_down = softmax(tensor({-1000, -1001, -1002}), 0);
  out() << "written softmax of (710, 0): " << high[0]
        << ", of (-1000, -1001): " << low[0]
        << "; litgrad's softmax(2, 1, 0) = " << small << "\n";
  book::check("written NaNs", std::isnan(high[0]) + std::isnan(low[0]),
              "of the two rows computed as written, those that came out NaN",
              book::exactly(2));
  int differing = 0;
  for (std::int64_t i = 0; i < 3; ++i)
    differing +=
        (shifted_up.at({i}) != small.at({i})) + (shifted_down.at({i}) != small.at({i}));
  book::check("differing probabilities", differing,
              "entries unlike the softmax of (2, 1, 0) in any bit", book::exactly(0));
}

// %% 2 · Cross-entropy, from maximum likelihood
//
// How should a classifier be judged? Read it as a guess at how the labels came about:
// for example :math:`n` it says class :math:`k` with probability :math:`p_k^{(n)}`.
// The probability that it would have produced exactly the labels we have, one example
// independently of another, is the product :math:`\prod_n p^{(n)}_{y_n}`, its
// *likelihood*. *Maximum likelihood* picks the weights that make this largest. A
// product of many probabilities underflows, and its logarithm turns it into a sum with
// the same maximiser, so we minimise the mean of :math:`-\ln p^{(n)}_{y_n}` instead:
// the *cross-entropy*, 0 for a classifier certain and right, large for one confident
// and wrong. (Chapter 3's squared error is the same principle for a number with normal
// noise: :math:`-\ln` of a normal density is :math:`(y - \hat y)^2 / 2\sigma^2` plus a
// constant.)
//
// The simplest classifier has no inputs at all: three scores, one per class, the same
// for every example. If :math:`N` labels hold class :math:`k` a fraction :math:`f_k` of
// the time, its cross-entropy is :math:`-\sum_k f_k \ln p_k`, and the best
// :math:`p`, the one maximum likelihood picks, is :math:`p = f`: the frequencies
// themselves. (That :math:`-\sum f_k \ln p_k \ge -\sum f_k \ln f_k` for every
// :math:`p` is Gibbs' inequality: the difference is :math:`\sum f_k \ln(f_k / p_k)`,
// which is never negative.) Its loss there is :math:`-\sum_k f_k \ln f_k`, the
// *entropy* of the labels. A classifier that knows nothing at all, scores of zero,
// gives every class :math:`1/K` and pays :math:`\ln K` per example whatever the labels
// are: the level every trained classifier must get below, and a number worth checking
// at the start of any training.
//
// The test takes :math:`N = 16` labels, 8 of class 0, 5 of class 1 and 3 of class 2
// (frequencies exact in binary), and runs gradient descent on the three scores from
// zero, at rate 1, for 300 steps. The Hessian of this loss is
// :math:`\operatorname{diag}(p) - p p^T`, whose curvatures at :math:`p = f`, apart from
// a zero along :math:`(1, 1, 1)` (the direction that only shifts every score), are
// about 0.39 and 0.22; so the error shrinks by at least :math:`0.78` a step, and 300
// steps leave only rounding. Rounding: softmax is a few :math:`u` off, and descent
// stops once a step, the rate times :math:`p - f`, is below an ulp of the scores (about
// :math:`2u`, for scores below 2 in size), so :math:`p` ends within about :math:`6u` of
// :math:`f`; we check :math:`8u`, and the loss against the entropy to :math:`8u`. The
// uniform guess is checked against :math:`\ln K` for :math:`K` = 2, 3, 10 and 27:
// litgrad computes each example's loss as :math:`\ln \sum_j e^{0} - 0`, :math:`\ln K`
// with one rounding, and the mean of 16 such terms adds at most :math:`16 u \ln K`.

TEST_CASE(
    "maximum likelihood: gradient descent on a constant classifier's cross-entropy "
    "lands on the class frequencies, to 8u, where the loss is their entropy, and a "
    "uniform guess costs ln K") {
  const Tensor labels =
      tensor({0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2}, {16}, DType::Int64);
  const std::vector<double> f = {8.0 / 16, 5.0 / 16, 3.0 / 16};
  Tensor z = zeros({1, 3}).requires_grad_();  // the three scores
  optim::SGD opt({z}, {1.0});                 // rate 1
  for (int t = 0; t < 300; ++t) {
    opt.zero_grad();
    cross_entropy(z.expand({16, 3}), labels).backward();
    opt.step();
  }
  const Tensor p = softmax(z.detach(), 1);
  double gap = 0, entropy = 0;
  for (std::int64_t k = 0; k < 3; ++k) {
    gap = std::max(gap, std::fabs(p.at({0, k}) - f[k]));
    entropy -= f[k] * std::log(f[k]);
  }
  const double loss = cross_entropy(z.detach().expand({16, 3}), labels).item();
  out() << "probabilities " << p << ", loss " << loss << ", entropy " << entropy
        << ", ln 3 " << std::log(3.0) << "\n";
  book::check("largest |p - f|", gap, "between the probabilities and the frequencies",
              book::at_most(8 * kU).large_margin_because(book::kWorstCaseRounding));
  book::check(
      "loss minus entropy", loss - entropy, "the loss minus the entropy",
      book::between(-8 * kU, 8 * kU).large_margin_because(book::kWorstCaseRounding));
  Generator gen(2);
  double worst = 0;
  for (std::int64_t k : {2, 3, 10, 27}) {
    const Tensor targets = randint(0, k, {16}, gen);
    const double uniform = cross_entropy(zeros({16, k}), targets).item();
    const double ln_k = std::log(static_cast<double>(k));
    worst = std::max(worst, std::fabs(uniform - ln_k) / (16 * kU * ln_k));
  }
  book::check("uniform guess: |loss - ln K| / 16u ln K", worst,
              "the worst K's distance from ln K, over its bound",
              book::at_most(1).large_margin_because(book::kWorstCaseRounding));
}

// %%
// Its gradient is what makes cross-entropy the natural partner of softmax. With
// :math:`-\ln p_y = \ln \sum_j e^{z_j} - z_y`, the derivative with respect to
// :math:`z_i` is :math:`e^{z_i} / \sum_j e^{z_j} - [i = y] = p_i - [i = y]`: predicted
// minus true, the probabilities minus the *one-hot* vector of the answer (1 at place
// :math:`y`, 0 elsewhere). For the mean over :math:`N` examples it is divided by
// :math:`N`. Every entry is at most :math:`1/N` in size and both sides are a handful
// of roundings of such numbers, so the test asks for agreement to :math:`8u/N`.

TEST_CASE(
    "the gradient of cross-entropy with respect to the scores is (softmax - one_hot) / "
    "N, to 8u/N") {
  Generator gen(3);
  const std::int64_t n = 16, k = 5;
  Tensor z = (2.0 * randn({n, k}, gen)).requires_grad_();
  const Tensor targets = randint(0, k, {n}, gen);
  cross_entropy(z, targets).backward();
  const Tensor formula =
      (softmax(z.detach(), 1) - one_hot(targets, k).to(DType::Float64)) / n;
  book::check("largest gap", max(abs(z.grad() - formula)).item(),
              "between autograd's gradient and the formula", book::at_most(8 * kU / n));
}

// %% 3 · Two classes, and why not squared error
//
// With two classes only the difference of the two scores matters, so fix the first at
// 0 and call the second :math:`z`: the probability of class 1 is :math:`e^z / (1 +
// e^z) = 1 / (1 + e^{-z}) = \sigma(z)`, chapter 4's sigmoid. A classifier of two
// classes can therefore output one score and read it through the sigmoid, and its
// cross-entropy, :math:`-\ln \sigma(z)` for class 1 and :math:`-\ln(1 - \sigma(z))`
// for class 0, is the *binary cross-entropy* (``binary_cross_entropy_with_logits``,
// which computes it without overflow). Its gradient with respect to :math:`z` is the
// two-class case of predicted minus true: :math:`\sigma(z) - y`. (Both sides of that
// are one subtraction from :math:`\sigma(z)`, each rounded once, so they agree to
// :math:`2u`.)
//
// Why not squared error, :math:`(\sigma(z) - y)^2`, which looks just as reasonable?
// Its gradient carries the sigmoid's slope: :math:`2 (\sigma - y)\, \sigma (1 -
// \sigma)`. Take an example of class 1 that the model is confident is class 0,
// :math:`z` very negative. The cross-entropy's gradient is :math:`\sigma(z) - 1`,
// nearly :math:`-1`: the worse the mistake, the harder the push. The squared error's is
// :math:`-2 \sigma (1 - \sigma)^2`, below :math:`2 e^{z}` in size: the worse the
// mistake, the *less* it pushes. At :math:`z = -40`, :math:`\sigma(z) \approx 4 \cdot
// 10^{-18}` is below :math:`u/2`, so :math:`1 - \sigma` and :math:`\sigma - 1` round
// to exactly 1 and :math:`-1`, and autograd's gradients come out exactly
// :math:`-2\sigma(-40)` and exactly :math:`-1`.
//
// .. figure:: confident_and_wrong
//
//    The size of the gradient with respect to the score z, for an example of class 1,
//    on a log scale: cross-entropy's stays near 1 however wrong the model is;
//    squared error's falls off like 2e^z on the wrong side.

// %% fold: drawing the two gradients against the score
void draw_gradients(const Tensor& z, const Tensor& squared, const Tensor& cross) {
  book::figure("confident_and_wrong",
               book::line_plot("score z (class 1 is right)", "|d loss / dz|",
                               {book::series("squared error on σ(z)", z.to_vector(),
                                             abs(squared).to_vector()),
                                book::series("cross-entropy", z.to_vector(),
                                             abs(cross).to_vector())},
                               true));
}

// %%
// The test asks autograd for both gradients, of the squared error through
// ``sigmoid`` and of ``binary_cross_entropy_with_logits``, for an example of class 1.

// Autograd's gradients of the squared error and of the cross-entropy of σ(z) for an
// example of class 1, at every score of z.
std::pair<Tensor, Tensor> gradients_for_class_1(const Tensor& z) {
  const Tensor ones_like_z = ones(z.shape());
  Tensor a = z.detach().requires_grad_(), b = z.detach().requires_grad_();
  mse_loss(sigmoid(a), ones_like_z, Reduction::Sum).backward();
  binary_cross_entropy_with_logits(b, ones_like_z, Reduction::Sum).backward();
  return {a.grad(), b.grad()};
}

TEST_CASE(
    "cross-entropy's gradient is σ(z) - y, to 2u, while squared error on the sigmoid "
    "barely pushes when it is confident and wrong: at z = -40 its gradient is exactly "
    "-2σ(z), about 2e^-40, and cross-entropy's is exactly -1") {
  const auto [squared, cross] = gradients_for_class_1(tensor({-40.0}));
  const double sigma = sigmoid(tensor({-40.0})).item();
  book::check("squared error's gradient / -2σ(-40)", squared.item() / (-2 * sigma),
              "autograd's gradient over the formula", book::exactly(1));
  book::check("cross-entropy's gradient", cross.item(), "at z = -40",
              book::exactly(-1));
  book::measured("squared error's gradient", squared.item(), "at z = -40");
  const Tensor z = linspace(-20, 20, 161);
  const auto [all_squared, all_cross] = gradients_for_class_1(z);
  book::check("largest |gradient - (σ(z) - 1)|",
              max(abs(all_cross - (sigmoid(z) - 1.0))).item(),
              "cross-entropy's gradient against predicted minus true, on [-20, 20]",
              book::at_most(2 * kU));
  draw_gradients(z, all_squared, all_cross);
}

// %%
// What that does to learning is easy to compute. One example of class 1, a model that
// is one free score :math:`z` started at :math:`-10`, and 100 steps of gradient descent
// at rate 1. With cross-entropy each step adds :math:`1 - \sigma(z) = \sigma(-z)`,
// which is at least :math:`\tfrac12` while :math:`z \le 0`, so :math:`z` passes 0
// within 20 steps; after that each step multiplies :math:`e^z` by :math:`e^{\sigma(-z)}
// \ge 1 + \sigma(-z)`, adding :math:`e^z \sigma(-z) = \sigma(z) \ge \tfrac12` to it. So
// after 100 steps :math:`e^z \ge 1 + 80/2 = 41` and the model gives class 1 a
// probability of at least :math:`41/42`. With squared error each step adds :math:`2
// \sigma (1 - \sigma)^2 < 2 e^z`; as long as :math:`z \le -9.99` that is below
// :math:`2 e^{-9.99}`, and 100 such steps move :math:`z` by less than
// :math:`200 e^{-9.99} \approx 0.009`, so :math:`z` does stay below :math:`-9.99`, and
// the bound holds: the model has hardly moved.

// The score after `steps` steps of gradient descent at rate 1 from -10, for one example
// of class 1, under the squared error on σ(z) or the cross-entropy.
double descend_from_wrong(bool squared, int steps) {
  Tensor z = tensor({-10.0}).requires_grad_();
  const Tensor target = ones({1});
  optim::SGD opt({z}, {1.0});
  for (int t = 0; t < steps; ++t) {
    opt.zero_grad();
    (squared ? mse_loss(sigmoid(z), target)
             : binary_cross_entropy_with_logits(z, target))
        .backward();
    opt.step();
  }
  return z.item();
}

TEST_CASE(
    "from a confident mistake, 100 steps of cross-entropy reach a probability above "
    "41/42 for the right class, while squared error moves the score by less than "
    "200e^-9.99") {
  const double cross = descend_from_wrong(false, 100);
  const double squared = descend_from_wrong(true, 100);
  out() << "after 100 steps: cross-entropy z = " << cross
        << ", squared error z = " << squared << "\n";
  book::check("cross-entropy's probability", sigmoid(tensor({cross})).item(),
              "σ(z) for the right class after 100 steps", book::above(41.0 / 42));
  book::check("squared error's move", squared + 10, "how far z moved from -10",
              book::below(200 * std::exp(-9.99)));
}

// %% 4 · Blobs: a line does as well as anything can
//
// Three classes, each a cloud of points drawn from a normal distribution of standard
// deviation 1 around its own centre; the centres sit 1.5 from the origin, a third of a
// turn apart. A point of class :math:`k` has density proportional to
// :math:`e^{-|x - \mu_k|^2 / 2}`, so with equal numbers of each class the most probable
// class for any :math:`x` is the one whose centre is nearest. No classifier can do
// better than that rule, the *Bayes classifier*: its accuracy, the *Bayes rate*, is
// the ceiling for every model, trained or not.
//
// A *linear softmax classifier* scores each class with its own affine function of
// :math:`x`, :math:`z = W x + b`, one ``nn::Linear(2, 3)``, and is trained by gradient
// descent on the cross-entropy. The Bayes classifier is of this form, since picking the
// largest :math:`x \cdot \mu_k - |\mu_k|^2/2` picks the nearest centre, so a linear
// classifier trained on enough points should come close to it.
//
// How close is close? We train on 200 points of each class and measure on 1,000 *fresh*
// points of each, a *test set* the training never saw, so that the score measures the
// rule and not the memory (section 5 shows the difference). And we compare the two
// classifiers on the *same* test points: each point gives the difference of the two
// verdicts, 1, 0 or -1, and the mean of those differences has a standard error of
// their standard deviation over :math:`\sqrt{3000}`. Where the two classifiers agree
// the difference is 0 and adds no noise, so this *paired* standard error is small where
// they rarely disagree (its square is at most the share of points on which they
// disagree, over 3,000), and below each accuracy's own,
// :math:`\sqrt{p(1 - p)/3000} \approx 0.007`, whenever they disagree on fewer than
// :math:`p(1 - p)` of the points. Why should the gap be
// within a few of those? A trained boundary sits some :math:`\delta` from the Bayes
// boundary, about 0.1 with 400 points to place each; and on the Bayes boundary the two
// classes are equally dense, so moving it by :math:`\delta` costs accuracy only in
// proportion to :math:`\delta^2`: of order :math:`\tfrac12 c\, \delta^2` per boundary,
// :math:`c` being how fast the difference of the two classes' densities (each weighted
// by its share, a third) grows across the boundary, summed along it. For blobs this far
// apart :math:`c` is of order 0.1, so the cost is of order :math:`10^{-4}` to
// :math:`10^{-3}`, less than a paired standard error.
// We ask for the gap to be within four, for three seeds.

constexpr double kRadius = 1.5;  // the blobs' centres' distance from the origin

struct Labelled {
  Tensor x, y;  // x [n, 2], y [n] Int64 classes
};

// n points of each of three classes.
Labelled blobs(std::int64_t n, Generator& gen) {
  std::vector<Tensor> xs, ys;
  for (int k = 0; k < 3; ++k) {
    const double angle = 2 * M_PI * k / 3;
    const Tensor centre =
        tensor({kRadius * std::cos(angle), kRadius * std::sin(angle)}, {1, 2});
    xs.push_back(centre + randn({n, 2}, gen));
    ys.push_back(full({n}, k, DType::Int64));
  }
  return {cat(xs, 0), cat(ys, 0)};
}

// The Bayes classifier's scores for the blobs: x · μ_k, largest for the nearest centre.
Tensor nearest_centre(const Tensor& x) {
  const double s = kRadius * std::sqrt(3.0) / 2;
  const Tensor centres =
      tensor({kRadius, 0.0, -kRadius / 2, s, -kRadius / 2, -s}, {3, 2});
  return matmul(x, transpose(centres, 0, 1));  // [n, 3]
}

// 1 where the largest score is the true class, 0 elsewhere: [n].
Tensor right(const Tensor& scores, const Tensor& y) {
  return eq(argmax(scores, 1), y).to(DType::Float64);
}

double accuracy(const Tensor& scores, const Tensor& y) {
  return mean(right(scores, y)).item();
}

// The paired comparison of two classifiers on the same points: the mean difference of
// their verdicts (a - b), in paired standard errors; 0 if they never disagree.
double paired_gap(const Tensor& right_a, const Tensor& right_b) {
  const Tensor d = right_a - right_b;
  const double n = static_cast<double>(d.numel()), m = mean(d).item();
  const double se = std::sqrt((mean(d * d).item() - m * m) / n);
  return se == 0 ? 0.0 : m / se;
}

// %%
// The training loop, full-batch gradient descent on the cross-entropy, is the same for
// every model of this chapter.

// Full-batch gradient descent on the cross-entropy; the loss before every step.
std::vector<double> train(nn::Module& model,
                          const std::function<Tensor(const Tensor&)>& f,
                          const Labelled& data, double lr, int steps) {
  optim::SGD opt(model.parameters(), {lr});
  std::vector<double> losses;
  for (int t = 0; t < steps; ++t) {
    opt.zero_grad();
    const Tensor loss = cross_entropy(f(data.x), data.y);
    losses.push_back(loss.item());
    loss.backward();
    opt.step();
  }
  return losses;
}

// Gradient-descent steps, at rate 0.5, for every model of the blobs and the rings.
constexpr int kSteps = 1500;

// %%
// Accuracy cannot tell a trained line from a roughly placed one, for that same
// second-order reason, so the test also measures something only training reaches. The
// Bayes classifier's scores are themselves a linear classifier's (the rows of :math:`W`
// the centres, :math:`b = 0`), and their softmax is the true probability of each class
// given :math:`x` (the :math:`|\mu_k|^2/2`, equal for all three, cancels). So the least
// cross-entropy on the training points that any :math:`W, b` can reach is at most the
// Bayes posterior's cross-entropy on those same points, and a trained line that has
// reached it sits at or below. It sits below: the fit follows the accidents of its 600
// points, which the true probabilities know nothing of.
//
// How far below has a classic answer (Wilks, 1938): for a model whose family holds the
// truth, :math:`2n` times the gap in mean cross-entropy, with :math:`n` training
// points, is distributed, for large :math:`n`, as :math:`\chi^2_k` for :math:`k` free
// numbers, mean :math:`k`. Here :math:`k = 6`, not 9, since adding the same :math:`a
// \cdot x + c` to all three scores (three numbers) changes no probability. So
// :math:`1200` times the gap should lie between :math:`\chi^2_6`'s 0.1% and 99.9%
// points, 0.38 and 22.46, except once in 500 seeds. A model stopped well short of the
// least cross-entropy can sit above the Bayes posterior, a gap below 0.
//
// The same theory says what the fit costs on fresh points: there a trained line is on
// average :math:`k/2n` *above* the Bayes posterior (Akaike, 1973, built his criterion
// on this), the optimism of a training loss that section 5 meets in its extreme form.
// The account prints both gaps for each seed; three seeds are too few to test an
// average, and the claim does not.

// The Bayes classifier's cross-entropy minus a model's, in nats, on the given points:
// positive where the model fits them better than the true probabilities do.
double fit_beyond_bayes(const Tensor& scores, const Labelled& points) {
  return (cross_entropy(nearest_centre(points.x), points.y) -
          cross_entropy(scores, points.y))
      .item();
}

// What the blob claims measure of a trained model, on its training points and on the
// test points: paired gap in accuracy, in SEs; cross-entropy gaps to Bayes.
struct BlobFit {
  double paired_gap = 0, training_fit = 0, test_fit = 0;
};

BlobFit blob_fit(const std::function<Tensor(const Tensor&)>& f,
                 const Labelled& training, const Labelled& test, std::uint64_t seed,
                 const char* model) {
  NoGradGuard no_grad;
  BlobFit r;
  r.paired_gap =
      paired_gap(right(f(test.x), test.y), right(nearest_centre(test.x), test.y));
  r.training_fit = fit_beyond_bayes(f(training.x), training);
  r.test_fit = fit_beyond_bayes(f(test.x), test);
  out() << "seed " << seed << ", " << model << ": accuracy "
        << accuracy(f(test.x), test.y) << " against Bayes "
        << accuracy(nearest_centre(test.x), test.y)
        << "; cross-entropy less the Bayes posterior's " << -r.training_fit
        << " nats on its training points, " << -r.test_fit << " on the test points\n";
  return r;
}

// For each seed: the blobs' 600 training and 3,000 test points drawn, then a model made
// by `make` from the same generator, trained as every model of this chapter, and
// measured.
template <class Make>
std::map<std::uint64_t, BlobFit> fit_blobs(const char* name, Make make) {
  std::map<std::uint64_t, BlobFit> fits;
  for (auto seed : kSeeds) {
    Generator gen(seed);
    const Labelled training = blobs(200, gen), test = blobs(1000, gen);
    const auto model = make(gen);
    const auto f = [&](const Tensor& x) { return model->forward(x); };
    train(*model, f, training, 0.5, kSteps);
    fits[seed] = blob_fit(f, training, test, seed, name);
  }
  return fits;
}

TEST_CASE(
    "on the blobs, a linear softmax classifier is as accurate as the Bayes classifier "
    "on the same test points, within four paired standard errors, and fits its "
    "training points better than the Bayes posterior by Wilks's chi-square with 6 "
    "degrees of freedom, between its 0.1% and 99.9% points, for three seeds") {
  const auto fits = fit_blobs("linear", [](Generator& gen) {
    return std::make_unique<nn::Linear>(2, 3, true, gen);
  });
  book::check_seeds("paired gap",
                    "linear minus Bayes, on the same 3,000 test points, in paired SEs",
                    book::between(-4, 4), kSeeds,
                    [&](std::uint64_t seed) { return fits.at(seed).paired_gap; });
  book::check_seeds("2n × fit beyond Bayes",
                    "1,200 × the Bayes posterior's cross-entropy minus the line's, on "
                    "its training points",
                    book::between(0.38, 22.46), kSeeds, [&](std::uint64_t seed) {
                      return 1200 * fits.at(seed).training_fit;
                    });
}

// %%
// A bend buys nothing here: the Bayes rate is a ceiling for every classifier, and the
// line already reaches it. A network with one bent hidden layer, chapter 4's kind with
// 16 tanh units, trained the same way, lands there too. It can also fit its training
// points better than the Bayes posterior does: a tanh unit with small weights is
// nearly linear, so the network's functions come as close as we like to every linear
// classifier's, and the least cross-entropy it can reach is at most the line's. Wilks's
// count does not apply to it (its 99 numbers are not all free in his sense), so the
// test asks only that training takes it below the Bayes posterior on its training
// points, as far as it must go for that least cross-entropy.
//
// .. figure:: blob_regions
//
//    The class each model picks at every point of the plane, with 150 test points of
//    each class: the line and the tanh network draw nearly the same boundaries, the
//    Bayes classifier's, because the best boundaries here are straight.

// Two layers with `width` tanh units between them: [n, 2] → [n, classes].
struct TanhClassifier : nn::Module {
  nn::Linear hidden, output;
  TanhClassifier(std::int64_t width, std::int64_t classes, Generator& gen)
      : Module("TanhClassifier"),
        hidden(2, width, true, gen),
        output(width, classes, true, gen) {
    register_module("hidden", hidden);
    register_module("output", output);
  }
  Tensor forward(const Tensor& x) const { return output(tanh(hidden(x))); }
};

TEST_CASE(
    "on the blobs, 16 tanh units are also as accurate as the Bayes classifier on the "
    "same test points, within four paired standard errors, and fit their training "
    "points better than the Bayes posterior, for three seeds") {
  const auto fits = fit_blobs("tanh network", [](Generator& gen) {
    return std::make_unique<TanhClassifier>(16, 3, gen);
  });
  book::check_seeds("paired gap",
                    "network minus Bayes, on the same 3,000 test points, in paired SEs",
                    book::between(-4, 4), kSeeds,
                    [&](std::uint64_t seed) { return fits.at(seed).paired_gap; });
  book::check_seeds("fit beyond Bayes",
                    "the Bayes posterior's cross-entropy minus the network's on its "
                    "training points, in nats",
                    book::above(0), kSeeds,
                    [&](std::uint64_t seed) { return fits.at(seed).training_fit; });
}

// %% 5 · Training points and test points
//
// Why fresh points? Because a model can be right on its training points for the wrong
// reason: by remembering them. Take two blobs, centres 2 apart, whose Bayes rate is
// :math:`\Phi(1) \approx 0.84` (exercise 3 derives it), and only 20 training points of
// each class. Some of those 40 points lie on the wrong side of the best boundary, as
// 16% of all points do. A line cannot bend round them; a network of 64 tanh units
// trained for 5,000 steps can, and does: it is right on nearly all of its training
// points, more than any classifier can be on fresh points (that is what the Bayes rate
// means), having carved little regions around wrong-side points. Those regions
// are noise, not rule, and on fresh points they cost: the network is right *less*
// often than the line. This is *overfitting*, and the test set is how it is seen. (A
// test set used to choose between models, or to decide when to stop training, is no
// longer fresh for the model chosen; the usual remedy is a third set, the *validation*
// set, kept for such choices, and the test set touched once at the end.)
//
// Both halves are measured. On its 40 training points the network must score more
// than :math:`\Phi(1) + 2\sqrt{\Phi(1)(1 - \Phi(1))/40} \approx 0.957`, which a
// classifier that had not seen those points would reach less than 3% of the time. On
// the same 10,000 fresh points the line must be ahead of it by more than four paired
// standard errors. Both for three seeds.
//
// .. figure:: overfitting
//
//    The same 40 training points, and the class each model picks at every point of the
//    plane: the line (left) splits the plane where the Bayes classifier does; the
//    network (right) has drawn islands around points on the wrong side.

// n points of each of two classes, normal around (-1, 0) and (1, 0).
Labelled two_blobs(std::int64_t n, Generator& gen) {
  return {cat({tensor({-1.0, 0.0}, {1, 2}) + randn({n, 2}, gen),
               tensor({1.0, 0.0}, {1, 2}) + randn({n, 2}, gen)},
              0),
          cat({full({n}, 0, DType::Int64), full({n}, 1, DType::Int64)}, 0)};
}

// %% fold: drawing the class each model picks over the plane, with the points
book::Json regions_panel(const std::string& title,
                         const std::function<Tensor(const Tensor&)>& f,
                         const Labelled& shown, std::int64_t classes, double extent,
                         std::size_t per_class = 150) {
  std::vector<double> axis, grid;
  for (int i = 0; i <= 80; ++i) axis.push_back(-extent + 2 * extent * i / 80);
  for (double y : axis)
    for (double x : axis) grid.push_back(x), grid.push_back(y);
  NoGradGuard no_grad;
  const Tensor picked =
      argmax(f(tensor(grid, {81 * 81, 2})), 1).to(DType::Float64).reshape({81, 81});
  std::vector<book::Json> points;
  for (std::int64_t k = 0; k < classes; ++k) {
    std::vector<double> px, py;
    for (std::int64_t i = 0; i < shown.y.numel() && px.size() < per_class; ++i)
      if (shown.y.at({i}) == k)
        px.push_back(shown.x.at({i, 0})), py.push_back(shown.x.at({i, 1}));
    points.push_back(book::points("class " + std::to_string(k), px, py));
  }
  return book::plane("x1", "x2", book::field(axis, axis, picked, "regions"), {}, points,
                     true)
      .set("title", title);
}

// %%
// The two models, on the same training points:

TEST_CASE(
    "on 20 training points per class, 64 tanh units trained long score above the "
    "Bayes rate by more than two standard errors there, and on 10,000 fresh points "
    "worse than a line, by more than four paired standard errors, for three seeds") {
  const double bayes_rate = std::erfc(-1 / std::sqrt(2.0)) / 2;  // Φ(1)
  book::measured("Bayes rate", bayes_rate, "Φ(1), for centres 2 apart");
  std::map<std::uint64_t, double> training_scores;  // each seed's, from the first check
  book::check_seeds(
      "line minus network", "on the same 10,000 fresh points, in paired SEs",
      book::above(4), kSeeds, [&](std::uint64_t seed) {
        Generator gen(seed);
        const Labelled training = two_blobs(20, gen), test = two_blobs(5000, gen);
        TanhClassifier net(64, 2, gen);
        nn::Linear line(2, 2, true, gen);
        const auto f = [&](const Tensor& x) { return net.forward(x); };
        const auto g = [&](const Tensor& x) { return line(x); };
        train(net, f, training, 0.5, 5000);
        train(line, g, training, 0.5, 5000);
        NoGradGuard no_grad;
        out() << "seed " << seed << ": on the training points, network "
              << accuracy(f(training.x), training.y) << ", line "
              << accuracy(g(training.x), training.y)
              << "; on the fresh points, network " << accuracy(f(test.x), test.y)
              << ", line " << accuracy(g(test.x), test.y) << "\n";
        training_scores[seed] = accuracy(f(training.x), training.y);
        if (seed == kSeeds[0])
          book::figure("overfitting",
                       book::side_by_side(
                           {regions_panel("line", g, training, 2, 3.5),
                            regions_panel("64 tanh units", f, training, 2, 3.5)}));
        return paired_gap(right(g(test.x), test.y), right(f(test.x), test.y));
      });
  book::check_seeds(
      "network's training accuracy", "on its own 40 training points",
      book::above(bayes_rate + 2 * std::sqrt(bayes_rate * (1 - bayes_rate) / 40)),
      kSeeds, [&](std::uint64_t seed) { return training_scores.at(seed); });
}

// %% 6 · Rings: no line will do
//
// Now two classes on two rings around the origin, of radii 1 and 2, each point's radius
// blurred by noise of standard deviation 0.1. What is the best a line can do? By the
// rings' symmetry only its distance :math:`c` from the centre matters. Call the side
// away from the centre "outer". A ring of radius :math:`r` puts the fraction
// :math:`\arccos(c/r)/\pi` of its points beyond the line (for :math:`|c| < r`; all or
// none otherwise), so the line's accuracy is
//
// .. math::
//
//    A(c) = \tfrac12 \Bigl(1 - \mathbb{E} \tfrac1\pi \arccos \tfrac c{r_1}\Bigr)
//    + \tfrac12\, \mathbb{E} \tfrac1\pi \arccos \tfrac c{r_2},
//
// averaging over the blurred radii :math:`r_1` of the inner ring and :math:`r_2` of the
// outer. Without the blur, :math:`A` rises to
// :math:`\tfrac12 + \tfrac12 \cdot \tfrac13 = \tfrac23` at :math:`c = 1`, where the
// line touches the inner ring and cuts off the third of the outer ring that lies beyond
// it, and falls on either side (moving in cuts into the inner ring faster than it gains
// outer ring). The blur lowers the peak: the chapter computes :math:`A` by Simpson's
// rule over each radius and finds its best, :math:`A^*`, on a fine grid of :math:`c`.
//
// The test first checks the formula itself: for 26 distances :math:`c` from 0 to 2.5,
// a line at that distance classifies 20,000 fresh points, and each accuracy must lie
// within four standard errors, :math:`\sqrt{A(1 - A)/20000}`, of :math:`A(c)`.
//
// .. figure:: ring_lines
//
//    The accuracy of a line at distance c from the centre of the rings: the formula
//    (line), its best A* (dashed), and what lines at those distances score on 20,000
//    fresh points (dots).

// n points on each ring: class 0 at radius 1, class 1 at radius 2.
Labelled rings(std::int64_t n, Generator& gen) {
  const Tensor angle = uniform({2 * n}, 0, 2 * M_PI, gen);
  const Tensor radius =
      cat({full({n}, 1.0), full({n}, 2.0)}, 0) + 0.1 * randn({2 * n}, gen);
  return {stack({radius * cos(angle), radius * sin(angle)}, 1),
          cat({full({n}, 0, DType::Int64), full({n}, 1, DType::Int64)}, 0)};
}

// The fraction of a ring of radius r (each point's radius blurred by normal noise of
// 0.1) that lies beyond a line at distance c from the centre, by Simpson's rule.
double beyond(double c, double r) {
  const int m = 400;
  double total = 0, weights = 0;
  for (int i = 0; i <= m; ++i) {
    const double xi = -8 + 16.0 * i / m, radius = r + 0.1 * xi;
    const double w = std::exp(-xi * xi / 2) * (i == 0 || i == m ? 1 : i % 2 ? 4 : 2);
    const double t = c / radius;  // every radius here is positive
    total += w * (t >= 1 ? 0.0 : t <= -1 ? 1.0 : std::acos(t) / M_PI);
    weights += w;
  }
  return total / weights;
}

// A(c): the inner ring on the near side, the outer ring beyond.
double line_accuracy(double c) {
  return 0.5 * (1 - beyond(c, 1.0)) + 0.5 * beyond(c, 2.0);
}

// The best of A(c) over c in [0, 2.5], in steps of 0.001.
std::pair<double, double> best_line_accuracy() {
  std::pair<double, double> best = {0, 0};  // (A*, c*)
  for (int i = 0; i <= 2500; ++i)
    best = std::max(best, std::make_pair(line_accuracy(i / 1000.0), i / 1000.0));
  return best;
}

// The fraction of `data` that the line x · (cos θ, sin θ) = c gets right, calling the
// far side outer (class 1).
double line_score(const Labelled& data, double theta, double c) {
  const Tensor along =
      matmul(data.x, tensor({std::cos(theta), std::sin(theta)}, {2, 1}));
  const Tensor outer = (along.squeeze(1) > c).to(DType::Int64);
  return mean(eq(outer, data.y).to(DType::Float64)).item();
}

TEST_CASE(
    "the accuracy of a line at distance c from the rings' centre is A(c), within four "
    "standard errors on 20,000 fresh points for 26 distances, and its best, A*, is "
    "below 2/3") {
  Generator gen(7);
  const Labelled fresh = rings(10000, gen);
  const auto [best, at] = best_line_accuracy();
  double worst = 0;
  std::vector<double> cs, measured, predicted;
  for (int i = 0; i <= 25; ++i) {
    const double c = i / 10.0, a = line_accuracy(c);
    const double score = line_score(fresh, 0.3 * i, c);  // a new direction each time
    worst = std::max(worst, std::fabs(score - a) / std::sqrt(a * (1 - a) / 20000));
    cs.push_back(c), measured.push_back(score), predicted.push_back(a);
  }
  out() << "A* = " << best << " at c = " << at << "\n";
  book::check("largest distance", worst,
              "the worst distance's |score - A(c)|, in standard errors",
              book::below(4));
  book::check("A*", best, "the best accuracy of any line", book::below(2.0 / 3));
  std::vector<double> fine, curve;
  for (int i = 0; i <= 250; ++i)
    fine.push_back(i / 100.0), curve.push_back(line_accuracy(i / 100.0));
  book::figure(
      "ring_lines",
      book::line_plot("distance c of the line from the centre", "accuracy",
                      {book::series("A(c)", fine, curve),
                       book::series("A*", {0, 2.5}, {best, best}).set("style", "k--"),
                       book::series("on 20,000 fresh points", cs, measured)}));
}

// %%
// Now the claim itself, tested the direct way: search *every* line for the one most
// accurate on 400 training points (720 directions, and for each every threshold
// between two points' projections, in either orientation), and measure the winner on
// 20,000 fresh points. No line can beat :math:`A^*` on fresh points, beyond their
// noise: we check :math:`A^* + 4\sqrt{A^*(1 - A^*)/20000}`. On its own training
// points, the winner does better than that, and better than :math:`A^*`: picking the
// best of many lines on 400 points also picks the one that best fits their accidents.
// That is overfitting again, in its mildest form, and the reason to measure on points
// that played no part in the choice.

// The line most accurate on `data`, over 720 directions and every threshold: its
// direction θ, its distance c and its accuracy there.
struct Line {
  double theta = 0, c = 0, score = 0;
};

Line best_line_on(const Labelled& data) {
  const std::int64_t n = data.y.numel();
  Line best;
  for (int k = 0; k < 720; ++k) {
    const double theta = 2 * M_PI * k / 720;  // both orientations of every direction
    const Tensor along =
        matmul(data.x, tensor({std::cos(theta), std::sin(theta)}, {2, 1}));
    std::vector<std::pair<double, std::int64_t>> sorted;  // (projection, class)
    for (std::int64_t i = 0; i < n; ++i)
      sorted.push_back({along.at({i, 0}), data.y.at({i})});
    std::sort(sorted.begin(), sorted.end());
    // A threshold before point j calls points j.. outer: right on the inner points
    // before it and the outer points from it on.
    std::int64_t outer_after = 0, inner_before = 0;
    for (const auto& s : sorted) outer_after += s.second;
    for (std::int64_t j = 0; j <= n; ++j) {
      if (j > 0) inner_before += 1 - sorted[j - 1].second;
      if (j > 0) outer_after -= sorted[j - 1].second;
      const double score = static_cast<double>(inner_before + outer_after) / n;
      if (score > best.score) {
        const double c = j == 0   ? sorted[0].first - 1
                         : j == n ? sorted[n - 1].first + 1
                                  : (sorted[j - 1].first + sorted[j].first) / 2;
        best = {theta, c, score};
      }
    }
  }
  return best;
}

TEST_CASE(
    "no line beats A*: the best of all lines on 400 training points scores at most "
    "A* plus four standard errors on 20,000 fresh points, and more than that on its "
    "training points, for three seeds") {
  const double best = best_line_accuracy().first;
  const double se = std::sqrt(best * (1 - best) / 20000);
  std::map<std::uint64_t, double> on_training;
  book::check_seeds("fresh accuracy", "of the line best on the training points",
                    book::at_most(best + 4 * se), kSeeds, [&](std::uint64_t seed) {
                      Generator gen(seed);
                      const Labelled training = rings(200, gen),
                                     fresh = rings(10000, gen);
                      const Line l = best_line_on(training);
                      const double score = line_score(fresh, l.theta, l.c);
                      out() << "seed " << seed << ": the best line, at distance " << l.c
                            << ", scores " << l.score << " on its training points and "
                            << score << " on fresh points\n";
                      on_training[seed] = l.score;
                      return score;
                    });
  book::check_seeds("training accuracy", "of the same line, on its own 400 points",
                    book::above(best + 4 * se), kSeeds,
                    [&](std::uint64_t seed) { return on_training.at(seed); });
}

// %%
// A line trained by cross-entropy does not even get there. Two classes, so by section 3
// the model is one score :math:`z = w \cdot x + b` (the difference of its two rows)
// read through the sigmoid. Its expected loss :math:`L(w, b)` over the rings is
// unchanged when :math:`w` is rotated, since the rings are; and it is *convex* in
// :math:`(w, b)` (the loss of each example is, as a function of a linear score).
// Averaging :math:`L` over all rotations of :math:`w` therefore gives :math:`L(w, b)`
// again, but by convexity it is at least :math:`L` at the average of the rotated
// :math:`w`, which is 0. So :math:`w = 0` is the best there is: the line that fits the
// likelihood best predicts :math:`\tfrac12` everywhere and has learned nothing; its
// accuracy is whatever tilt the sample's noise leaves it.
//
// On 400 training points the noise can buy a little: fitting two more numbers,
// :math:`w`, to noise lowers the loss below :math:`\ln 2`, but not by much. By Wilks'
// theorem, :math:`2N(\ln 2 - L)` for the best fit is then distributed as a chi-square
// with 2 degrees of freedom, which exceeds 18.4 once in 10,000 tries (its tail is
// :math:`e^{-x/2}`). A real pattern in the data would push it far beyond. We check
// that the trained line stays under 18.4, and, on the same fresh points, that it is
// worse than the searched-out best line by more than four paired standard errors.
//
// .. figure:: ring_regions
//
//    The class each model picks over the plane, with 150 test points of each class:
//    the line trained by cross-entropy cuts somewhere useless; 16 tanh units draw a
//    closed curve between the rings.
//
// .. figure:: classification_losses
//
//    The training cross-entropy of the models of this chapter against the step, with
//    ln 3 and ln 2, what a uniform guess costs on the blobs and on the rings: the line
//    on the rings stays at ln 2.

// %% fold: training every model of sections 4 and 6 for the figures (first seed)
void draw_regions_and_losses() {
  Generator gen(kSeeds[0]);
  const Labelled training = blobs(200, gen), test = blobs(1000, gen);
  nn::Linear line_blobs(2, 3, true, gen);
  TanhClassifier net_blobs(16, 3, gen);
  Generator ring_gen(kSeeds[0]);
  const Labelled ring_training = rings(200, ring_gen),
                 ring_test = rings(1000, ring_gen);
  nn::Linear line_rings(2, 2, true, ring_gen);
  TanhClassifier net_rings(16, 2, ring_gen);
  const auto lb = [&](const Tensor& x) { return line_blobs(x); };
  const auto nb = [&](const Tensor& x) { return net_blobs.forward(x); };
  const auto lr = [&](const Tensor& x) { return line_rings(x); };
  const auto nr = [&](const Tensor& x) { return net_rings.forward(x); };
  const std::vector<std::vector<double>> losses = {
      train(line_blobs, lb, training, 0.5, kSteps),
      train(net_blobs, nb, training, 0.5, kSteps),
      train(line_rings, lr, ring_training, 0.5, kSteps),
      train(net_rings, nr, ring_training, 0.5, kSteps)};
  book::figure("blob_regions",
               book::side_by_side({regions_panel("linear, blobs", lb, test, 3, 4.5),
                                   regions_panel("tanh, blobs", nb, test, 3, 4.5)}));
  book::figure(
      "ring_regions",
      book::side_by_side({regions_panel("linear, rings", lr, ring_test, 2, 2.6),
                          regions_panel("tanh, rings", nr, ring_test, 2, 2.6)}));
  const std::vector<std::string> names = {"linear, blobs", "tanh, blobs",
                                          "linear, rings", "tanh, rings"};
  const std::vector<double> ends = {0, kSteps - 1.0};
  std::vector<book::Json> series = {
      book::series("ln 3", ends, {std::log(3.0), std::log(3.0)}).set("style", "k--"),
      book::series("ln 2", ends, {std::log(2.0), std::log(2.0)}).set("style", "k:")};
  for (std::size_t m = 0; m < 4; ++m) {
    std::vector<double> xs, ys;
    for (std::size_t t = 0; t < losses[m].size(); t += 10)
      xs.push_back(static_cast<double>(t)), ys.push_back(losses[m][t]);
    series.push_back(book::series(names[m], xs, ys));
  }
  book::figure("classification_losses",
               book::line_plot("step", "training cross-entropy", series, true));
}

// %%
// The test trains the line as in section 4, for three seeds.

TEST_CASE(
    "on the rings, the line trained by cross-entropy has learned only noise: "
    "2N(ln 2 - L) stays below 18.4, and it is worse than the best line on the same "
    "fresh points by more than four paired standard errors, for three seeds") {
  book::check_seeds(
      "2N(ln 2 - L)", "for the trained line's training loss L, N = 400",
      book::below(18.4).large_margin_because(
          "a tail bound on a chi-square statistic with 2 degrees of freedom, whose "
          "mean "
          "is 2: exceeded once in 10,000 tries, it sits far above the usual values"),
      kSeeds, [](std::uint64_t seed) {
        Generator gen(seed);
        const Labelled training = rings(200, gen);
        nn::Linear line(2, 2, true, gen);
        train(
            line, [&](const Tensor& x) { return line(x); }, training, 0.5, kSteps);
        NoGradGuard no_grad;
        const double loss = cross_entropy(line(training.x), training.y).item();
        const Tensor w = select(line.weight, 0, 1) - select(line.weight, 0, 0);
        out() << "seed " << seed << ": loss " << loss << ", |w| " << norm(w).item()
              << "\n";
        return 2 * 400 * (std::log(2.0) - loss);
      });
  book::check_seeds(
      "best line minus trained line", "on the same 20,000 fresh points, in paired SEs",
      book::above(4), kSeeds, [](std::uint64_t seed) {
        Generator gen(seed);
        const Labelled training = rings(200, gen), fresh = rings(10000, gen);
        nn::Linear line(2, 2, true, gen);
        train(
            line, [&](const Tensor& x) { return line(x); }, training, 0.5, kSteps);
        const Line l = best_line_on(training);
        NoGradGuard no_grad;
        const Tensor along =
            matmul(fresh.x, tensor({std::cos(l.theta), std::sin(l.theta)}, {2, 1}));
        const Tensor searched =
            eq((along.squeeze(1) > l.c).to(DType::Int64), fresh.y).to(DType::Float64);
        out() << "seed " << seed << ": trained line "
              << accuracy(line(fresh.x), fresh.y) << ", best line "
              << mean(searched).item() << " on fresh points\n";
        return paired_gap(searched, right(line(fresh.x), fresh.y));
      });
  draw_regions_and_losses();
}

// %%
// A network with one bent hidden layer, 16 tanh units, can draw a closed boundary. The
// Bayes classifier here calls a point inner when its radius is below 1.5, and errs only
// on points whose noise exceeds 0.5, five standard deviations, fewer than one point in
// a million: on 2,000 test points it is expected to err 0.0006 times.
//
// A network need not find that circle to be as good on any sample we can draw. Say its
// boundary stays at least three standard deviations (0.3) from both rings, anywhere in
// the band of radii 1.3 to 1.7. A point then errs only if its noise carries it 0.3 or
// more towards the other ring. Where the boundary's radius is :math:`r`, the two rings
// err at rates that add to :math:`\bar\Phi((r-1)/0.1) + \bar\Phi((2-r)/0.1)`, with
// :math:`\bar\Phi` the normal tail; the sum is largest at the band's edges,
// :math:`\bar\Phi(3) + \bar\Phi(7) = 0.00135`. So on the 1,000 test points of each
// ring the network errs at most 1.35 times on average and, counting errors as Poisson,
// six or more times with probability about 0.003. A boundary that reaches a ring's
// radius anywhere puts about half of that stretch of the ring on the wrong side, since
// the noise is as likely inward as outward: a boundary that cuts a ring across errs by
// the hundred. The test asks for at most five errors.

TEST_CASE(
    "on the rings, 16 tanh units err on at most 5 of 2,000 test points, as a boundary "
    "three standard deviations from both rings would, for three seeds") {
  // The derivation's numbers: the normal tail, the errors expected on 1,000 points of
  // each ring, and the Poisson chance of six or more.
  const auto tail = [](double z) { return std::erfc(z / std::sqrt(2.0)) / 2; };
  const double expected = 1000 * (tail(3) + tail(7));
  double at_most_five = 0, term = std::exp(-expected);
  for (int k = 0; k <= 5; term *= expected / ++k) at_most_five += term;
  book::measured("errors expected", expected,
                 "at most: 1,000 times the normal tails beyond 3 and beyond 7");
  book::measured("P(six or more)", 1 - at_most_five, "Poisson, with that mean");
  book::check_seeds(
      "errors", "test points of 2,000 the network puts in the wrong ring",
      book::at_most(5).large_margin_because(
          "a tail bound on a count: the errors expected and P(six or more), measured "
          "beside it, make 0 a usual count and more than 5 a rare one"),
      kSeeds, [](std::uint64_t seed) {
        Generator gen(seed);
        const Labelled training = rings(200, gen), test = rings(1000, gen);
        TanhClassifier net(16, 2, gen);
        train(
            net, [&](const Tensor& x) { return net.forward(x); }, training, 0.5,
            kSteps);
        NoGradGuard no_grad;
        const Tensor radius = sqrt(sum(test.x * test.x, {1}));
        const Tensor bayes =
            eq((radius > 1.5).to(DType::Int64), test.y).to(DType::Float64);
        out() << "seed " << seed << ": network "
              << accuracy(net.forward(test.x), test.y) << ", Bayes classifier "
              << mean(bayes).item() << "\n";
        return sum(1.0 - right(net.forward(test.x), test.y)).item();
      });
}

// %% fold: the end of the file's namespace
}  // namespace
