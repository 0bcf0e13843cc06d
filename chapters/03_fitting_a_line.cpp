// Chapter 3 · Fitting a line
// ==========================
//
// The simplest model there is: a line, :math:`\hat y = w x + b`, fitted to noisy points
// by making the mean squared error small. It is worth a chapter because everything that
// happens when large models are trained already happens here, where it can be computed
// exactly. The best line has a closed form; gradient descent finds the same line step
// by step; how fast it gets there, and whether it gets there at all, is decided by the
// shape of the error as a function of :math:`w` and :math:`b`, a bowl whose curvature
// we can compute; and when the gradient is estimated from a few points at a time, the
// descent never quite settles.

// %% about: Least squares two ways, in closed form and by gradient descent; when
// descent converges and how fast, decided by the curvature of the error; and the noise
// floor of mini-batches.
// %% assumes: 1, 2

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::out;

namespace {

// %% 1 · The best line
//
// We draw 200 points with :math:`x` uniform in :math:`[-1, 1]` and
// :math:`y = 2x + 0.5 + \text{noise}`, the noise normal with standard deviation 0.3.
// The error of the line :math:`(w, b)` is the mean squared error :math:`L(w, b) =
// \frac1n \sum_i (w x_i + b - y_i)^2`.

constexpr std::int64_t kPoints = 200;

struct Data {
  Tensor x, y;  // [n] each
};

Data line_data(std::uint64_t seed, double x_scale = 1.0) {
  Generator gen(seed);
  const Tensor x = uniform({kPoints}, -1, 1, gen);
  const Tensor y = 2.0 * x + 0.5 + 0.3 * randn({kPoints}, gen);
  return {x * x_scale, y};
}

double loss(const Data& d, double w, double b) {
  return mean(pow(d.x * w + b - d.y, 2.0)).item();
}

// %%
// Setting both partial derivatives of :math:`L` to zero gives two linear equations, the
// *normal equations*: :math:`w \sum x_i^2 + b \sum x_i = \sum x_i y_i` and
// :math:`w \sum x_i + b\,n = \sum y_i`. Two equations in two unknowns, solved by
// Cramer's rule.

struct Line {
  double w = 0, b = 0;
};

Line normal_equations(const Data& d) {
  const double n = static_cast<double>(d.x.numel());
  const double sx = sum(d.x).item(), sxx = sum(d.x * d.x).item();
  const double sy = sum(d.y).item(), sxy = sum(d.x * d.y).item();
  const double det = sxx * n - sx * sx;
  return {(sxy * n - sx * sy) / det, (sxx * sy - sx * sxy) / det};
}

// %%
// At the solution the gradient vanishes, which is to say the residuals
// :math:`r_i = w x_i + b - y_i` are orthogonal to the inputs: :math:`\sum r_i = 0` and
// :math:`\sum r_i x_i = 0`. In floating point each residual is rounded and so is each
// sum: with :math:`|y| \le 3` here, the :math:`n` terms of each sum are each off by a
// few :math:`u \cdot 3`, so the sums are within about :math:`n \cdot 8u \cdot 3 \approx
// 10^{-12}` of zero. We check :math:`10^{-11}`.

TEST_CASE(
    "at the normal equations' solution the residuals are orthogonal to 1 and to x, "
    "to 1e-11") {
  const Data d = line_data(1);
  const Line best = normal_equations(d);
  out() << "best line: w = " << best.w << ", b = " << best.b << "\n";
  const Tensor r = d.x * best.w + best.b - d.y;
  const double worst =
      std::max(std::fabs(sum(r).item()), std::fabs(sum(r * d.x).item()));
  const double tolerance = 1e-11;
  book::measured("largest residual sum", worst,
                 "the larger of |sum r| and |sum r x| at the solution",
                 book::at_most(tolerance));
  CHECK(worst <= tolerance);
}

// %% 2 · The bowl, and gradient descent in it
//
// :math:`L` is a quadratic in :math:`(w, b)`: a bowl. Its curvature is its Hessian, the
// matrix of second derivatives, constant for a quadratic: :math:`H = \frac2n
// \begin{pmatrix} \sum x_i^2 & \sum x_i \\ \sum x_i & n \end{pmatrix}`. Its eigenvalues
// :math:`\lambda_{\max} \ge \lambda_{\min} > 0` are the curvatures along the bowl's two
// axes.
//
// Gradient descent steps :math:`\theta \leftarrow \theta - \eta \nabla L(\theta)`.
// Around the minimum :math:`\theta^*` the gradient is exactly
// :math:`H (\theta - \theta^*)`, so the error :math:`e = \theta - \theta^*` becomes
// :math:`(I - \eta H) e`: along each axis it is multiplied by :math:`1 - \eta \lambda`
// every step. It shrinks along both axes if and only if :math:`|1 - \eta \lambda| < 1`
// for both, that is if and only if :math:`\eta < 2 / \lambda_{\max}`.

struct Curvature {
  double lambda_max = 0, lambda_min = 0;
};

Curvature curvature(const Data& d) {
  const double n = static_cast<double>(d.x.numel());
  const double a = 2 * sum(d.x * d.x).item() / n, c = 2 * sum(d.x).item() / n, e = 2.0;
  const double mid = (a + e) / 2, radius = std::sqrt((a - e) * (a - e) / 4 + c * c);
  return {mid + radius, mid - radius};  // the eigenvalues of [[a, c], [c, e]]
}

// Gradient descent on L from (0, 0) with litgrad's autograd: `steps` steps of rate lr.
// Returns the parameters after every step.
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

// %%
// That the error *is* this bowl can be checked directly. Around the best line
// :math:`\theta^*` the first derivatives vanish and the third are zero, so for any step
// :math:`\delta` the error rises by exactly :math:`\tfrac12 \delta^T H \delta`. Each
// :math:`L` is a mean of 200 squares of size about 0.1, rounded to a few :math:`u`
// each, so the two sides agree to about :math:`10^{-15}`; we check :math:`10^{-13}`,
// for twenty random steps of size up to 0.3.

// The Hessian (2/n) [[Σx², Σx], [Σx, n]] applied to (dw, db), and the quadratic form.
Line hessian_times(const Data& d, const Line& v) {
  const double n = static_cast<double>(d.x.numel());
  const double sx = sum(d.x).item(), sxx = sum(d.x * d.x).item();
  return {2 * (sxx * v.w + sx * v.b) / n, 2 * (sx * v.w + n * v.b) / n};
}

TEST_CASE("around the best line the error rises by exactly half of d^T H d, to 1e-13") {
  const Data d = line_data(1);
  const Line best = normal_equations(d);
  Generator gen(11);
  double worst = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const Line step{0.3 * (2 * gen.uniform() - 1), 0.3 * (2 * gen.uniform() - 1)};
    const Line h = hessian_times(d, step);
    const double rise =
        loss(d, best.w + step.w, best.b + step.b) - loss(d, best.w, best.b);
    worst = std::max(worst, std::fabs(rise - 0.5 * (step.w * h.w + step.b * h.b)));
  }
  const double tolerance = 1e-13;
  book::measured(
      "largest gap", worst,
      "the worst of 20 steps' gap between the measured rise and half of d^T H d",
      book::at_most(tolerance));
  CHECK(worst <= tolerance);
}

