// Chapter 3 · Fitting a line
// ==========================
//
// The simplest model there is: a line, :math:`\hat y = w x + b`, fitted to noisy points
// by making the mean squared error small. Its two numbers together are its
// *parameters*, :math:`\theta = (w, b)`. It is worth a chapter because everything that
// happens when large models are trained already happens here, where it can be computed
// exactly. Why the squared error? Because it is what the likelihood of Gaussian noise
// asks for. The best line has a closed form, the normal equations; gradient descent,
// written out by hand and then handed to ``optim::SGD``, finds the same line step by
// step; how fast it gets there, and whether it gets there at all, is decided by the
// shape of the error as a function of :math:`w` and :math:`b`, a bowl whose curvature
// we can compute, and which standardising the input makes round; and when the gradient
// is estimated from a few points at a time, the descent never quite settles.

// %% about: Least squares from maximum likelihood; the normal equations; gradient
// descent written by hand and with optim::SGD; the curvature that decides convergence
// and how standardising cures it; and the noise floor of mini-batches.
// %% assumes: 1, 2

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
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

const std::vector<std::uint64_t> kSeeds = {1, 2, 3};

// %% 1 · Why the squared error
//
// We draw 200 points with :math:`x` uniform in :math:`[-1, 1]` and
// :math:`y = 2x + 0.5 + \text{noise}`, the noise normal with standard deviation
// :math:`\sigma = 0.3`, independently for each point. The line's error is the mean
// squared error :math:`L(w, b) = \frac1n \sum_i (w x_i + b - y_i)^2`.
//
// Why squares, and not, say, absolute values? Because of the noise. If the data came
// from a line :math:`(w, b)` plus normal noise of standard deviation :math:`\sigma`,
// the chance density of seeing :math:`y_i` is :math:`\exp(-r_i^2 / (2\sigma^2)) /
// \sqrt{2\pi\sigma^2}`, with :math:`r_i = w x_i + b - y_i`, and of seeing all the
// points, the product of those. The line that makes the data most likely, the
// *maximum-likelihood* line, maximises that product, or equivalently minimises its
// negative logarithm,
//
// .. math::
//
//    -\log p(y \mid w, b, \sigma) = n \log \sqrt{2\pi\sigma^2}
//      + \frac{1}{2\sigma^2} \sum_i r_i^2 = n \log \sqrt{2\pi\sigma^2}
//      + \frac{n}{2\sigma^2} L(w, b).
//
// Whatever :math:`\sigma` is, the best :math:`(w, b)` minimises :math:`L`: least
// squares *is* maximum likelihood under Gaussian noise. (Noise with heavier tails asks
// for another loss: Laplace noise, :math:`e^{-|r|/s}`, for the mean absolute error.)

constexpr std::int64_t kPoints = 200;
constexpr double kNoise = 0.3;

struct Data {
  Tensor x, y;  // [n] each
};

Data line_data(std::uint64_t seed, double x_scale = 1.0) {
  Generator gen(seed);
  const Tensor x = uniform({kPoints}, -1, 1, gen);
  const Tensor y = 2.0 * x + 0.5 + kNoise * randn({kPoints}, gen);
  return {x * x_scale, y};
}

double loss(const Data& d, double w, double b) {
  return mean(pow(d.x * w + b - d.y, 2.0)).item();
}

// %% 2 · The normal equations
//
// Put the inputs in a matrix :math:`X` of :math:`n` rows :math:`(x_i, 1)`, so that
// the predictions are :math:`X\theta` and :math:`L = \frac1n |X\theta - y|^2`. Its
// gradient is :math:`\nabla L = \frac2n X^T (X\theta - y)`, and at the minimum it
// vanishes: the residuals :math:`r = X\theta - y` are orthogonal to both columns of
// :math:`X`, :math:`\sum r_i x_i = 0` and :math:`\sum r_i = 0`. That is two linear
// equations in two unknowns, the *normal equations*
//
// .. math::
//
//    X^T X \, \theta = X^T y, \qquad
//    X^T X = \begin{pmatrix} \sum x_i^2 & \sum x_i \\ \sum x_i & n \end{pmatrix},
//    \quad X^T y = \begin{pmatrix} \sum x_i y_i \\ \sum y_i \end{pmatrix},
//
// which we build with chapter 1's matrix products and solve by Cramer's rule.

struct Line {
  double w = 0, b = 0;
};

Line normal_equations(const Data& d) {
  const Tensor X = stack({d.x, ones_like(d.x)}, 1);  // [n, 2]: rows (x_i, 1)
  const Tensor M = matmul(transpose(X, 0, 1), X);    // X^T X, [2, 2]
  const Tensor v = matmul(transpose(X, 0, 1), d.y);  // X^T y, [2]
  const double m00 = M.at({0, 0}), m01 = M.at({0, 1}), m11 = M.at({1, 1});
  const double det = m00 * m11 - m01 * m01;
  return {(v.at({0}) * m11 - m01 * v.at({1})) / det,
          (m00 * v.at({1}) - m01 * v.at({0})) / det};
}

// %%
// How close should the best line come to the true one, :math:`w = 2`, :math:`b = 0.5`?
// The solution is linear in the noise, so it is normal too, centred on the truth, with
// standard deviations (given the inputs) :math:`\sigma / \sqrt{S}` for :math:`w` and
// :math:`\sigma \sqrt{1/n + \bar x^2 / S}` for :math:`b`, where :math:`S = \sum (x_i -
// \bar x)^2`: the *standard errors*, a few hundredths with 200 points (the test prints
// them). A miss of four standard errors in either of two numbers happens less than once
// in 7,000 data sets, so the claim holds both within four, for three seeds.
//
// .. figure:: data_and_line
//
//    The 200 points of seed 1, the true line they were drawn around and the line the
//    normal equations fit: the two nearly coincide.

