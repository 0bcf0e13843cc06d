// Chapter 3 · Fitting a line
// ==========================
//
// The simplest model there is: a line, :math:`\hat y = w x + b`, fitted to noisy points
// by making the mean squared error small. Its two numbers together are its
// *parameters*, :math:`\theta = (w, b)`. It is worth a chapter because everything that
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
// sum. Each residual takes two roundings, at most :math:`2u` times
// :math:`s_i = |w x_i| + |b| + |y_i|`, and adding :math:`n` of them rounds by at most
// :math:`(n - 1) u` times the sum of their sizes (chapter 1), so each computed sum is
// within :math:`(n + 1) u \sum s_i` of the exact residual sum at the computed
// :math:`(w, b)`, which is itself not exactly the solution: we allow as much again for
// that, and check :math:`|\sum r_i| \le 2 (n + 1) u \sum s_i` and the same with each
// term multiplied by :math:`|x_i|`.

TEST_CASE(
    "at the normal equations' solution the residuals are orthogonal to 1 and to x, to "
    "within their rounding bound") {
  const Data d = line_data(1);
  const Line best = normal_equations(d);
  out() << "best line: w = " << best.w << ", b = " << best.b << "\n";
  const Tensor r = d.x * best.w + best.b - d.y;
  const Tensor size = abs(d.x * best.w) + std::fabs(best.b) + abs(d.y);  // s_i
  const double n = static_cast<double>(kPoints), u = std::ldexp(1.0, -53);
  const double worst = std::max(
      std::fabs(sum(r).item()) / (2 * (n + 1) * u * sum(size).item()),
      std::fabs(sum(r * d.x).item()) / (2 * (n + 1) * u * sum(size * abs(d.x)).item()));
  book::measured("largest residual sum / bound", worst,
                 "the larger of |sum r| and |sum r x| over its rounding bound",
                 book::at_most(1.0));
  CHECK(worst <= 1.0);
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
// for both, that is if and only if :math:`0 < \eta < 2 / \lambda_{\max}`. (An
// *eigenvalue* :math:`\lambda` of :math:`H` is a number for which some direction
// :math:`v`, its *eigenvector*, satisfies :math:`H v = \lambda v`: along :math:`v`,
// :math:`H` only stretches. A symmetric :math:`2 \times 2` matrix has two such
// directions, at right angles: the bowl's axes.)

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
// :math:`L` is a mean of 200 squares, off by at most :math:`(n + 1) u L` (chapter 1's
// bound for a sum, plus the squares' own roundings); here :math:`L` is below 0.5 for
// steps of size up to 0.3, so each is within :math:`2 \cdot 10^{-14}` and the rise
// within :math:`4 \cdot 10^{-14}`, and the quadratic form adds a few :math:`u`. We
// check :math:`10^{-13}`, for twenty random steps.

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
// :math:`H (\theta - \theta^*)`, to rounding. Autograd adds :math:`n` terms
// :math:`2 r_i x_i / n` (for :math:`w`) and :math:`2 r_i / n` (for :math:`b`); at
// points :math:`\theta` up to 3 from the origin the residuals reach about 10, so the
// terms are below 0.2 and the sums are within :math:`(n + 1) u \cdot 200 \cdot 0.2
// \approx 10^{-12}`; the other side, four products and two sums, is far more accurate.
// We check :math:`10^{-12}` at twenty random points.

TEST_CASE("the gradient litgrad computes is H (θ - θ*), to 1e-12") {
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
  const double tolerance = 1e-12;
  book::measured(
      "largest gap", worst,
      "the worst gap between autograd's gradient and H (θ - θ*), over 20 points",
      book::at_most(tolerance));
  CHECK(worst <= tolerance);
}

// %%
// So the threshold :math:`2 / \lambda_{\max}` is sharp. Just below it, at :math:`\eta =
// 0.98 \cdot 2/\lambda_{\max}`, the steep axis's factor is :math:`|1 - 1.96| = 0.96`
// and the gentle axis's :math:`|1 - \eta \lambda_{\min}|`, so after 500 steps the
// distance from the best line is at most the larger of the two to the power 500 times
// where it started: :math:`0.96^{500} \approx 1.4 \cdot 10^{-9}` unless the gentle
// factor is larger. Just above, at :math:`1.02 \cdot 2 / \lambda_{\max}`, the error's
// component along the steep axis is multiplied by :math:`|1 - 2.04| = 1.04` every step
// and grows without bound: after 500 steps by :math:`1.04^{500} \approx 3 \cdot 10^8`,
// so the distance is at least that times the steep component's share of the starting
// error. (Both hold to rounding, a relative :math:`10^{-12}` or so after 500 steps; we
// allow 1%.)
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
// The test computes :math:`\lambda_{\max}`, the steep axis and both bounds from the
// data, and runs both rates. The steep axis is the eigenvector for
// :math:`\lambda_{\max}`; for :math:`H = \begin{pmatrix} a & c \\ c & e \end{pmatrix}`
// the second row of :math:`(H - \lambda I) v = 0` gives :math:`v = (\lambda - e, c)`.

// The unit eigenvector of H for its larger eigenvalue.
Line steep_axis(const Data& d) {
  const Curvature k = curvature(d);
  const Line first = hessian_times(d, {1, 0});     // H's first column, (a, c)
  const Line second = hessian_times(d, {0, 1});    // and its second, (c, e)
  const Line v{k.lambda_max - second.b, first.b};  // (λ - e, c)
  const double norm = std::hypot(v.w, v.b);
  return {v.w / norm, v.b / norm};
}

TEST_CASE(
    "gradient descent converges just below the rate 2/λ_max and diverges just above "
    "it, each as fast as the axes' factors say") {
  const Data d = line_data(1);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d), v = steep_axis(d);
  const double low = 0.98 * 2 / k.lambda_max, high = 1.02 * 2 / k.lambda_max;
  const auto below = descend(d, low, 500);
  const auto above = descend(d, high, 500);
  const Line e0{below.front().w - best.w, below.front().b - best.b};
  const double start = distance(below.front(), best);
  const double share = std::fabs(e0.w * v.w + e0.b * v.b) / start;
  const double slowest =
      std::max(std::fabs(1 - low * k.lambda_max), std::fabs(1 - low * k.lambda_min));
  const double shrunk = std::pow(slowest, 500);
  const double grown = std::pow(std::fabs(1 - high * k.lambda_max), 500) * share;
  const double end_below = distance(below.back(), best) / start,
               end_above = distance(above.back(), best) / start;
  book::measured("λ_max", k.lambda_max, "the bowl's steepest curvature");
  book::measured("distance after 500 steps below", end_below,
                 "the final distance from the best line, as a fraction of the start",
                 book::at_most(1.01 * shrunk));
  book::measured("distance after 500 steps above", end_above,
                 "the same just above the threshold", book::at_least(0.99 * grown));
  CHECK(end_below <= 1.01 * shrunk);
  CHECK(end_above >= 0.99 * grown);
  draw_threshold(d, below, above);
}