// %%
// And the gradient litgrad's autograd computes is the bowl's,
// :math:`H (\theta - \theta^*)`, to the same rounding.

TEST_CASE("the gradient litgrad computes is H (θ - θ*), to 1e-13") {
  const Data d = line_data(1);
  const Line best = normal_equations(d);
  Generator gen(12);
  double worst = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const Line at{3 * (2 * gen.uniform() - 1), 3 * (2 * gen.uniform() - 1)};
    Tensor w = scalar_tensor(at.w).requires_grad_(),
           b = scalar_tensor(at.b).requires_grad_();
    mse_loss(d.x * w + b, d.y).backward();
    const Line h = hessian_times(d, {at.w - best.w, at.b - best.b});
    worst = std::max(
        {worst, std::fabs(w.grad().item() - h.w), std::fabs(b.grad().item() - h.b)});
  }
  const double tolerance = 1e-13;
  book::measured(
      "largest gap", worst,
      "the worst gap between autograd's gradient and H (θ - θ*), over 20 points",
      book::at_most(tolerance));
  CHECK(worst <= tolerance);
}

// %%
// So the threshold :math:`2 / \lambda_{\max}` is sharp. Just below it, at
// :math:`0.98 \cdot 2/\lambda_{\max}`, the error shrinks every step by at most
// :math:`\max(|1 - 0.98 \cdot 2|, 1 - \eta \lambda_{\min}) < 1`; just above, at
// :math:`1.02 \cdot 2 / \lambda_{\max}`, the error along the steep axis is multiplied
// by :math:`|1 - 2.04| = 1.04` each step and grows without bound. Over 500 steps that
// is a factor :math:`1.04^{500} \approx 3 \cdot 10^8`.
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
// The test computes :math:`\lambda_{\max}` from the data and runs both.