// %% fold: drawing the points and the two lines
void draw_data(const Data& d, const Line& fit) {
  const std::vector<double> ends = {-1, 1};
  book::figure(
      "data_and_line",
      book::plane(
          "x", "y", book::Json(),
          {book::path("true line 2x + 0.5", ends, {-1.5, 2.5}).set("markers", false),
           book::path("least-squares line", ends, {fit.b - fit.w, fit.b + fit.w})
               .set("markers", false)},
          {book::points("data", d.x.to_vector(), d.y.to_vector())}));
}

// %%
// The test solves the normal equations for each seed.

TEST_CASE(
    "the normal equations' line lies within four standard errors of the true line, "
    "in w and in b, for three seeds") {
  book::check_seeds(
      "largest miss", "the larger of |w - 2| and |b - 0.5|, in standard errors",
      book::at_most(4), kSeeds, [](std::uint64_t seed) {
        const Data d = line_data(seed);
        const Line fit = normal_equations(d);
        const double n = kPoints, mean_x = mean(d.x).item();
        const double S = sum(pow(d.x - mean_x, 2.0)).item();
        const double se_w = kNoise / std::sqrt(S),
                     se_b = kNoise * std::sqrt(1 / n + mean_x * mean_x / S);
        out() << "seed " << seed << ": w = " << fit.w << " (± " << se_w
              << "), b = " << fit.b << " (± " << se_b << ")\n";
        if (seed == 1) draw_data(d, fit);
        return std::max(std::fabs(fit.w - 2) / se_w, std::fabs(fit.b - 0.5) / se_b);
      });
}

// %%
// The likelihood also says how noisy the data are. Setting the derivative of
// :math:`-\log p` with respect to :math:`\sigma` to zero gives the most likely noise
// level, :math:`\hat\sigma^2 = L(\hat w, \hat b)`: the mean squared residual of the
// best line. It comes out a little small, because the line was fitted to this very
// noise: the residuals' squares add up to :math:`\sigma^2` times a chi-squared variable
// with :math:`n - 2` degrees of freedom, of mean :math:`n - 2` and variance
// :math:`2(n - 2)`. So :math:`\hat\sigma^2` should lie within four of its standard
// deviations, :math:`\sigma^2 \sqrt{2(n - 2)} / n`, of :math:`(n - 2)\sigma^2 / n`.

TEST_CASE(
    "the most likely noise level is the best line's mean squared residual: within four "
    "standard deviations of (n - 2)σ²/n, for three seeds") {
  const double n = kPoints, s2 = kNoise * kNoise;
  const double centre = (n - 2) * s2 / n, sd = s2 * std::sqrt(2 * (n - 2)) / n;
  book::measured("(n - 2)σ²/n", centre, "the predicted mean of σ̂²");
  book::check_seeds("σ̂² off its prediction",
                    "|σ̂² - (n - 2)σ²/n| in standard deviations", book::at_most(4),
                    kSeeds, [&](std::uint64_t seed) {
                      const Data d = line_data(seed);
                      const Line fit = normal_equations(d);
                      return std::fabs(loss(d, fit.w, fit.b) - centre) / sd;
                    });
}

// %% 3 · Gradient descent, written out
//
// The normal equations need the whole problem at once, and they exist only because
// :math:`L` is a quadratic. Gradient descent needs only the gradient: start anywhere
// and step downhill, :math:`\theta \leftarrow \theta - \eta \nabla L(\theta)`, with a
// *learning rate* :math:`\eta`. Here it is with nothing hidden, the gradient written
// out from section 2's formula, :math:`\partial L / \partial w = \frac2n \sum_i r_i
// x_i` and :math:`\partial L / \partial b = \frac2n \sum_i r_i`.

// Gradient descent from (0, 0), by hand: `steps` steps of rate lr. Returns the
// parameters after every step.
std::vector<Line> descend_by_hand(const Data& d, double lr, int steps) {
  const std::vector<double> x = d.x.to_vector(), y = d.y.to_vector();
  const double two_over_n = 2.0 / static_cast<double>(x.size());
  Line theta{0, 0};
  std::vector<Line> path{theta};
  for (int t = 0; t < steps; ++t) {
    double grad_w = 0, grad_b = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double r = x[i] * theta.w + theta.b - y[i];  // the residual
      grad_w += two_over_n * r * x[i];
      grad_b += two_over_n * r;
    }
    theta.w -= lr * grad_w;
    theta.b -= lr * grad_b;
    path.push_back(theta);
  }
  return path;
}

// %%
// From here on the library does the same. Chapter 2's autograd computes the gradient of
// ``mse_loss`` (it adds up the same products, :math:`\frac2n r_i \cdot x_i`, in the
// same order), and :cpp:class:`litgrad::optim::SGD` takes the step,
// ``p -= lr * p.grad``, after ``zero_grad`` has cleared the gradients that chapter 2
// showed would otherwise accumulate. So the two loops should walk the very same path,
// bit for bit.

// Gradient descent on L from (0, 0) with litgrad's autograd and optim::SGD.
std::vector<Line> descend(const Data& d, double lr, int steps) {
  Tensor w = scalar_tensor(0).requires_grad_(), b = scalar_tensor(0).requires_grad_();
  optim::SGD opt({w, b}, {lr});
  std::vector<Line> path{{0, 0}};
  for (int t = 0; t < steps; ++t) {
    opt.zero_grad();
    mse_loss(d.x * w + b, d.y).backward();
    opt.step();
    path.push_back({w.item(), b.item()});
  }
  return path;
}

double distance(const Line& p, const Line& q) {
  return std::hypot(p.w - q.w, p.b - q.b);
}