// %%
// The same arithmetic says how fast. With :math:`\eta = 1 / \lambda_{\max}` the steep
// axis's factor :math:`1 - \eta \lambda_{\max}` is exactly 0: after one step the error
// lies along the gentle axis only, and from then on it shrinks by exactly :math:`1 -
// \lambda_{\min} / \lambda_{\max}` per step. Measured as the ratio of successive
// distances to :math:`\theta^*` over steps 1 to 30, it must equal that factor to
// rounding: each distance carries the rounding of the parameters, about
// :math:`u |\theta|` with :math:`|\theta| \approx 2`, and at step 30 the distance is
// still above :math:`10^{-5}`, so each ratio is off by at most about :math:`10^{-11}`.
// We check :math:`10^{-10}`.

TEST_CASE(
    "with rate 1/λ_max the distance to the best line shrinks by exactly "
    "1 - λ_min/λ_max per step, to 1e-10") {
  const Data d = line_data(1);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d);
  const auto path = descend(d, 1 / k.lambda_max, 30);
  const double predicted = 1 - k.lambda_min / k.lambda_max;
  double worst = 0;
  for (int t = 1; t < 30; ++t)
    worst = std::max(
        worst,
        std::fabs(distance(path[t + 1], best) / distance(path[t], best) - predicted));
  book::measured("predicted factor", predicted, "1 - λ_min/λ_max");
  book::measured("largest gap from it", worst,
                 "the worst step's shrink factor, measured, minus the predicted one",
                 book::below(1e-10));
  CHECK(worst < 1e-10);
}