TEST_CASE(
    "gradient descent converges just below the rate 2/λ_max and diverges just above "
    "it") {
  const Data d = line_data(1);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d);
  const auto below = descend(d, 0.98 * 2 / k.lambda_max, 500);
  const auto above = descend(d, 1.02 * 2 / k.lambda_max, 500);
  const double start = distance(below.front(), best);
  const double end_below = distance(below.back(), best),
               end_above = distance(above.back(), best);
  book::measured("λ_max", k.lambda_max, "the bowl's steepest curvature");
  book::measured("distance after 500 steps below", end_below / start,
                 "the final distance from the best line, as a fraction of the start",
                 book::below(1e-6));
  book::measured("distance after 500 steps above", end_above / start,
                 "the same just above the threshold", book::above(1e6));
  CHECK(end_below / start < 1e-6);
  CHECK(end_above / start > 1e6);
  draw_threshold(d, below, above);
}

// %%
// The same arithmetic says how fast. With :math:`\eta = 1 / \lambda_{\max}` the steep
// axis's factor :math:`1 - \eta \lambda_{\max}` is exactly 0: after one step the error
// lies along the gentle axis only, and from then on it shrinks by exactly :math:`1 -
// \lambda_{\min} / \lambda_{\max}` per step. Measured as the ratio of successive
// distances to :math:`\theta^*` over steps 5 to 30 (where the distance is still far
// above rounding, which re-adds about :math:`u |\theta|` per step), it must equal that
// factor to within :math:`10^{-6}`.

TEST_CASE(
    "with rate 1/λ_max the distance to the best line shrinks by exactly "
    "1 - λ_min/λ_max per step, to 1e-6") {
  const Data d = line_data(1);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d);
  const auto path = descend(d, 1 / k.lambda_max, 30);
  const double predicted = 1 - k.lambda_min / k.lambda_max;
  double worst = 0;
  for (int t = 5; t < 30; ++t)
    worst = std::max(
        worst,
        std::fabs(distance(path[t + 1], best) / distance(path[t], best) - predicted));
  book::measured("predicted factor", predicted, "1 - λ_min/λ_max");
  book::measured("largest gap from it", worst,
                 "the worst step's shrink factor, measured, minus the predicted one",
                 book::below(1e-6));
  CHECK(worst < 1e-6);
}

// %%
// The first of those steps is worth a look of its own: with
// :math:`\eta = 1 / \lambda_{\max}` the error's component along the steep axis is
// multiplied by exactly 0, so a single step lands on the valley floor, where what is
// left of the error lies along the gentle axis. To rounding: the steep component is
// then below :math:`10^{-12}` of the error.

// The unit eigenvector of H for its larger eigenvalue.
Line steep_axis(const Data& d) {
  const Curvature k = curvature(d);
  const Line h = hessian_times(d, {1, 0});  // the first column of H: (a, c)
  const Line v{h.b, k.lambda_max - h.w};    // (c, λ - a) solves (H - λ I) v = 0
  const double norm = std::hypot(v.w, v.b);
  return {v.w / norm, v.b / norm};
}

TEST_CASE(
    "with rate 1/λ_max one step lands on the valley floor: the error along the steep "
    "axis is below 1e-12 of the error") {
  const Data d = line_data(1, 10);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d), v = steep_axis(d);
  const Line after = descend(d, 1 / k.lambda_max, 1).back();
  const Line e{after.w - best.w, after.b - best.b};
  const double along = std::fabs(e.w * v.w + e.b * v.b) / std::hypot(e.w, e.b);
  book::measured(
      "steep share of the error", along,
      "after one step, the error's component along the steep axis over its length",
      book::below(1e-12));
  CHECK(along < 1e-12);
}