TEST_CASE(
    "the loop written by hand and the loop with autograd and optim::SGD take the "
    "same 100 steps, bit for bit, for three seeds") {
  book::check_seeds(
      "steps that differ", "of the 100 steps, how many differ in any bit",
      book::exactly(0), kSeeds, [](std::uint64_t seed) {
        const Data d = line_data(seed);
        const auto mine = descend_by_hand(d, 0.3, 100), library = descend(d, 0.3, 100);
        double differing = 0;
        for (std::size_t t = 0; t < mine.size(); ++t)
          differing += mine[t].w != library[t].w || mine[t].b != library[t].b;
        return differing;
      });
}

// %% 4 · The bowl, and how fast descent goes down it
//
// :math:`L` is a quadratic in :math:`\theta`: a bowl. Its curvature is its Hessian, the
// matrix of second derivatives, constant for a quadratic:
// :math:`H = \frac2n X^T X`. Its eigenvalues :math:`\lambda_{\max} \ge \lambda_{\min}
// > 0` are the curvatures along the bowl's two axes. (An *eigenvalue* :math:`\lambda`
// of :math:`H` is a number for which some direction :math:`v`, its *eigenvector*,
// satisfies :math:`H v = \lambda v`: along :math:`v`, :math:`H` only stretches. A
// symmetric :math:`2 \times 2` matrix has two such directions, at right angles: the
// bowl's axes.)
//
// Around the minimum :math:`\theta^*` the gradient is exactly :math:`H (\theta -
// \theta^*)`, so a step turns the error :math:`e = \theta - \theta^*` into :math:`(I -
// \eta H) e`: along each axis it is multiplied by :math:`1 - \eta \lambda`. After
// :math:`T` steps from :math:`e_0`, with :math:`c_k` the components of :math:`e_0`
// along the axes,
//
// .. math::
//
//    e_T = (1 - \eta\lambda_{\max})^T c_1 v_1 + (1 - \eta\lambda_{\min})^T c_2 v_2.
//
// It shrinks along both axes if and only if :math:`|1 - \eta \lambda| < 1` for both,
// that is if and only if :math:`0 < \eta < 2 / \lambda_{\max}`.

struct Curvature {
  double lambda_max = 0, lambda_min = 0;
  Line steep, gentle;  // the unit eigenvectors
};

// The eigenvalues and eigenvectors of H = (2/n) [[Σx², Σx], [Σx, n]].
Curvature curvature(const Data& d) {
  const double n = static_cast<double>(d.x.numel());
  const double a = 2 * sum(d.x * d.x).item() / n, c = 2 * sum(d.x).item() / n, e = 2.0;
  const double mid = (a + e) / 2, radius = std::sqrt((a - e) * (a - e) / 4 + c * c);
  Curvature k{mid + radius, mid - radius, {}, {}};
  // (H - λI) v = 0's second row, c v_w + (e - λ) v_b = 0, gives v = (λ - e, c).
  const double vw = k.lambda_max - e, vb = c, norm = std::hypot(vw, vb);
  k.steep = {vw / norm, vb / norm};
  k.gentle = {-k.steep.b, k.steep.w};  // at right angles
  return k;
}

// %%
// So the threshold :math:`2 / \lambda_{\max}` is sharp, and the formula predicts the
// whole run. Just below it, at :math:`\eta = 0.98 \cdot 2/\lambda_{\max}`, the steep
// axis's factor is :math:`|1 - 1.96| = 0.96`, so 500 steps shrink it by
// :math:`0.96^{500} \approx 10^{-9}`; just above, at :math:`1.02 \cdot 2 /
// \lambda_{\max}`, it is :math:`1.04` and 500 steps multiply it by :math:`1.04^{500}
// \approx 3 \cdot 10^8`. The test computes the axes and :math:`e_{500}` from the data
// and holds the distance actually reached within 0.1% of :math:`|e_{500}|`, for both
// rates. (Rounding moves it far less: each step rounds the parameters by a few
// :math:`u |\theta|` and the gradient by :math:`(n + 1) u` times its terms' sizes,
// together under :math:`10^{-13}`, against distances above :math:`10^{-10}`, which
// the test checks.)
//
// .. figure:: threshold_losses
//
//    The loss during gradient descent just below and just above the threshold 2/λ_max,
//    on a log scale: one settles at the least-squares error, the other explodes.

// %% fold: drawing the two loss curves
void draw_threshold(const Data& d, const std::vector<Line>& below,
                    const std::vector<Line>& above) {
  std::vector<double> steps, low, high;
  for (std::size_t t = 0; t < below.size(); t += 5) {
    steps.push_back(static_cast<double>(t));
    low.push_back(loss(d, below[t].w, below[t].b));
    high.push_back(loss(d, above[t].w, above[t].b));
  }
  book::figure("threshold_losses",
               book::line_plot("step", "mean squared error",
                               {book::series("rate 0.98 · 2/λmax", steps, low),
                                book::series("rate 1.02 · 2/λmax", steps, high)},
                               true));
}

// %%
// The predicted distance after :math:`T` steps, from the axes:

// |e_T| for descent from (0, 0) at rate lr, by the formula above.
double predicted_distance(const Data& d, double lr, int steps) {
  const Curvature k = curvature(d);
  const Line best = normal_equations(d), e0{-best.w, -best.b};
  const double c1 = e0.w * k.steep.w + e0.b * k.steep.b,
               c2 = e0.w * k.gentle.w + e0.b * k.gentle.b;
  return std::hypot(std::pow(1 - lr * k.lambda_max, steps) * c1,
                    std::pow(1 - lr * k.lambda_min, steps) * c2);
}