// %%
// The first of those steps is worth a look of its own: with
// :math:`\eta = 1 / \lambda_{\max}` the error's component along the steep axis is
// multiplied by exactly 0, so a single step lands on the valley floor, where what is
// left of the error lies along the gentle axis. The effect is clearest where the two
// curvatures differ most, so this test and the next use the inputs scaled by 10, as
// section 3 will explain. To rounding: what is left along the steep axis is the
// rounding of the step, a few :math:`u |\theta|` against an error of about :math:`0.4`,
// so about :math:`10^{-15}` of the error; we check :math:`10^{-13}`.

TEST_CASE(
    "with rate 1/λ_max one step lands on the valley floor: the error along the steep "
    "axis is below 1e-13 of the error") {
  const Data d = line_data(1, 10);
  const Curvature k = curvature(d);
  const Line best = normal_equations(d), v = steep_axis(d);
  const Line after = descend(d, 1 / k.lambda_max, 1).back();
  const Line e{after.w - best.w, after.b - best.b};
  const double along = std::fabs(e.w * v.w + e.b * v.b) / std::hypot(e.w, e.b);
  book::measured(
      "steep share of the error", along,
      "after one step, the error's component along the steep axis over its length",
      book::below(1e-13));
  CHECK(along < 1e-13);
}

// %%
// :math:`1/\lambda_{\max}` is not the fastest rate. The factor along each axis is
// :math:`|1 - \eta \lambda|`; the largest of the two is smallest when they are equal,
// :math:`1 - \eta \lambda_{\min} = \eta \lambda_{\max} - 1`, at :math:`\eta = 2 /
// (\lambda_{\max} + \lambda_{\min})`, where both are :math:`(\kappa - 1)/(\kappa + 1)`.
// Both axes then shrink by that factor every step, so the distance does too, from the
// first step on. To rounding, as above: after 20 steps the distance is still about
// :math:`0.3` of where it started, so each ratio is within about :math:`10^{-15}`; we
// check :math:`10^{-13}`. For large :math:`\kappa` the factor is about
// :math:`1 - 2/\kappa`, twice the progress of :math:`1 - 1/\kappa`.

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
                 book::below(1e-13));
  CHECK(worst < 1e-13);
  CHECK(predicted < 1 - 1 / kappa);
}

// %%
// Descent finds the closed form's line: stepping until the distance is below
// :math:`10^{-12}` of the start, about :math:`2 \cdot 10^{-12}`, the two agree to that
// plus rounding in :math:`w` and :math:`b` (the closed form's rounding, a few :math:`u`
// times the sums' condition, is far smaller); we check :math:`10^{-11}`.