// %%
// :math:`1/\lambda_{\max}` is not the fastest rate. The factor along each axis is
// :math:`|1 - \eta \lambda|`; the largest of the two is smallest when they are equal,
// :math:`1 - \eta \lambda_{\min} = \eta \lambda_{\max} - 1`, at :math:`\eta = 2 /
// (\lambda_{\max} + \lambda_{\min})`, where both are :math:`(\kappa - 1)/(\kappa + 1)`.
// Both axes then shrink by that factor every step, so the distance does too, from the
// first step on, to rounding: within :math:`10^{-9}`. For large :math:`\kappa` that is
// about :math:`1 - 2/\kappa`, twice the progress of :math:`1 - 1/\kappa`.

TEST_CASE(
    "the best rate 2/(λ_max + λ_min) shrinks the distance by (κ - 1)/(κ + 1) every "
    "step") {
  const Data d = line_data(1, 10);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d);
  const double kappa = k.lambda_max / k.lambda_min;
  const auto path = descend(d, 2 / (k.lambda_max + k.lambda_min), 20);
  const double predicted = (kappa - 1) / (kappa + 1);
  double worst = 0;
  for (int t = 0; t < 20; ++t)
    worst = std::max(
        worst,
        std::fabs(distance(path[t + 1], best) / distance(path[t], best) - predicted));
  book::measured("predicted factor", predicted,
                 "(κ - 1)/(κ + 1) for the data scaled by 10");
  book::measured("largest gap from it", worst,
                 "the worst step's measured shrink factor minus the predicted one",
                 book::below(1e-9));
  CHECK(worst < 1e-9);
  CHECK(predicted < 1 - 1 / kappa);
}

// %%
// Descent finds the closed form's line: stepping until the distance is below
// :math:`10^{-12}` of the start, the two agree to :math:`10^{-10}` in :math:`w` and
// :math:`b` (the rounding of the closed form, a few :math:`u` times the sums'
// condition, is far smaller).

TEST_CASE("gradient descent reaches the closed form's line to 1e-10") {
  const Data d = line_data(1);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d);
  const double factor = 1 - k.lambda_min / k.lambda_max;
  const int steps = static_cast<int>(std::ceil(std::log(1e-12) / std::log(factor))) + 1;
  const Line found = descend(d, 1 / k.lambda_max, steps).back();
  const double gap = std::max(std::fabs(found.w - best.w), std::fabs(found.b - best.b));
  book::measured("steps", steps,
                 "the steps the predicted factor says are needed for 1e-12");
  book::measured("largest gap", gap, "the larger of |w - w*| and |b - b*| at the end",
                 book::below(1e-10));
  CHECK(gap < 1e-10);
}

// %% 3 · A stretched bowl
//
// Multiply every :math:`x` by a scale :math:`s`. The best line is the same line in
// other units, but the bowl changes shape: the curvature along :math:`w`, about
// :math:`2 s^2 \cdot \frac13` for :math:`x` uniform in :math:`[-s, s]`, grows like
// :math:`s^2`, while the curvature along :math:`b` stays 2. Once the first dominates
// (from :math:`s = 10` on here) the *condition number* :math:`\kappa = \lambda_{\max} /
// \lambda_{\min}` grows like :math:`s^2`. The rate must stay below
// :math:`2/\lambda_{\max}`, so along the gentle axis progress per step is only about
// :math:`1/\kappa`, and the number of steps to shrink the error by a factor
// :math:`\varepsilon` is about :math:`\kappa \ln(1/\varepsilon)`: ten times the
// condition number, ten times the steps. With rate :math:`1/\lambda_{\max}` the count
// is exactly :math:`\lceil \ln(e_1 / (\varepsilon e_0)) / -\ln(1 - 1/\kappa) \rceil +
// 1`, with :math:`e_0` and :math:`e_1` the distances before and after the first step,
// which we check to within one step.
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
    "one step") {
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
    while (distance(path[t], best) > target) ++t;
    out() << "scale " << s << ": κ = " << kappa << ", " << t << " steps (predicted "
          << expected << ")\n";
    kappas.push_back(kappa), counted.push_back(t), predicted.push_back(expected);
    worst = std::max(worst, std::abs(t - expected));
    if (s == 10.0)
      draw_stretched(d, std::vector<Line>(path.begin(), path.begin() + 60), best);
  }
  book::measured("largest miss", worst,
                 "the most steps by which a count missed its prediction",
                 book::at_most(1));
  CHECK(worst <= 1);
  CHECK(counted.back() > 100 * counted.front());  // κ grew about 1000-fold
  draw_steps(kappas, counted, predicted);
}