TEST_CASE(
    "gradient descent converges just below the rate 2/λ_max and diverges just above "
    "it, each reaching the distance the axes' factors predict, within 0.1%") {
  const Data d = line_data(1);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d);
  const double low = 0.98 * 2 / k.lambda_max, high = 1.02 * 2 / k.lambda_max;
  const auto below = descend(d, low, 500), above = descend(d, high, 500);
  book::measured("λ_max", k.lambda_max, "the bowl's steepest curvature");
  book::check("distance below, over its prediction",
              distance(below.back(), best) / predicted_distance(d, low, 500),
              "after 500 steps at 0.98 · 2/λ_max",
              book::within(1e-3, 1).large_margin_because(book::kWorstCaseRounding));
  book::check("distance above, over its prediction",
              distance(above.back(), best) / predicted_distance(d, high, 500),
              "after 500 steps at 1.02 · 2/λ_max",
              book::within(1e-3, 1).large_margin_because(book::kWorstCaseRounding));
  book::check("distance below", distance(below.back(), best), "after 500 steps",
              book::above(1e-10));
  book::measured("distance above", distance(above.back(), best), "after 500 steps");
  draw_threshold(d, below, above);
}

// %% fold: the rounding of one step, as chapter 1 bounds it
// At θ, one step rounds each parameter (u |θ|), and each gradient is a sum of n terms
// 2 r_i x_i / n (or 2 r_i / n), each computed with a few roundings, summed with at most
// (n + 1) u times the sum of the terms' sizes; the rate multiplies that.
double step_rounding(const Data& d, const Line& theta, double lr) {
  const Tensor r = d.x * theta.w + theta.b - d.y;
  const double n = static_cast<double>(d.x.numel());
  const double terms = 2 / n * sum(abs(r) * (abs(d.x) + 1.0)).item();
  return kU * (std::fabs(theta.w) + std::fabs(theta.b)) + lr * (n + 4) * kU * terms;
}

// %%
// The same arithmetic says how fast. With :math:`\eta = 1 / \lambda_{\max}` the steep
// axis's factor :math:`1 - \eta \lambda_{\max}` is exactly 0: the first step lands on
// the valley floor, and from then on the error lies along the gentle axis only and
// shrinks by exactly :math:`1 - \lambda_{\min} / \lambda_{\max}` per step. The effect
// is clearest where the two curvatures differ most, so this test and the next use the
// inputs scaled by 10, as section 5 will explain. What is left along the steep axis
// after the first step, and the error of each measured ratio of successive distances,
// come from rounding alone: each step rounds the parameters by at most :math:`u(|w| +
// |b|)` and the gradient's two sums by at most :math:`(n + 1)u` times the sum of their
// terms' sizes (chapter 1), and a ratio of distances about :math:`d` apart is off by at
// most twice that over :math:`d`. The test computes that allowance at every step and
// holds the steep share, and each ratio's gap from the factor, within it.

TEST_CASE(
    "with rate 1/λ_max one step lands on the valley floor, and each later step shrinks "
    "the distance by exactly 1 - λ_min/λ_max, to the rounding of a step") {
  const Data d = line_data(1, 10);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d);
  const double lr = 1 / k.lambda_max, factor = 1 - k.lambda_min / k.lambda_max;
  const auto path = descend(d, lr, 30);
  const Line e1{path[1].w - best.w, path[1].b - best.b};
  const double steep = std::fabs(e1.w * k.steep.w + e1.b * k.steep.b);
  double worst = factor, allowed = 0;  // the ratio furthest from the factor
  for (int t = 1; t < 30; ++t) {
    const double ratio = distance(path[t + 1], best) / distance(path[t], best);
    if (std::fabs(ratio - factor) >= std::fabs(worst - factor)) worst = ratio;
    allowed = std::max(allowed,
                       2 * step_rounding(d, path[t], lr) / distance(path[t + 1], best));
  }
  book::check("error left along the steep axis", steep,
              "after one step; at most one step's rounding",
              book::at_most(step_rounding(d, {0, 0}, lr))
                  .large_margin_because(book::kWorstCaseRounding));
  book::check("the ratio furthest from the factor", worst,
              "of the distances after steps t + 1 and t, t from 1 to 29; the factor "
              "1 - λ_min/λ_max, to the rounding allowed",
              book::within(allowed, factor));
}

// %%
// :math:`1/\lambda_{\max}` is not the fastest rate. The factor along each axis is
// :math:`|1 - \eta \lambda|`; the larger of the two is smallest when they are equal,
// :math:`1 - \eta \lambda_{\min} = \eta \lambda_{\max} - 1`, at :math:`\eta = 2 /
// (\lambda_{\max} + \lambda_{\min})`, where both are :math:`(\kappa - 1)/(\kappa + 1)`
// with :math:`\kappa = \lambda_{\max} / \lambda_{\min}`, the bowl's *condition number*.
// Both axes then shrink by that factor every step, so the distance does too, from the
// first step on, to the same rounding. For large :math:`\kappa` the factor is about
// :math:`1 - 2/\kappa`, twice the progress of :math:`1 - 1/\kappa`.

TEST_CASE(
    "the best rate 2/(λ_max + λ_min) shrinks the distance by (κ - 1)/(κ + 1) every "
    "step, to the rounding of a step") {
  const Data d = line_data(1, 10);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d);
  const double kappa = k.lambda_max / k.lambda_min,
               lr = 2 / (k.lambda_max + k.lambda_min);
  const auto path = descend(d, lr, 20);
  const double predicted = (kappa - 1) / (kappa + 1);
  double worst = predicted, allowed = 0;  // the ratio furthest from the prediction
  for (int t = 0; t < 20; ++t) {
    const double ratio = distance(path[t + 1], best) / distance(path[t], best);
    if (std::fabs(ratio - predicted) >= std::fabs(worst - predicted)) worst = ratio;
    allowed = std::max(allowed,
                       2 * step_rounding(d, path[t], lr) / distance(path[t + 1], best));
  }
  book::measured("κ", kappa, "the condition number for the inputs scaled by 10");
  book::check("the ratio furthest from (κ - 1)/(κ + 1)", worst,
              "of successive distances over 20 steps; the prediction, to the rounding "
              "allowed",
              book::within(allowed, predicted));
}