TEST_CASE("gradient descent reaches the closed form's line to 1e-11") {
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
                 book::below(1e-11));
  CHECK(gap < 1e-11);
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
// :math:`\rho` is about :math:`\kappa \ln(1/\rho)`: ten times the condition number, ten
// times the steps. With rate :math:`1/\lambda_{\max}` the count is exactly
// :math:`\lceil \ln(e_1 / (\rho e_0)) / -\ln(1 - 1/\kappa) \rceil + 1`, with
// :math:`e_0` and :math:`e_1` the distances before and after the first step, except
// that when the distance lands within rounding of the target the count can go either
// way; we allow one step for that. The test also checks that :math:`\kappa` grows like
// :math:`s^2` from :math:`s = 10` on: :math:`\kappa(s) / \kappa(10)` within 5% of
// :math:`(s/10)^2` (the curvature along :math:`b` still adds a little).
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
  book::measured("largest miss", worst,
                 "the most steps by which a count missed its prediction",
                 book::at_most(1));
  CHECK(worst <= 1);
  for (std::size_t i = 2; i < kappas.size(); ++i) {  // κ(30), κ(100) against κ(10)
    const double s = i == 2 ? 3.0 : 10.0;
    CHECK(std::fabs(kappas[i] / kappas[1] / (s * s) - 1) < 0.05);
  }
  draw_steps(kappas, counted, predicted);
}

// %% 4 · Mini-batches and the noise floor
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
  book::measured(
      "standard errors off", z,
      "the larger component's distance from the full gradient, in standard errors",
      book::below(4));
  CHECK(z < 4);
}

// %%
// How high is the floor? Along an axis of curvature :math:`\lambda` the error follows
// :math:`e \leftarrow (1 - \eta \lambda) e + \eta \xi`, with :math:`\xi` the noise of
// the gradient, of variance :math:`\sigma^2`. In the steady state the variance of
// :math:`e` is unchanged by a step, :math:`V = (1 - \eta \lambda)^2 V + \eta^2
// \sigma^2`, so :math:`V = \eta \sigma^2 / (\lambda (2 - \eta \lambda))`, and the
// excess loss :math:`\lambda V / 2 = \eta \sigma^2 / (2 (2 - \eta \lambda))` grows
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
// the steps into 20 blocks of 800, much longer than the walk's memory of about
// :math:`1 / (\eta \lambda_{\min}) \le 60` steps, and takes the standard error of the
// block means, which gives each factor's standard error. The claim: every factor lies
// within four of its standard errors of the predicted range.
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

Floor noise_floor(const Data& d, double lr, std::uint64_t seed, int steps) {
  const Line best = normal_equations(d);
  const double least = loss(d, best.w, best.b);
  Tensor w = scalar_tensor(best.w).requires_grad_(),
         b = scalar_tensor(best.b).requires_grad_();
  optim::SGD opt({w, b}, {lr});
  Generator pick(seed);
  const int blocks = 20, per_block = steps / blocks;
  std::vector<double> block_means(blocks, 0.0);
  for (int t = 0; t < steps; ++t) {
    const Tensor batch = randint(0, kPoints, {8}, pick);
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
  double worst = 0;  // the largest distance of a factor from the range, in its SEs
  std::vector<double> shown;
  for (auto seed : kSeeds) {
    std::vector<Floor> floors;
    for (double lr : rates) floors.push_back(noise_floor(d, lr, seed, 16000));
    out() << "seed " << seed << ": factors";
    for (std::size_t i = 0; i + 1 < floors.size(); ++i) {
      const Floor &a = floors[i], &b = floors[i + 1];
      const double factor = b.mean / a.mean;
      const double se = factor * std::hypot(a.se / a.mean, b.se / b.mean);
      const double outside = std::max({0.0, 2 - factor, factor - predicted_high});
      worst = std::max(worst, outside / se);
      out() << " " << factor << " (± " << se << ")";
    }
    out() << "\n";
    if (seed == kSeeds[0])
      for (const Floor& f : floors) shown.push_back(f.mean);
  }
  book::measured("predicted factors", predicted_high,
                 "the largest factor the model predicts; the smallest is 2");
  book::measured(
      "largest distance", worst,
      "the most any factor lies outside the predicted range, in its standard "
      "errors",
      book::below(4.0));
  CHECK(worst < 4.0);
  draw_floor(rates, shown);
}

// %% fold: the end of the file's namespace
}  // namespace