// %% 4 · Mini-batches and the noise floor
//
// Real training estimates the gradient from a few points at a time: a *mini-batch*. The
// estimate is right on average but noisy, and at the minimum, where the true gradient
// is zero, the noise still pushes. The parameters then wander around :math:`\theta^*`
// instead of settling, and the loss stays above its least value by a *floor*. For small
// rates the theory of this random walk (the steady state of :math:`e \leftarrow (I -
// \eta H) e + \eta\,\text{noise}`) gives a floor proportional to :math:`\eta`: halve
// the rate and the floor halves, while the walk to the minimum takes twice as long.
//
// The mini-batch gradient is right on average: averaged over many random batches it is
// the full gradient. The test averages 20,000 batch gradients at a point away from the
// minimum and holds each component within four standard errors (the spread of the batch
// gradients over :math:`\sqrt{20000}`) of the full gradient: a chance miss of four
// standard errors happens less than once in 10,000 tries.

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
  book::measured(
      "standard errors off", z,
      "the larger component's distance from the full gradient, in standard errors",
      book::below(4));
  CHECK(z < 4);
}

// %%
// We run mini-batch SGD with batches of 8 from the best line itself, so that only the
// floor is measured, at rates 0.025, 0.05, 0.1 and 0.2, and average the excess loss
// over 4,000 steps. The proportionality holds better the smaller the rate (the next
// term is of relative size :math:`\eta \lambda_{\max} / 2`, at most 0.2 here), and the
// average of a random walk is itself noisy, so we claim: over three seeds, each
// doubling of the rate raises the floor by a factor between 1.5 and 3.
//
// .. figure:: noise_floor
//
//    The excess loss of mini-batch SGD, averaged over 4,000 steps, against the learning
//    rate, both axes logarithmic: a line of slope about 1.

// Mini-batch SGD from the best line: the excess loss L - L*, averaged over the steps.
double noise_floor(const Data& d, double lr, std::uint64_t seed, int steps) {
  const Line best = normal_equations(d);
  const double least = loss(d, best.w, best.b);
  Tensor w = scalar_tensor(best.w).requires_grad_(),
         b = scalar_tensor(best.b).requires_grad_();
  optim::SGD opt({w, b}, {lr});
  Generator pick(seed);
  double total = 0;
  for (int t = 0; t < steps; ++t) {
    const Tensor batch = randint(0, kPoints, {8}, pick);
    opt.zero_grad();
    mse_loss(index_select(d.x, 0, batch) * w + b, index_select(d.y, 0, batch))
        .backward();
    opt.step();
    total += loss(d, w.item(), b.item()) - least;
  }
  return total / steps;
}

constexpr std::uint64_t kSeeds[] = {1, 2, 3};

// %% fold: drawing the floor against the rate
void draw_floor(const std::vector<double>& rates, const std::vector<double>& floors) {
  book::figure("noise_floor",
               book::line_plot("learning rate", "mean excess loss L - L*",
                               {book::series("mini-batches of 8", rates, floors)}, true)
                   .set("log_x", book::Json::boolean(true)));
}

// %%
// The test measures all four rates for each seed.

TEST_CASE(
    "mini-batch SGD stops at a noise floor that grows with the learning rate: each "
    "doubling raises it by a factor between 1.5 and 3") {
  const Data d = line_data(1);
  const std::vector<double> rates = {0.025, 0.05, 0.1, 0.2};
  double lowest = INFINITY, highest = 0;
  std::vector<double> shown;
  for (auto seed : kSeeds) {
    std::vector<double> floors;
    for (double lr : rates) floors.push_back(noise_floor(d, lr, seed, 4000));
    for (std::size_t i = 0; i + 1 < floors.size(); ++i) {
      lowest = std::min(lowest, floors[i + 1] / floors[i]);
      highest = std::max(highest, floors[i + 1] / floors[i]);
    }
    out() << "seed " << seed << ": floors";
    for (double f : floors) out() << " " << f;
    out() << "\n";
    if (seed == kSeeds[0]) shown = floors;
  }
  book::measured("smallest factor", lowest,
                 "the least a doubling of the rate raised the floor", book::above(1.5));
  book::measured("largest factor", highest, "the most a doubling raised it",
                 book::below(3.0));
  CHECK(lowest > 1.5);
  CHECK(highest < 3.0);
  draw_floor(rates, shown);
}

// %% fold: the end of the file's namespace
}  // namespace