// %%
// Descent finds the closed form's line. With rate :math:`1/\lambda_{\max}` the
// distance after :math:`T \ge 1` steps is :math:`|e_1| (1 - 1/\kappa)^{T - 1}`, so the
// number of steps to come within :math:`10^{-12}` of the start's distance is known in
// advance. After that many steps of the loop written by hand, the distance from the
// normal equations' line must be that prediction, up to what rounding leaves: the
// steps' roundings, which the shrinking factor keeps from piling up beyond
// :math:`1/(1 - \text{factor})` times one step's, and the normal equations' own, the
// four sums of section 2 each within :math:`(n + 1) u` of their terms' sizes, carried
// through the solution by :math:`(X^T X)^{-1}`.

// %% fold: the normal equations' rounding, carried through the solution
// θ = M⁻¹ v with M = XᵀX and v = Xᵀy; rounding the sums changes M by ΔM and v by Δv,
// each entry at most (n + 1) u times the sum of its terms' sizes, and θ by
// M⁻¹ (Δv - ΔM θ) to first order; Cramer's rule adds a few u |θ|.
Line normal_equations_rounding(const Data& d, const Line& theta) {
  const double n = static_cast<double>(d.x.numel()), g = (n + 1) * kU;
  const double sxx = sum(d.x * d.x).item(), sx = sum(abs(d.x)).item();
  const double sxy = sum(abs(d.x * d.y)).item(), sy = sum(abs(d.y)).item();
  const double m00 = sxx, m01 = sum(d.x).item(), m11 = n, det = m00 * m11 - m01 * m01;
  const double i00 = std::fabs(m11 / det), i01 = std::fabs(m01 / det),
               i11 = std::fabs(m00 / det);  // |M⁻¹|
  const double r0 = g * (sxy + sxx * std::fabs(theta.w) + sx * std::fabs(theta.b));
  const double r1 = g * (sy + sx * std::fabs(theta.w));
  return {i00 * r0 + i01 * r1 + 8 * kU * std::fabs(theta.w),
          i01 * r0 + i11 * r1 + 8 * kU * std::fabs(theta.b)};
}

// %%
// The test runs the hand-written loop for each seed.

TEST_CASE(
    "the loop by hand reaches the normal equations' line: after the steps predicted "
    "for a 10^12-fold shrink, its distance is the predicted one to rounding") {
  for (const std::uint64_t seed : kSeeds) {
    const Data d = line_data(seed);
    const Curvature k = curvature(d);
    const Line best = normal_equations(d);
    const double lr = 1 / k.lambda_max, factor = 1 - k.lambda_min / k.lambda_max;
    const double e0 = std::hypot(best.w, best.b);
    const double e1 = distance(descend_by_hand(d, lr, 1)[1], best);
    const int steps =
        1 + static_cast<int>(std::ceil(std::log(1e-12 * e0 / e1) / std::log(factor)));
    const auto path = descend_by_hand(d, lr, steps);
    const double predicted = e1 * std::pow(factor, steps - 1);
    double worst_step = 0;
    for (const Line& p : path)
      worst_step = std::max(worst_step, step_rounding(d, p, lr));
    const Line solution = normal_equations_rounding(d, best);
    const double allowed =
        worst_step / (1 - factor) + std::hypot(solution.w, solution.b);
    out() << "seed " << seed << ": " << steps << " steps\n";
    book::check(
        "distance at the end (seed " + std::to_string(seed) + ")",
        distance(path.back(), best),
        "from the normal equations' line; the prediction |e_1| (1 - 1/κ)^(T-1), "
        "to the rounding allowed",
        book::within(allowed, predicted)
            .large_margin_because(book::kWorstCaseRounding));
  }
}

// %% 5 · A stretched bowl, and how to make it round
//
// Multiply every :math:`x` by a scale :math:`s`. The best line is the same line in
// other units, but the bowl changes shape: the curvature along :math:`w`, about
// :math:`2 s^2 \cdot \frac13` for :math:`x` uniform in :math:`[-s, s]`, grows like
// :math:`s^2`, while the curvature along :math:`b` stays 2. Once the first dominates
// (from :math:`s = 10` on here) the condition number :math:`\kappa` grows like
// :math:`s^2`. The rate must stay below :math:`2/\lambda_{\max}`, so along the gentle
// axis progress per step is only about :math:`1/\kappa`, and the number of steps to
// shrink the error by a factor :math:`\rho` is about :math:`\kappa \ln(1/\rho)`: ten
// times the condition number, ten times the steps. With rate :math:`1/\lambda_{\max}`
// the count is exactly :math:`\lceil \ln(e_1 / (\rho e_0)) / -\ln(1 - 1/\kappa) \rceil
// + 1`, with :math:`e_0` and :math:`e_1` the distances before and after the first step,
// except that when the distance lands within rounding of the target the count can go
// either way; we allow one step for that.
//
// How exactly does :math:`\kappa` grow like :math:`s^2`? With :math:`m_1` and
// :math:`m_2` the mean of the unscaled :math:`x` and of its square, :math:`H/2 =
// \begin{pmatrix} s^2 m_2 & s m_1 \\ s m_1 & 1 \end{pmatrix}`. Its eigenvalues
// :math:`\mu_+ \ge \mu_-` have product :math:`s^2 (m_2 - m_1^2)` and sum :math:`s^2 m_2
// + 1`, and :math:`0 < \mu_- \le 1` (the smaller eigenvalue of a symmetric matrix is at
// most its smallest diagonal entry), so :math:`\mu_+` lies in :math:`[v, v + 1]` with
// :math:`v = s^2 m_2`. Then :math:`\kappa = \mu_+ / \mu_- = \mu_+^2 / (s^2 (m_2 -
// m_1^2))`, which is :math:`s^2 K` with :math:`K = m_2^2 / (m_2 - m_1^2)`, times a
// factor between 1 and :math:`(1 + 1/v)^2`: :math:`s^2` times a constant, up to a
// correction that fades like :math:`2/v`. The test holds :math:`\kappa(s) / (s^2 K)` in
// that interval for :math:`s` of 10, 30 and 100.
//
// .. figure:: stretched_bowl
//
//    The error surface for features scaled by 10, with the descent path from (0, 0):
//    the first step lands on the valley floor, and the rest crawl along it.
//
// .. figure:: steps_against_condition
//
//    Steps to shrink the distance a millionfold against the condition number, both axes
//    logarithmic: a line of slope 1.

// %% fold: drawing the bowl with its path, and the steps against κ
void draw_stretched(const Data& d, const std::vector<Line>& path, const Line& best) {
  std::vector<double> ws, bs;
  for (int i = 0; i <= 60; ++i)
    ws.push_back(-0.3 + 1.0 * i / 60), bs.push_back(-0.2 + 1.0 * i / 60);
  Tensor z = zeros(
      {static_cast<std::int64_t>(bs.size()), static_cast<std::int64_t>(ws.size())});
  for (std::size_t i = 0; i < bs.size(); ++i)
    for (std::size_t j = 0; j < ws.size(); ++j)
      z.data()[i * ws.size() + j] =
          loss(d, ws[j], bs[i]) - loss(d, best.w, best.b) + 1e-3;
  std::vector<double> pw, pb;
  for (const Line& p : path) pw.push_back(p.w), pb.push_back(p.b);
  book::figure("stretched_bowl",
               book::plane("w", "b", book::field(ws, bs, z, "contour", 14, true),
                           {book::path("gradient descent", pw, pb)},
                           {book::points("best line", {best.w}, {best.b})}, true));
}

void draw_steps(const std::vector<double>& kappas, const std::vector<double>& steps,
                const std::vector<double>& predicted) {
  book::figure(
      "steps_against_condition",
      book::line_plot("condition number κ", "steps to shrink the distance 1e6-fold",
                      {book::series("measured", kappas, steps),
                       book::series("predicted", kappas, predicted)},
                      true)
          .set("log_x", book::Json::boolean(true))
          .set("log_x_base", 10));
}

// %%
// The test scales by 1, 10, 30 and 100.

TEST_CASE(
    "the steps descent needs grow with the condition number κ as predicted, to within "
    "one step, and κ grows like the scale squared") {
  std::vector<double> kappas, counted, predicted;
  int worst = 0;
  for (double s : {1.0, 10.0, 30.0, 100.0}) {
    const Data d = line_data(1, s);
    const Curvature k = curvature(d);
    const Line best = normal_equations(d);
    const double kappa = k.lambda_max / k.lambda_min;
    const auto first = descend(d, 1 / k.lambda_max, 1);  // the start and one step
    const double e0 = distance(first[0], best), e1 = distance(first[1], best);
    const double target = 1e-6 * e0;
    const int expected =
        static_cast<int>(std::ceil(std::log(e1 / target) / -std::log(1 - 1 / kappa))) +
        1;
    const auto path = descend(d, 1 / k.lambda_max, 2 * expected + 10);
    int t = 0;
    while (t + 1 < static_cast<int>(path.size()) && distance(path[t], best) > target)
      ++t;
    out() << "scale " << s << ": κ = " << kappa << ", " << t << " steps (predicted "
          << expected << ")\n";
    kappas.push_back(kappa), counted.push_back(t), predicted.push_back(expected);
    worst = std::max(worst, std::abs(t - expected));
    if (s == 10.0)
      draw_stretched(d, std::vector<Line>(path.begin(), path.begin() + 60), best);
  }
  book::check("largest miss", worst,
              "the most steps by which a count missed its prediction",
              book::at_most(1).large_margin_because(book::kWholeSteps));
  const Data unscaled = line_data(1);
  const double m1 = mean(unscaled.x).item(), m2 = mean(unscaled.x * unscaled.x).item();
  const double K = m2 * m2 / (m2 - m1 * m1);
  for (std::size_t i = 1; i < kappas.size(); ++i) {  // s = 10, 30, 100
    const double s = i == 1 ? 10 : i == 2 ? 30 : 100;
    const double v = s * s * m2;  // (not the unit roundoff)
    book::check("κ / (s² K) at s = " + std::to_string(static_cast<int>(s)),
                kappas[i] / (s * s * K),
                "between 1 (to rounding) and (1 + 1/v)², v = s² m_2",
                book::between(1 - 1e-12, (1 + 1 / v) * (1 + 1 / v)));
  }
  draw_steps(kappas, counted, predicted);
}

// %%
// The cure is to change the input, not the descent. *Standardise* it: subtract its mean
// and divide by its standard deviation, :math:`x' = (x - \bar x)/s_x`. Then :math:`\sum
// x'_i = 0` and :math:`\frac1n \sum x'^2_i = 1`, so :math:`H = \frac2n X'^T X'` is
// twice the identity: both curvatures are 2, :math:`\kappa = 1`, whatever the scale
// was, and a single step of rate :math:`1/2` lands exactly on the best line, :math:`w'
// = \frac1n \sum x'_i y_i`, :math:`b' = \bar y`. In the original units that line is
// :math:`w = w'/s_x`, :math:`b = b' - w' \bar x / s_x`, the normal equations' line
// again. Rounding leaves :math:`\frac1n \sum x'_i` and :math:`\frac1n \sum x'^2_i - 1`
// each within about :math:`(n + 4)u` (chapter 1's bound for a sum of :math:`n` numbers
// of size about 1), so :math:`\kappa - 1` within :math:`4(n + 4)u`; and the one step
// lands within the rounding of a step plus the normal equations' rounding.

TEST_CASE(
    "standardised inputs have κ = 1 to rounding at every scale, and one step of rate "
    "1/2 lands on the normal equations' line") {
  double worst_kappa = 0, worst_landing = 0;
  for (double s : {1.0, 10.0, 100.0}) {
    const Data d = line_data(1, s);
    const double mean_x = mean(d.x).item();
    const double sd_x = std::sqrt(mean(pow(d.x - mean_x, 2.0)).item());
    const Data standard{(d.x - mean_x) / sd_x, d.y};
    const Curvature k = curvature(standard);
    worst_kappa = std::max(worst_kappa, k.lambda_max / k.lambda_min - 1);
    const Line step = descend(standard, 0.5, 1).back();  // one step from (0, 0)
    const Line back{step.w / sd_x, step.b - step.w * mean_x / sd_x};
    const Line best = normal_equations(d),
               rounding = normal_equations_rounding(d, best);
    const double allowed = std::hypot(rounding.w, rounding.b) +
                           step_rounding(standard, {0, 0}, 0.5) *
                               (1 + 1 / sd_x + std::fabs(mean_x / sd_x));
    worst_landing = std::max(worst_landing, distance(back, best) / allowed);
    out() << "scale " << s << ": κ - 1 = " << k.lambda_max / k.lambda_min - 1
          << ", one step lands " << distance(back, best) << " from the best line\n";
  }
  book::check("largest κ - 1", worst_kappa,
              "how far from 1 the standardised κ is, at scales 1, 10 and 100",
              book::at_most(4 * (kPoints + 4) * kU)
                  .large_margin_because(book::kWorstCaseRounding));
  book::check("largest landing distance / rounding", worst_landing,
              "one step's distance from the normal equations' line over the rounding "
              "allowed",
              book::at_most(1).large_margin_because(book::kWorstCaseRounding));
}

// %% 6 · Mini-batches and the noise floor
//
// Real training estimates the gradient from a few points at a time: a *mini-batch*.
// Gradient descent on such estimates is *stochastic gradient descent*, SGD, and
// litgrad's ``optim::SGD`` is the same step as before, applied to whatever gradient
// ``backward`` left. The estimate is right on average but noisy, and at the minimum,
// where the true gradient is zero, the noise still pushes. The parameters then wander
// around :math:`\theta^*` instead of settling, and the loss stays above its least value
// by a *floor*.
//
// The mini-batch gradient is right on average: averaged over many random batches it is
// the full gradient. The test averages 20,000 batch gradients at a point away from the
// minimum and holds each component within four standard errors (the spread of the batch
// gradients over :math:`\sqrt{20000}`) of the full gradient: a chance miss of four
// standard errors in either of the two components happens less than once in 7,000
// tries.

TEST_CASE(
    "a mini-batch gradient is right on average: the mean of 20,000 is within four "
    "standard errors of the full gradient") {
  const Data d = line_data(1);
  Generator pick(13);
  const int draws = 20000;
  double mean_w = 0, mean_b = 0, square_w = 0, square_b = 0;
  for (int t = 0; t < draws; ++t) {
    Tensor w = scalar_tensor(0.5).requires_grad_(),
           b = scalar_tensor(-1).requires_grad_();
    const Tensor batch = randint(0, kPoints, {8}, pick);
    mse_loss(index_select(d.x, 0, batch) * w + b, index_select(d.y, 0, batch))
        .backward();
    const double gw = w.grad().item(), gb = b.grad().item();
    mean_w += gw / draws, mean_b += gb / draws, square_w += gw * gw / draws,
        square_b += gb * gb / draws;
  }
  Tensor w = scalar_tensor(0.5).requires_grad_(),
         b = scalar_tensor(-1).requires_grad_();
  mse_loss(d.x * w + b, d.y).backward();
  const double se_w = std::sqrt((square_w - mean_w * mean_w) / draws);
  const double se_b = std::sqrt((square_b - mean_b * mean_b) / draws);
  const double z = std::max(std::fabs(mean_w - w.grad().item()) / se_w,
                            std::fabs(mean_b - b.grad().item()) / se_b);
  book::check(
      "standard errors off", z,
      "the larger component's distance from the full gradient, in standard errors",
      book::below(4));
}

// %%
// How high is the floor? Along an axis of curvature :math:`\lambda` the error follows
// :math:`e \leftarrow (1 - \eta \lambda) e + \eta \xi`, with :math:`\xi` the noise of
// the gradient, of variance :math:`\sigma_B^2`. In the steady state the variance of
// :math:`e` is unchanged by a step, :math:`V = (1 - \eta \lambda)^2 V + \eta^2
// \sigma_B^2`, so :math:`V = \eta \sigma_B^2 / (\lambda (2 - \eta \lambda))`, and the
// excess loss :math:`\lambda V / 2 = \eta \sigma_B^2 / (2 (2 - \eta \lambda))` grows
// about in proportion to the rate. Doubling the rate multiplies it by :math:`2 (2 -
// \eta \lambda) / (2 - 2 \eta \lambda)`, which for our rates and curvatures lies
// between 2 and about 2.25 (the test computes the upper end from
// :math:`\lambda_{\max}`).
//
// This model leaves things out (the mini-batch noise also grows with the distance from
// :math:`\theta^*`), and an average over a random walk is itself noisy, so the claim
// allows for both. We run SGD with batches of 8 from the best line itself, so that only
// the floor is measured, at rates 0.025, 0.05, 0.1 and 0.2, averaging the excess loss
// over 16,000 steps, for three seeds. The test measures each average's noise: it splits
// the steps into 20 blocks of 800, much longer than the walk's memory, :math:`1 / (\eta
// \lambda_{\min})`, about 60 steps at the smallest rate, and takes the standard
// error of the block means, which gives each factor's standard error. The claim: every
// factor lies within four of its standard errors of the predicted range.
//
// .. figure:: noise_floor
//
//    The excess loss of mini-batch SGD, averaged over 16,000 steps, against the
//    learning rate, both axes logarithmic: a line of slope about 1.

// Mini-batch SGD from the best line: the excess loss L - L*, averaged over the steps,
// with the standard error of that average from 20 blocks of steps.
struct Floor {
  double mean = 0, se = 0;
};

Floor noise_floor(const Data& d, double lr, std::int64_t batch_size, std::uint64_t seed,
                  int steps) {
  const Line best = normal_equations(d);
  const double least = loss(d, best.w, best.b);
  Tensor w = scalar_tensor(best.w).requires_grad_(),
         b = scalar_tensor(best.b).requires_grad_();
  optim::SGD opt({w, b}, {lr});
  Generator pick(seed);
  const int blocks = 20, per_block = steps / blocks;
  std::vector<double> block_means(blocks, 0.0);
  for (int t = 0; t < steps; ++t) {
    const Tensor batch = randint(0, kPoints, {batch_size}, pick);
    opt.zero_grad();
    mse_loss(index_select(d.x, 0, batch) * w + b, index_select(d.y, 0, batch))
        .backward();
    opt.step();
    block_means[t / per_block] += (loss(d, w.item(), b.item()) - least) / per_block;
  }
  Floor f;
  for (double m : block_means) f.mean += m / blocks;
  double spread = 0;
  for (double m : block_means) spread += (m - f.mean) * (m - f.mean) / (blocks - 1);
  f.se = std::sqrt(spread / blocks);
  return f;
}

// How far a factor b/a lies outside [low, high], in its standard errors.
double outside(const Floor& a, const Floor& b, double low, double high) {
  const double factor = b.mean / a.mean;
  const double se = factor * std::hypot(a.se / a.mean, b.se / b.mean);
  return std::max({0.0, low - factor, factor - high}) / se;
}

// %% fold: drawing the floor against the rate, or against the batch size
void draw_floor(const std::string& name, const std::string& xlabel,
                const std::string& label, const std::vector<double>& xs,
                const std::vector<Floor>& floors) {
  std::vector<double> means;
  for (const Floor& f : floors) means.push_back(f.mean);
  book::figure(name, book::line_plot(xlabel, "mean excess loss L - L*",
                                     {book::series(label, xs, means)}, true)
                         .set("log_x", book::Json::boolean(true)));
}

// %%
// The test measures all four rates for each seed.

TEST_CASE(
    "mini-batch SGD stops at a noise floor that grows with the learning rate: each "
    "doubling raises it by a factor within four standard errors of the predicted 2 to "
    "2.25") {
  const Data d = line_data(1);
  const Curvature k = curvature(d);
  const std::vector<double> rates = {0.025, 0.05, 0.1, 0.2};
  double predicted_high = 2;  // the largest predicted factor, from λ_max
  for (std::size_t i = 0; i + 1 < rates.size(); ++i) {
    const double el = rates[i] * k.lambda_max;
    predicted_high = std::max(predicted_high, 2 * (2 - el) / (2 - 2 * el));
  }
  book::measured("largest predicted factor", predicted_high,
                 "the top of the predicted range; the bottom is 2");
  book::check_seeds(
      "largest distance", "the most a factor lies outside 2 to the top, in its SEs",
      book::below(4).large_margin_because(
          "a distance outside the predicted range is 0 whenever every factor falls "
          "inside it, as the prediction says they should; the four standard errors "
          "allow for the noise of a measured factor"),
      kSeeds, [&](std::uint64_t seed) {
        std::vector<Floor> floors;
        for (double lr : rates) floors.push_back(noise_floor(d, lr, 8, seed, 16000));
        double worst = 0;
        out() << "seed " << seed << ": factors";
        for (std::size_t i = 0; i + 1 < floors.size(); ++i) {
          worst = std::max(worst, outside(floors[i], floors[i + 1], 2, predicted_high));
          out() << " " << floors[i + 1].mean / floors[i].mean;
        }
        out() << "\n";
        if (seed == kSeeds[0])
          draw_floor("noise_floor", "learning rate", "batches of 8", rates, floors);
        return worst;
      });
}

// %%
// The batch size enters through :math:`\sigma_B^2`. A batch of :math:`B` points drawn
// independently averages :math:`B` independent per-point gradients, so its noise has
// :math:`1/B` of one point's variance: :math:`\sigma_B^2 = \sigma_1^2 / B`. Nothing
// else in the floor depends on :math:`B`, so each doubling of the batch should halve
// the floor: a factor of :math:`1/2`, held within four standard errors as before, at
// rate 0.1 and batches of 2 to 32. (Bigger batches buy a lower floor at the price of
// more arithmetic per step; halving the rate buys the same, at the price of slower
// progress.)
//
// .. figure:: noise_floor_batch
//
//    The excess loss at rate 0.1 against the batch size, both axes logarithmic: a line
//    of slope -1.

TEST_CASE(
    "the noise floor falls with the batch size: each doubling multiplies it by a "
    "factor within four standard errors of 1/2") {
  const Data d = line_data(1);
  const std::vector<std::int64_t> sizes = {2, 4, 8, 16, 32};
  book::check_seeds(
      "largest distance", "the most a factor lies away from 1/2, in its SEs",
      book::below(4), kSeeds, [&](std::uint64_t seed) {
        std::vector<Floor> floors;
        for (std::int64_t size : sizes)
          floors.push_back(noise_floor(d, 0.1, size, seed, 16000));
        double worst = 0;
        out() << "seed " << seed << ": factors";
        for (std::size_t i = 0; i + 1 < floors.size(); ++i) {
          worst = std::max(worst, outside(floors[i], floors[i + 1], 0.5, 0.5));
          out() << " " << floors[i + 1].mean / floors[i].mean;
        }
        out() << "\n";
        if (seed == kSeeds[0])
          draw_floor("noise_floor_batch", "batch size", "rate 0.1", {2, 4, 8, 16, 32},
                     floors);
        return worst;
      });
}

// %% fold: the end of the file's namespace
}  // namespace
