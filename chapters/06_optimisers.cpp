// Chapter 6 · Optimisers
// ======================
//
// Chapter 3 found gradient descent's speed limit: on a bowl whose curvatures differ by
// a factor :math:`\kappa`, the condition number, the number of steps it needs grows in
// proportion to :math:`\kappa`. Training a network is a walk through far worse bowls
// than a line's, so the step rule matters, and so does the learning rate. This chapter
// measures the rules that training uses today and what they buy. *Momentum* remembers
// the previous steps; we solve its motion exactly, see where it swings and where it
// does not, and count steps that grow only like :math:`\sqrt\kappa`. *Adam*, the
// optimiser chapter 8 trains with, divides each coordinate's step by a running measure
// of that coordinate's gradient size; we take apart its first step, an exact invariance
// that follows from its design, and its two kinds of weight decay. Then a race of plain
// SGD, SGD with momentum and Adam on a small network; a sweep of the learning rate that
// finds the cliff where training diverges, and where chapter 3's curvature puts it; and
// the three habits of the later chapters' training: a *warm-up* at the start and a
// *schedule* that lowers the rate at the end (chapters 10 and 12), and *clipping* the
// gradient (chapter 12).

// %% about: Momentum solved exactly (no spiral on the bowl's axes, a swing between
// them, steps like √κ); Adam's per-coordinate steps, its invariance to the loss's
// scale and its two weight decays; a race of SGD, momentum and Adam; the learning
// rate's cliff; warm-up, clipping, and lowering the rate at the end.
// %% assumes: 2, 3, 4

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
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

// %% 1 · Momentum
//
// Chapter 3 (:doc:`03_fitting_a_line`) took gradient descent apart on a bowl. Along
// each of the bowl's axes the loss curves with some *curvature* :math:`\lambda`, its
// second derivative along that axis (an eigenvalue of the Hessian), and a step of rate
// :math:`\eta` multiplies the error along that axis by :math:`1 - \eta\lambda`. With
// curvatures from :math:`\lambda_{\min}` to :math:`\lambda_{\max} = \kappa
// \lambda_{\min}`, the best rate is :math:`2 / (\lambda_{\min} + \lambda_{\max})`,
// where every axis shrinks by at least :math:`(\kappa - 1)/(\kappa + 1)` per step, so
// shrinking the error by a factor :math:`\rho` takes :math:`\ln(1/\rho) /
// \ln\frac{\kappa + 1}{\kappa - 1} \approx \tfrac\kappa2 \ln(1/\rho)` steps.
//
// Gradient descent forgets: each step uses only the gradient where it stands. In a long
// narrow valley the gradient points mostly across the valley, and the steps zigzag. The
// *heavy ball* (Polyak, 1964) adds a share :math:`\beta` of the previous step,
//
// .. math::
//
//    x_{t+1} = x_t - \eta \nabla f(x_t) + \beta (x_t - x_{t-1}),
//
// so that the zigzags cancel and the motion along the valley builds up. litgrad's
// ``optim::SGD`` with ``momentum`` :math:`\beta` writes the same rule as torch does,
// with a velocity: :math:`v \leftarrow \beta v + \nabla f`, :math:`x \leftarrow x -
// \eta v`. Since :math:`\eta v_t = x_{t-1} - x_t`, the two are one rule (exercise 6.1
// checks it number by number), started at rest: the first step is plain gradient
// descent.
//
// Along an axis of curvature :math:`\lambda` the error follows
// :math:`e_{t+1} = (1 + \beta - \eta\lambda)\, e_t - \beta\, e_{t-1}`. Such a rule is
// solved by powers: :math:`e_t = z^t` works when :math:`z^2 - (1 + \beta -
// \eta\lambda) z + \beta = 0`. The two roots multiply to :math:`\beta`. When
// :math:`|1 + \beta - \eta\lambda| < 2\sqrt\beta` they are complex, both of size
// :math:`\sqrt\beta`, and the error is :math:`(\sqrt\beta)^t` times a cosine,
// :math:`\cos(\theta t + \phi)` with :math:`\cos\theta = (1 + \beta -
// \eta\lambda)/(2\sqrt\beta)`: it swings through zero and back, crossing zero every
// :math:`\pi/\theta` steps, while it shrinks. When :math:`|1 + \beta - \eta\lambda| >
// 2\sqrt\beta` the roots are real and different: no swing, though a negative root
// flips the error's sign at every step, as gradient descent does on a steep axis. On
// the boundary between, the root is double, :math:`z = \pm\sqrt\beta`, and the error
// is :math:`(a + bt) z^t`.
//
// Polyak chose :math:`\eta` and :math:`\beta` to make the largest root over all the
// curvatures, the slowest axis's factor per step, as small as it can be. Complex roots
// all have size :math:`\sqrt\beta`, so :math:`\beta` should be small; but if it is too
// small, an extreme axis leaves the complex region and one of its real roots is larger
// than :math:`\sqrt\beta`. The best is to put both extremes exactly on the boundary.
// For curvatures from 1 to :math:`\kappa` that gives :math:`\eta = 4 / (1 +
// \sqrt\kappa)^2` and :math:`\beta = r^2` with :math:`r = (\sqrt\kappa - 1) /
// (\sqrt\kappa + 1)`. Then :math:`1 + \beta - \eta = 2r` and :math:`1 + \beta -
// \eta\kappa = -2r`: both axes sit exactly on the boundary, with double roots
// :math:`+r` on the flat axis and :math:`-r` on the steep one, and every curvature
// strictly between has complex roots of size :math:`r`. From rest (:math:`e_0 = 1`,
// :math:`e_1 = 1 - \eta\lambda`) the two axes' errors are
//
// .. math::
//
//    e^{\text{flat}}_t = (1 + (1 - r)\,t)\, r^t, \qquad
//    e^{\text{steep}}_t = (1 + (1 + r)\,t)\, (-r)^t.
//
// The runs below give the optimisers a bowl :math:`f(x) = \tfrac12 \sum_i \lambda_i
// x_i^2`, whose minimum is at 0, so that :math:`x` is the error itself:

// The errors x[t][axis] after every step t = 0, 1, ... of the optimiser `make` builds,
// on f(x) = ½ Σ λ_i x_i² from x = (1, ..., 1), and the distance |x_t| / |x_0|; stops
// once the distance is at most `stop`.
struct Run {
  std::vector<std::vector<double>> x;
  std::vector<double> distance;
};

using Make = std::function<std::unique_ptr<optim::Optimizer>(Tensor&)>;

Run descend(const std::vector<double>& curvatures, int steps, const Make& make,
            double stop = 0) {
  const auto n = static_cast<std::int64_t>(curvatures.size());
  Tensor x = ones({n}).requires_grad_();
  const Tensor curvature = tensor(curvatures, {n});
  auto opt = make(x);
  Run run;
  for (int t = 0; t <= steps; ++t) {
    run.x.push_back(x.to_vector());
    run.distance.push_back(norm(x).item() / std::sqrt(static_cast<double>(n)));
    if (t == steps || run.distance.back() <= stop) break;
    opt->zero_grad();
    (0.5 * sum(curvature * x * x)).backward();
    opt->step();
  }
  return run;
}

// Gradient descent at its best rate, and the heavy ball with Polyak's settings, for
// curvatures from 1 to κ.
Make gradient_descent(double kappa) {
  return [kappa](Tensor& x) {
    return std::make_unique<optim::SGD>(std::vector<Tensor>{x},
                                        optim::SGDOptions{2 / (1 + kappa)});
  };
}

Make heavy_ball(double kappa) {
  return [kappa](Tensor& x) {
    const double root = std::sqrt(kappa);
    const double rate = 4 / ((1 + root) * (1 + root));
    const double beta = std::pow((root - 1) / (root + 1), 2);
    return std::make_unique<optim::SGD>(std::vector<Tensor>{x},
                                        optim::SGDOptions{rate, beta});
  };
}

double polyak_r(double kappa) {
  return (std::sqrt(kappa) - 1) / (std::sqrt(kappa) + 1);
}

const std::vector<double> kKappas = {10, 30, 100, 300, 1000};

// %%
// Neither rotates. The flat axis's error stays positive and falls at every step (one
// step multiplies it by :math:`r (1 + (1 - r)/(1 + (1 - r)t)) \le r(2 - r) < 1`). The
// steep axis's changes sign at every step, and its size first *grows*: the factor
// :math:`r (1 + (1 + r)/(1 + (1 + r)t))` exceeds 1 for :math:`t < r/(1 - r) - 1/(1 +
// r)`, the first four steps at :math:`\kappa = 100`, before :math:`r^t` wins. The test
// runs ``optim::SGD`` on the bowl :math:`f(x) = \tfrac12(x_1^2 + \kappa x_2^2)` from
// :math:`(1, 1)` for 400 steps, for :math:`\kappa` from 10 to 1000, and counts.

TEST_CASE(
    "with Polyak's settings the heavy ball swings on neither axis of the bowl: the "
    "flat "
    "axis's error never changes sign and falls at every step, the steep axis's changes "
    "sign at every step and grows for exactly the steps its double root predicts") {
  int flat_flips = 0, flat_not_falling = 0, steep_not_flipping = 0, growth_missed = 0;
  for (double kappa : kKappas) {
    const double r = polyak_r(kappa);
    const Run run = descend({1, kappa}, 400, heavy_ball(kappa));
    std::vector<int> grew;  // the steps t after which the steep error was larger
    for (int t = 0; t < 400; ++t) {
      const double f = run.x[t][0], f_next = run.x[t + 1][0];
      const double s = run.x[t][1], s_next = run.x[t + 1][1];
      flat_flips += (f_next < 0) != (f < 0);
      flat_not_falling += !(f_next < f);
      steep_not_flipping += (s_next < 0) == (s < 0);
      if (std::fabs(s_next) > std::fabs(s)) grew.push_back(t);
    }
    // (1 + (1 + r)t) r^t grows from t to t + 1 exactly for t < r/(1 - r) - 1/(1 + r).
    std::vector<int> predicted;
    for (int t = 0; t < r / (1 - r) - 1 / (1 + r); ++t) predicted.push_back(t);
    out() << "κ = " << kappa << ": the steep error grew after " << grew.size()
          << " steps (predicted " << predicted.size() << ")\n";
    growth_missed += grew != predicted;
  }
  book::check("flat axis's sign changes", flat_flips, "over 400 steps, all five κ",
              book::exactly(0));
  book::check("flat axis's steps that did not fall", flat_not_falling,
              "over 400 steps, all five κ", book::exactly(0));
  book::check("steep axis's steps without a sign change", steep_not_flipping,
              "over 400 steps, all five κ", book::exactly(0));
  book::check("κ whose growing steps differ from the prediction", growth_missed,
              "of the five", book::exactly(0));
}

// %%
// Between the two extremes the roots are complex, and there the heavy ball does swing.
// Add a third axis to the bowl, of curvature :math:`\sqrt\kappa`, between 1 and
// :math:`\kappa`. For it :math:`1 + \beta - \eta\sqrt\kappa = 2r^2`, so
// :math:`\cos\theta = r`: at :math:`\kappa = 100` the error swings through zero about
// every :math:`\pi / \arccos(9/11) \approx 5.1` steps. From :math:`e_0 = 1` and
// :math:`e_1 = 1 - \eta\sqrt\kappa` the error is :math:`r^t (\cos\theta t + b
// \sin\theta t)` with :math:`b = (e_1 / r - \cos\theta) / \sin\theta`. Plotted against
// its previous value, :math:`(e_{t-1}, e_t)` turns around the origin and shrinks: a
// spiral. The test counts its sign changes over 400 steps and holds them to that
// formula's count, exactly; the third axis does not disturb the other two, which the
// test checks still never swing.
//
// .. figure:: heavy_ball_axes
//
//    The heavy ball's error on each axis of the bowl with curvatures 1, 10 and 100,
//    Polyak's settings for κ = 100, over the first 40 steps. The flat axis (curvature
//    1) creeps down without ever crossing zero; the steep axis (100) crosses zero at
//    every step, its swings first widening for four steps, then dying away; only the
//    axis between (10) rotates, crossing zero about every five steps.

// %% fold: drawing the three axes' errors
void draw_axes(const Run& run) {
  std::vector<double> t, flat, middle, steep;
  for (int k = 0; k <= 40; ++k)
    t.push_back(k), flat.push_back(run.x[k][0]), middle.push_back(run.x[k][1]),
        steep.push_back(run.x[k][2]);
  book::figure("heavy_ball_axes",
               book::line_plot("step t", "error on the axis",
                               {book::series("curvature 1 (flat)", t, flat),
                                book::series("curvature 10 (between)", t, middle),
                                book::series("curvature 100 (steep)", t, steep)}));
}

// %%
// The test runs the three-axis bowl at :math:`\kappa = 100`.

TEST_CASE(
    "on an axis of curvature between the extremes the heavy ball's roots are complex: "
    "at curvature √κ its error changes sign exactly as often as r^t cos θt + b r^t "
    "sin θt, with cos θ = r") {
  const double kappa = 100, r = polyak_r(kappa), middle = std::sqrt(kappa);
  const Run run = descend({1, middle, kappa}, 400, heavy_ball(kappa));
  const double rate = 4 / ((1 + middle) * (1 + middle)), theta = std::acos(r);
  const double b = ((1 - rate * middle) / r - r) / std::sin(theta);
  int flips = 0, predicted = 0, extremes_flipping = 0;
  for (int t = 0; t < 400; ++t) {
    const auto swing = [&](int k) {
      return std::cos(theta * k) + b * std::sin(theta * k);
    };
    flips += (run.x[t + 1][1] < 0) != (run.x[t][1] < 0);
    predicted += (swing(t + 1) < 0) != (swing(t) < 0);
    extremes_flipping += (run.x[t + 1][0] < 0) != (run.x[t][0] < 0);
    extremes_flipping += (run.x[t + 1][2] < 0) == (run.x[t][2] < 0);
  }
  out() << "the middle axis changed sign " << flips << " times in 400 steps, every "
        << 400.0 / flips << " steps (π/θ = " << std::acos(-1.0) / theta << ")\n";
  book::measured("predicted sign changes", predicted,
                 "of the closed form, in 400 steps");
  book::check("sign changes off the prediction", std::abs(flips - predicted),
              "the middle axis's count minus the closed form's", book::exactly(0));
  book::check("swings on the outer axes", extremes_flipping,
              "flat-axis sign changes plus steep-axis steps without one",
              book::exactly(0));
  draw_axes(run);
}

// %%
// So the price of momentum on the bowl is not a spiral but a transient. Gradient
// descent at its best rate multiplies each axis's error by a factor between -1 and 1
// at every step, so its distance to the minimum never grows. The heavy ball's distance
// :math:`\sqrt{(e^{\text{flat}}_t)^2 + (e^{\text{steep}}_t)^2}` rises while the steep
// axis's :math:`(1 + (1 + r)t)` outpaces :math:`r^t`, and never again. The test
// computes from the closed forms the steps after which the distance should rise and
// compares them with the steps after which it did, over 300 steps at :math:`\kappa =
// 100`.

TEST_CASE(
    "gradient descent's distance to the minimum never grows, while the heavy ball's "
    "rises after exactly the steps its closed form predicts, the first four at κ = "
    "100, and never after") {
  const double kappa = 100, r = polyak_r(kappa);
  const Run gd = descend({1, kappa}, 300, gradient_descent(kappa));
  const Run heavy = descend({1, kappa}, 300, heavy_ball(kappa));
  const auto closed = [&](int t) {
    return std::hypot((1 + (1 - r) * t) * std::pow(r, t),
                      (1 + (1 + r) * t) * std::pow(r, t));
  };
  int gd_rises = 0, mismatches = 0;
  std::vector<int> rose;
  for (int t = 0; t < 300; ++t) {
    gd_rises += gd.distance[t + 1] > gd.distance[t];
    const bool did = heavy.distance[t + 1] > heavy.distance[t];
    if (did) rose.push_back(t);
    mismatches += did != (closed(t + 1) > closed(t));
  }
  out() << "the heavy ball's distance rose after steps";
  for (int t : rose) out() << " " << t;
  out() << "\n";
  book::check("gradient descent's rises", gd_rises,
              "steps, of 300, after which the distance was larger", book::exactly(0));
  book::check("heavy ball's rises", static_cast<double>(rose.size()),
              "steps, of 300, after which its distance was larger: the first four, "
              "t < r/(1 - r) - 1/(1 + r) = 3.95",
              book::exactly(4));
  book::check("steps off the closed form", mismatches,
              "steps where the heavy ball rose and the formula did not, or the reverse",
              book::exactly(0));
}

// %%
// How many steps, then? The distance falls below :math:`\rho` of the start at the
// first :math:`t` where the closed forms' :math:`\sqrt{((e^{\text{flat}}_t)^2 +
// (e^{\text{steep}}_t)^2) / 2}` is below :math:`\rho`, and since the steep axis
// dominates, where :math:`(1 + r)t\, r^t \approx \sqrt2 \rho`: :math:`t \approx
// \tfrac{\sqrt\kappa}2 (\ln(1/\rho) + \ln t)`, because :math:`\ln(1/r) \approx
// 2/\sqrt\kappa`. That is chapter 3's count with :math:`\kappa` replaced by
// :math:`\sqrt\kappa`, plus the slowly growing :math:`\ln t` of the transient, which
// lifts the log-log slope a little above :math:`\tfrac12`. The test counts the steps of
// both optimisers to :math:`\rho = 10^{-6}` for every :math:`\kappa` and holds each
// count within one step of its formula (one step, where the distance lands within
// rounding of :math:`\rho`): gradient descent's :math:`\lceil \ln(1/\rho) /
// \ln\frac{\kappa + 1}{\kappa - 1} \rceil` and the heavy ball's first :math:`t` from
// the closed form. At :math:`\kappa = 1000` the formulas give 6,908 and 315 steps, a
// ratio of 21.9; with one step of slack on each count the measured ratio must lie
// between :math:`6907/316` and :math:`6909/314`.
//
// .. figure:: steps_against_kappa
//
//    Steps to shrink the distance a millionfold against the condition number, both axes
//    logarithmic: gradient descent's line has slope near 1, the heavy ball's near 1/2
//    (the account prints both slopes).

// %% fold: drawing the steps against κ, and the slope of a log-log line
void draw_steps(const std::vector<double>& gd, const std::vector<double>& heavy) {
  book::figure(
      "steps_against_kappa",
      book::line_plot("condition number κ", "steps to shrink the error 1e6-fold",
                      {book::series("gradient descent", kKappas, gd),
                       book::series("heavy ball", kKappas, heavy)},
                      true)
          .set("log_x", book::Json::boolean(true))
          .set("log_x_base", 10));
}

// The least-squares slope of log y against log x.
double log_log_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    mx += std::log(x[i]) / n, my += std::log(y[i]) / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double dx = std::log(x[i]) - mx;
    sxy += dx * (std::log(y[i]) - my), sxx += dx * dx;
  }
  return sxy / sxx;
}

// %%
// The counts, and the formulas they are held to:

constexpr double kRho = 1e-6;  // shrink the distance a millionfold

int gradient_descent_formula(double kappa) {
  return static_cast<int>(
      std::ceil(std::log(1 / kRho) / std::log((kappa + 1) / (kappa - 1))));
}

int heavy_ball_formula(double kappa) {
  const double r = polyak_r(kappa);
  int t = 0;
  while (std::hypot((1 + (1 - r) * t) * std::pow(r, t),
                    (1 + (1 + r) * t) * std::pow(r, t)) /
             std::sqrt(2.0) >
         kRho)
    ++t;
  return t;
}

TEST_CASE(
    "the heavy ball's steps grow like √κ and gradient descent's like κ: every count "
    "within one step of its formula, and at κ = 1000 momentum needs 21.9 times fewer, "
    "as the formulas' 6908 and 315 say") {
  std::vector<double> gd, heavy;
  int gd_miss = 0, heavy_miss = 0;
  for (double kappa : kKappas) {
    gd.push_back(
        descend({1, kappa}, 20000, gradient_descent(kappa), kRho).distance.size() -
        1.0);
    heavy.push_back(
        descend({1, kappa}, 20000, heavy_ball(kappa), kRho).distance.size() - 1.0);
    const int gd_f = gradient_descent_formula(kappa),
              heavy_f = heavy_ball_formula(kappa);
    out() << "κ = " << kappa << ": gradient descent " << gd.back() << " steps (formula "
          << gd_f << "), heavy ball " << heavy.back() << " (formula " << heavy_f
          << ")\n";
    gd_miss = std::max(gd_miss, std::abs(static_cast<int>(gd.back()) - gd_f));
    heavy_miss =
        std::max(heavy_miss, std::abs(static_cast<int>(heavy.back()) - heavy_f));
  }
  book::check("gradient descent's largest miss", gd_miss,
              "steps between a count and its formula",
              book::at_most(1).large_margin_because(book::kWholeSteps));
  book::check("heavy ball's largest miss", heavy_miss,
              "steps between a count and its closed form",
              book::at_most(1).large_margin_because(book::kWholeSteps));
  const double gd_f = gradient_descent_formula(1000),
               heavy_f = heavy_ball_formula(1000);
  book::check("gradient descent's formula at κ = 1000", gd_f,
              "steps, as the prose says", book::exactly(6908));
  book::check("the heavy ball's formula at κ = 1000", heavy_f,
              "steps, as the prose says", book::exactly(315));
  book::check("ratio at κ = 1000", gd.back() / heavy.back(),
              "gradient descent's steps over momentum's",
              book::between((gd_f - 1) / (heavy_f + 1), (gd_f + 1) / (heavy_f - 1))
                  .large_margin_because(
                      "the band is the formulas' ratio with each count moved by the "
                      "one step a count may miss; counts that miss by none put the "
                      "ratio at its middle"));
  book::measured("gradient descent's slope", log_log_slope(kKappas, gd),
                 "of log steps against log κ");
  book::measured("heavy ball's slope", log_log_slope(kKappas, heavy),
                 "of log steps against log κ");
  draw_steps(gd, heavy);
}

// %% 2 · Adam
//
// Adam (Kingma and Ba, 2015) keeps two running averages for every parameter: of its
// gradient, :math:`m \leftarrow \beta_1 m + (1 - \beta_1) g`, and of its squared
// gradient, :math:`v \leftarrow \beta_2 v + (1 - \beta_2) g^2`, both starting at 0,
// with :math:`\beta_1 = 0.9`, :math:`\beta_2 = 0.999`. Starting at 0 biases them
// towards 0 early on, so it divides them by :math:`1 - \beta_1^t` and
// :math:`1 - \beta_2^t`, the share of the average that has been filled after :math:`t`
// steps: :math:`\hat m`, :math:`\hat v`. The step is :math:`x \leftarrow x - \eta
// \hat m / (\sqrt{\hat v} + \epsilon)`, with a small :math:`\epsilon = 10^{-8}` to
// avoid dividing by 0.
//
// On the first step the correction makes :math:`\hat m = g` and :math:`\hat v = g^2`
// exactly as mathematics goes, so every coordinate moves by
// :math:`\eta g / (|g| + \epsilon)`: by :math:`\eta`, against its gradient, whether
// that gradient is :math:`10^{-4}` or :math:`10^3`. Momentum and gradient descent
// would move them in proportion to their gradients, :math:`10^7` times apart. In
// floating point, each of the dozen operations rounds once; we check the step to
// :math:`16 u \eta`.
//
// .. figure:: optimiser_paths
//
//    The first 40 steps of gradient descent, the heavy ball (both tuned for the bowl)
//    and Adam (rate 0.1) on the bowl with κ = 30, from (1, 1), over its contours.
//    Gradient descent zigzags across the steep axis while it creeps along the flat
//    one; the heavy ball also crosses the steep axis at every step, with swings that
//    first widen and then die, while it runs along the valley much faster; Adam's
//    first steps go diagonally, the same length on both axes whatever the curvature.

// %% fold: drawing the three paths
void draw_paths() {
  const double kappa = 30;
  const Run gd = descend({1, kappa}, 40, gradient_descent(kappa));
  const Run heavy = descend({1, kappa}, 40, heavy_ball(kappa));
  const Run adam = descend({1, kappa}, 40, [](Tensor& x) {
    return std::make_unique<optim::Adam>(std::vector<Tensor>{x},
                                         optim::AdamOptions{0.1});
  });
  const auto path = [](const std::string& name, const Run& run) {
    std::vector<double> x1, x2;
    for (const auto& x : run.x) x1.push_back(x[0]), x2.push_back(x[1]);
    return book::path(name, x1, x2);
  };
  std::vector<double> axis;
  for (int i = 0; i <= 60; ++i) axis.push_back(-1.2 + 2.4 * i / 60);
  Tensor z = zeros({61, 61});
  for (int i = 0; i < 61; ++i)
    for (int j = 0; j < 61; ++j)
      z.data()[i * 61 + j] =
          0.5 * (axis[j] * axis[j] + kappa * axis[i] * axis[i]) + 1e-3;
  book::figure("optimiser_paths",
               book::plane("x1", "x2", book::field(axis, axis, z, "contour", 12, true),
                           {path("gradient descent", gd), path("heavy ball", heavy),
                            path("Adam", adam)},
                           {}, true));
}

// %%
// The test gives Adam the gradients :math:`g` of the loss :math:`g \cdot x` and takes
// one step.

TEST_CASE(
    "Adam's first step moves each coordinate by lr·g/(|g| + eps) against its gradient, "
    "to 16u·lr, for gradients from 1e-4 to 1e3") {
  const std::vector<double> gradients = {1e-4, -3e-2, 0.5, -7.0, 1e3};
  Tensor x = tensor({0, 0, 0, 0, 0}).requires_grad_();
  const Tensor g = tensor(gradients, {5});
  const double lr = 0.01, eps = 1e-8;
  optim::Adam adam({x}, {lr});
  sum(g * x).backward();  // the gradient of g·x is g
  adam.step();
  double worst = 0;
  for (std::size_t i = 0; i < gradients.size(); ++i) {
    const double gi = gradients[i], expected = -lr * gi / (std::fabs(gi) + eps);
    worst = std::max(worst, std::fabs(x.at({static_cast<std::int64_t>(i)}) - expected));
  }
  out() << "after one step: " << x << "\n";
  book::check("largest gap", worst, "between a coordinate's step and -lr·g/(|g| + eps)",
              book::at_most(16 * kU * lr));
  draw_paths();
}

// %%
// That division makes Adam blind to the loss's scale. Multiply the loss by :math:`s`
// and every gradient is multiplied by :math:`s`, :math:`m` by :math:`s`, :math:`v` by
// :math:`s^2`, :math:`\sqrt v` by :math:`s`, and the ratio is unchanged; only
// :math:`\epsilon` does not scale. With :math:`\epsilon = 0` and :math:`s` a power of
// two the invariance is exact, bit for bit: multiplying a double by a power of two
// changes only its exponent, with no rounding (short of overflow), and a product,
// quotient or square root of numbers scaled by powers of two is the unscaled result,
// rounded exactly as before, scaled. So Adam's whole trajectory is the same bits. Plain
// SGD's step is the rate times the gradient, and the gradient scales with the loss: by
// exactly :math:`s`, bit for bit, so SGD's steps are :math:`s` times larger and its
// trajectory is another one. With the default :math:`\epsilon = 10^{-8}`, Adam's
// trajectory changes too, a little.
//
// The test trains chapter 4's tanh network on XOR for 100 steps with the loss as it is
// and multiplied by :math:`2^{10}`.

// %% fold: chapter 4's tanh network, and training it on XOR with a scaled loss
// A tanh network with one hidden layer: [n, in] → [n, 1].
struct TanhNet : nn::Module {
  nn::Linear hidden, output;
  TanhNet(std::int64_t in, std::int64_t width, Generator& gen)
      : Module("TanhNet"), hidden(in, width, true, gen), output(width, 1, true, gen) {
    register_module("hidden", hidden);
    register_module("output", output);
  }
  Tensor forward(const Tensor& x) const { return output(tanh(hidden(x))); }
};

// The parameters, flattened, after `steps` steps with the loss multiplied by `scale`;
// with `gradients`, the gradients of the last step instead.
std::vector<double> on_xor(double scale, int steps, bool adam, double eps,
                           bool gradients = false) {
  const Tensor x = tensor({0, 0, 0, 1, 1, 0, 1, 1}, {4, 2});
  const Tensor y = tensor({0, 1, 1, 0}, {4, 1});
  Generator gen(1);
  TanhNet net(2, 4, gen);
  std::unique_ptr<optim::Optimizer> opt;
  if (adam)
    opt = std::make_unique<optim::Adam>(net.parameters(),
                                        optim::AdamOptions{0.01, 0.9, 0.999, eps});
  else
    opt = std::make_unique<optim::SGD>(net.parameters(), optim::SGDOptions{0.01});
  for (int t = 0; t < steps; ++t) {
    opt->zero_grad();
    (scale * mse_loss(net.forward(x), y)).backward();
    if (!gradients || t + 1 < steps) opt->step();
  }
  std::vector<double> flat;
  for (const Tensor& p : net.parameters()) {
    const Tensor& v = gradients ? p.grad() : p;
    flat.insert(flat.end(), v.data(), v.data() + v.numel());
  }
  return flat;
}

// %%
// It compares every parameter after 100 steps, and the first gradients.

TEST_CASE(
    "with eps = 0, Adam's trajectory is bit for bit the same when the loss is "
    "multiplied by 2^10, while the gradients, and so SGD's steps, are multiplied by "
    "exactly 2^10") {
  const double s = 1024;
  const auto plain = on_xor(1, 100, true, 0), scaled = on_xor(s, 100, true, 0);
  const auto with_eps = on_xor(1, 100, true, 1e-8),
             with_eps_scaled = on_xor(s, 100, true, 1e-8);
  int differing = 0, differing_eps = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    differing += plain[i] != scaled[i];
    differing_eps += with_eps[i] != with_eps_scaled[i];
  }
  const auto g = on_xor(1, 1, false, 0, true), g_scaled = on_xor(s, 1, false, 0, true);
  int off_scale = 0;
  for (std::size_t i = 0; i < g.size(); ++i) off_scale += g_scaled[i] != s * g[i];
  out() << plain.size() << " parameters\n";
  book::check("differing parameters", differing,
              "of Adam's, with eps = 0, after 100 steps", book::exactly(0));
  book::check("gradients not scaled exactly", off_scale,
              "of the 17, gradients other than 2^10 times the unscaled ones in any bit",
              book::exactly(0));
  book::check("differing with the default eps", differing_eps,
              "of Adam's parameters after 100 steps, eps = 1e-8", book::above(0));
}

// %%
// Weight decay pulls every parameter towards 0 a little at each step, a common guard
// against weights growing without need. Write its strength as :math:`d` (torch's
// ``weight_decay``). There are two ways to add it to Adam, and they are not the same.
// *Adam with an L2 term* adds :math:`d x` to the gradient, as the gradient of
// :math:`\tfrac d2 |x|^2` (litgrad's ``optim::Adam`` with ``weight_decay``, as
// torch's). But then the decay goes through Adam's division, and is rescaled with
// everything else. *AdamW* (Loshchilov and Hutter, 2019) instead shrinks the parameter
// directly, :math:`x \leftarrow (1 - \eta d) x`, and then takes Adam's step on the loss
// alone.
//
// The difference is starkest where the loss's own gradient is 0, at its minimum. Adam
// with an L2 term then sees only :math:`g = d x`, and its first step is :math:`\eta d x
// / (|d x| + \epsilon)`: about :math:`\eta` whatever :math:`d` is, so the strength of
// the decay is lost (for :math:`d = 10^{-4}` and :math:`10^{-1}` and :math:`x = 3`, the
// two steps are within :math:`\epsilon / (10^{-4} \cdot 3) \approx 3.3 \cdot 10^{-5}`
// of :math:`\eta`, relatively). AdamW multiplies the parameter by exactly its factor:
// the same bits as :math:`x (1 - \eta d)`, and the loss's zero gradient adds nothing.

TEST_CASE(
    "at the loss's minimum, Adam with an L2 term moves by about lr whatever the decay, "
    "while AdamW multiplies by exactly 1 - lr·d") {
  const double lr = 0.01, start = 3;
  std::vector<double> l2_steps;
  int not_exact = 0;
  for (double decay : {1e-4, 1e-1}) {
    Tensor a = scalar_tensor(start).requires_grad_(),
           w = scalar_tensor(start).requires_grad_();
    optim::Adam adam({a}, {lr, 0.9, 0.999, 1e-8, decay});
    optim::AdamW adamw({w}, {lr, 0.9, 0.999, 1e-8, decay});
    pow(a - start, 2.0).backward();  // the loss (x - 3)², at its minimum
    pow(w - start, 2.0).backward();
    adam.step(), adamw.step();
    l2_steps.push_back(start - a.item());
    not_exact += w.item() != start * (1 - lr * decay);
    out() << "d = " << decay << ": Adam with L2 moved " << start - a.item()
          << ", AdamW " << start - w.item() << "\n";
  }
  const double spread =
      std::max(std::fabs(l2_steps[0] / lr - 1), std::fabs(l2_steps[1] / lr - 1));
  book::check("L2 steps' distance from lr", spread,
              "the larger relative gap between an L2 step and lr, for both d",
              book::below(4e-5));
  book::check("inexact AdamW steps", not_exact,
              "of the two, results other than x (1 - lr d) in any bit",
              book::exactly(0));
}

// %% 3 · A race, and the cliff
//
// Bowls are where the theory is clean; a network's loss is not a bowl. The race: fit
// :math:`\sin 3x` at 64 points of :math:`[-1, 1]` with chapter 4's tanh network, 32
// units wide, until the mean squared error is below :math:`10^{-3}`, with plain SGD,
// SGD with torch's usual momentum 0.9, and Adam, each at its best learning rate among
// powers of two (:math:`2^{-6}` to :math:`2^0` for SGD, :math:`2^{-8}` to
// :math:`2^{-2}` for momentum and :math:`2^{-8}` to :math:`2^{-1}` for Adam). Every
// run is the same loop, on the page below: forward, loss, ``zero_grad``,
// ``backward``, ``step``. The claim: Adam at its best rate gets there in
// fewer steps than momentum at any rate of its grid, and momentum at its best in fewer
// than plain SGD at any rate of its grid, for three seeds. To check it, a rival need
// only be run for as many steps as the winner needed.
//
// .. figure:: race
//
//    The loss of SGD, SGD with momentum and Adam, each at its best rate on its grid
//    (the first seed), on a logarithmic scale, with the target 1e-3.

// %% fold: the race's data and network
const Tensor kX = linspace(-1, 1, 64).reshape({64, 1});
const Tensor kY = sin(3.0 * kX);

// How to train: the optimiser ("SGD" or "Adam"), its rate and momentum, a linear
// warm-up over `warmup` steps (none at 0), and clipping to a total norm (none at 0).
struct Setting {
  std::string optimiser = "SGD";
  double lr = 0.1, momentum = 0;
  int warmup = 0;
  double clip = 0;
};

struct Fit {
  std::vector<double> losses;   // the loss before every step
  int reached = -1;             // the step at which the loss was first below the target
  bool diverged = false;        // the loss overflowed to infinity or NaN
  double largest_gradient = 0;  // the largest total gradient norm, before any clipping
};

std::unique_ptr<optim::Optimizer> make_optimiser(const Setting& s,
                                                 std::vector<Tensor> params) {
  if (s.optimiser == "Adam")
    return std::make_unique<optim::Adam>(params, optim::AdamOptions{s.lr});
  return std::make_unique<optim::SGD>(params, optim::SGDOptions{s.lr, s.momentum});
}

// %%
// The training loop. It records the loss before every step and stops at ``steps``, at
// the target, or when the loss overflows; the warm-up and the clipping are for section
// 4.

Fit fit_sine(const Setting& s, std::uint64_t seed, int steps, double target = 0) {
  Generator gen(seed);
  TanhNet net(1, 32, gen);
  auto opt = make_optimiser(s, net.parameters());
  std::unique_ptr<optim::lr_scheduler::LambdaLR> warmup;
  if (s.warmup > 0)  // the rate rises linearly to lr over the first `warmup` steps
    warmup = std::make_unique<optim::lr_scheduler::LambdaLR>(
        *opt, [w = s.warmup](std::int64_t t) { return std::min(1.0, (t + 1.0) / w); });
  Fit f;
  for (int t = 0; t <= steps; ++t) {
    opt->zero_grad();
    const Tensor loss = mse_loss(net.forward(kX), kY);
    f.losses.push_back(loss.item());
    if (!std::isfinite(loss.item())) {
      f.diverged = true;
      break;
    }
    if (loss.item() < target) {
      f.reached = t;
      break;
    }
    if (t == steps) break;
    loss.backward();
    if (s.clip > 0)  // clip_grad_norm_ returns the norm the gradients had
      f.largest_gradient = std::max(
          f.largest_gradient, nn::utils::clip_grad_norm_(net.parameters(), s.clip));
    opt->step();
    if (warmup) warmup->step();
  }
  return f;
}

// %% fold: finding each optimiser's best rate, and drawing the race
// The fewest steps to the target over rates 2^k, k from `high` down to `low`, each run
// capped at the best count so far (`cap` at first); -1 if no rate reaches it.
Fit best_on_grid(Setting s, int low, int high, std::uint64_t seed, int cap) {
  Fit best;
  for (int k = high; k >= low; --k) {
    s.lr = std::ldexp(1.0, k);
    const Fit f = fit_sine(s, seed, best.reached >= 0 ? best.reached : cap, 1e-3);
    if (f.reached >= 0 && (best.reached < 0 || f.reached < best.reached)) best = f;
  }
  return best;
}

// How many rates 2^k, k from low to high, reach the target within `steps` steps.
int rates_reaching(Setting s, int low, int high, std::uint64_t seed, int steps) {
  int reaching = 0;
  for (int k = low; k <= high; ++k) {
    s.lr = std::ldexp(1.0, k);
    reaching += fit_sine(s, seed, steps, 1e-3).reached >= 0;
  }
  return reaching;
}

book::Json loss_curve(const std::string& name, const std::vector<double>& losses) {
  std::vector<double> t, l;
  const std::size_t every = losses.size() > 400 ? 10 : 2;
  for (std::size_t i = 0; i < losses.size(); i += every)
    t.push_back(static_cast<double>(i)), l.push_back(losses[i]);
  return book::series(name, t, l);
}

void draw_race(const Fit& sgd, const Fit& momentum, const Fit& adam) {
  const double last = static_cast<double>(sgd.losses.size() - 1);
  book::figure("race",
               book::line_plot(
                   "step", "mean squared error",
                   {book::series("target", {0, last}, {1e-3, 1e-3}).set("style", "k--"),
                    loss_curve("SGD", sgd.losses),
                    loss_curve("SGD with momentum 0.9", momentum.losses),
                    loss_curve("Adam", adam.losses)},
                   true)
                   .set("log_x", book::Json::boolean(true))
                   .set("log_x_base", 10));
}

const Setting kSGD{"SGD", 0, 0}, kMomentum{"SGD", 0, 0.9}, kAdam{"Adam", 0, 0};

// %%
// The test runs the race for each seed: Adam's best first, then momentum's grid capped
// at Adam's count and momentum's best, then SGD's grid capped at momentum's count. A
// best run that never reaches the target counts against the claim: its rivals would
// then be raced over no steps at all, and be beaten by nothing. It draws the first
// seed's best runs (SGD's until it reaches the target, for the figure only).

TEST_CASE(
    "fitting sin 3x, Adam at its best rate reaches error 1e-3 in fewer steps than SGD "
    "with momentum at any rate of its grid, and momentum in fewer than plain SGD at "
    "any "
    "rate of its, for three seeds") {
  book::check_seeds(
      "rival rates as fast",
      "momentum rates reaching the target as soon as Adam, plus "
      "SGD rates as soon as momentum, plus best runs never reaching it",
      book::exactly(0), kSeeds, [](std::uint64_t seed) {
        const Fit adam = best_on_grid(kAdam, -8, -1, seed, 5000);
        const Fit momentum = best_on_grid(kMomentum, -8, -2, seed, 5000);
        const int beaten_adam = rates_reaching(kMomentum, -8, -2, seed, adam.reached);
        const int beaten_momentum = rates_reaching(kSGD, -6, 0, seed, momentum.reached);
        out() << "seed " << seed << ": Adam " << adam.reached << " steps, momentum "
              << momentum.reached << "\n";
        if (seed == kSeeds[0]) {
          const Fit sgd = best_on_grid(kSGD, -6, 0, seed, 20000);
          out() << "  (SGD's best rate needs " << sgd.reached << " steps)\n";
          draw_race(sgd, momentum, adam);
        }
        return beaten_adam + beaten_momentum + (adam.reached < 0) +
               (momentum.reached < 0);
      });
}

// %%
// What is the best rate? Too small is slow; too large diverges. Chapter 3 found the
// edge exactly on its bowl: gradient descent is stable if and only if :math:`\eta <
// 2/\lambda_{\max}`, the largest curvature. A network's loss has curvatures too, its
// Hessian's eigenvalues, but they change as the network moves. Near its starting point
// the loss is close to a bowl with the Hessian there, whose largest eigenvalue we call
// :math:`\lambda_0`; the test finds it by *power iteration* (multiply a direction by
// the Hessian again and again; it turns towards the steepest axis, and the factor it
// grows by tends to :math:`\lambda_0`), with each product by the Hessian taken as the
// difference of two gradients a small step apart.
//
// So chapter 3 predicts what the first steps do. Below :math:`2/\lambda_0` every axis
// shrinks, and the loss falls at every step; above it the steepest axis grows by
// :math:`|1 - \eta\lambda_0| > 1` per step, and soon the loss climbs. The prediction
// holds only while the curvature stays near :math:`\lambda_0`, so we test it with a
// margin, at :math:`0.9` and :math:`1.1` times :math:`2/\lambda_0` (along the steepest
// axis, factors 0.8 and 1.2 per step), over the first 100 steps: at 0.9 the loss must
// fall at every step; at 1.1 it must rise above where it started.

// %% fold: the largest curvature at the start, by power iteration
// The parameters, or their gradients, as one vector; and setting parameters from one.
std::vector<double> flat(const std::vector<Tensor>& params, bool gradients) {
  std::vector<double> v;
  for (const Tensor& p : params) {
    const Tensor& t = gradients ? p.grad() : p;
    v.insert(v.end(), t.data(), t.data() + t.numel());
  }
  return v;
}

void set_flat(std::vector<Tensor> params, const std::vector<double>& v) {
  std::size_t k = 0;
  for (Tensor& p : params)
    for (std::int64_t i = 0; i < p.numel(); ++i) p.data()[i] = v[k++];
}

// λ0: the largest eigenvalue of the loss's Hessian at the network's start, by 50 steps
// of power iteration; H v is taken as (∇L(θ + hv) - ∇L(θ - hv)) / 2h with h = 1e-5,
// whose error, about h²|∇³L| plus u|∇L|/h, is far below a percent.
double sharpest_curvature(std::uint64_t seed) {
  Generator gen(seed);
  TanhNet net(1, 32, gen);
  auto params = net.parameters();
  const std::vector<double> theta = flat(params, false);
  const auto gradient = [&](const std::vector<double>& at) {
    set_flat(params, at);
    for (Tensor& p : params) p.zero_grad();
    mse_loss(net.forward(kX), kY).backward();
    return flat(params, true);
  };
  std::vector<double> v(theta.size(), 1.0);
  double lambda = 0;
  for (int i = 0; i < 50; ++i) {
    double length = 0;
    for (double a : v) length += a * a;
    for (double& a : v) a /= std::sqrt(length);
    const double h = 1e-5;
    std::vector<double> plus = theta, minus = theta;
    for (std::size_t k = 0; k < v.size(); ++k)
      plus[k] += h * v[k], minus[k] -= h * v[k];
    const auto g_plus = gradient(plus), g_minus = gradient(minus);
    lambda = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
      const double hv = (g_plus[k] - g_minus[k]) / (2 * h);
      lambda += hv * v[k], v[k] = hv;
    }
  }
  return lambda;
}

// %%
// The test measures :math:`\lambda_0` for each seed and runs plain SGD at the two
// rates.

TEST_CASE(
    "chapter 3's threshold holds at a network's start: at 0.9 × 2/λ0, with λ0 the "
    "largest curvature there, the loss falls at each of the first 100 steps, and at "
    "1.1 × 2/λ0 it climbs above where it started, for three seeds") {
  book::check_seeds("rises at 0.9 × 2/λ0", "steps, of 100, after which the loss rose",
                    book::exactly(0), kSeeds, [](std::uint64_t seed) {
                      const double lambda0 = sharpest_curvature(seed);
                      out() << "seed " << seed << ": λ0 = " << lambda0 << "\n";
                      const Fit f = fit_sine({"SGD", 0.9 * 2 / lambda0}, seed, 100);
                      int rises = 0;
                      for (std::size_t t = 1; t < f.losses.size(); ++t)
                        rises += f.losses[t] >= f.losses[t - 1];
                      return rises;
                    });
  book::check_seeds("highest loss at 1.1 × 2/λ0",
                    "the largest loss of the first 100 steps over the starting loss",
                    book::above(1), kSeeds, [](std::uint64_t seed) {
                      const double lambda0 = sharpest_curvature(seed);
                      const Fit f = fit_sine({"SGD", 1.1 * 2 / lambda0}, seed, 100);
                      return *std::max_element(f.losses.begin() + 1, f.losses.end()) /
                             f.losses[0];
                    });
}

// %%
// Past :math:`2/\lambda_0` the start is unstable, and yet training need not fail. The
// loss climbs, the network is thrown away from its start, and if it lands where the
// curvature is below :math:`2/\eta` it settles and trains: the *catapult* of Lewkowycz
// et al. (2020), who found that for wide networks trained on the squared error this
// works up to about :math:`4/\lambda_0`, and that beyond it the loss runs away. So the
// *cliff*, the largest rate that still trains, should lie between :math:`2/\lambda_0`
// and :math:`4/\lambda_0`. The sweep runs plain SGD for 500 steps at rates
// :math:`2^{k/4}` from :math:`2^{-6}` to 2 and claims, for three seeds, that every
// rate up to :math:`2/\lambda_0` trains (its loss after 500 steps is below its start)
// and every rate above :math:`4/\lambda_0` overflows.
//
// .. figure:: lr_sweep
//
//    The loss after 500 steps of plain SGD against the learning rate (the first seed),
//    both axes logarithmic, with 2/λ0 and 4/λ0 dashed. Small rates are slow; past the
//    cliff the loss overflows and has no point. Clipped to
//    norm 1 (section 4), no rate overflows.

// %% fold: the sweep, and drawing it
struct Sweep {
  std::vector<double> rates, losses;  // the loss after 500 steps, or inf
};

Sweep sweep(std::uint64_t seed, double clip) {
  Sweep s;
  for (int k = -24; k <= 4; ++k) {
    const double lr = std::pow(2.0, k / 4.0);
    const Fit f = fit_sine({"SGD", lr, 0, 0, clip}, seed, 500);
    s.rates.push_back(lr);
    s.losses.push_back(f.diverged ? INFINITY : f.losses.back());
  }
  return s;
}

void draw_sweep(const Sweep& plain, const Sweep& clipped, double lambda0) {
  const auto finite = [](const std::string& name, const Sweep& s) {
    std::vector<double> x, y;
    for (std::size_t i = 0; i < s.rates.size(); ++i)
      if (std::isfinite(s.losses[i])) x.push_back(s.rates[i]), y.push_back(s.losses[i]);
    return book::series(name, x, y);
  };
  const double low = 1e-3, high = 10;
  book::figure(
      "lr_sweep",
      book::line_plot("learning rate η", "loss after 500 steps",
                      {finite("SGD", plain), finite("SGD, clipped to norm 1", clipped),
                       book::series("2/λ0", {2 / lambda0, 2 / lambda0}, {low, high})
                           .set("style", "k--"),
                       book::series("4/λ0", {4 / lambda0, 4 / lambda0}, {low, high})
                           .set("style", "k:")},
                      true)
          .set("log_x", book::Json::boolean(true))
          .set("log_x_base", 10));
}

// %%
// The test sweeps each seed, and prints where its cliff fell.

TEST_CASE(
    "the cliff lies between 2/λ0 and 4/λ0: every rate of the sweep up to 2/λ0 trains "
    "and every rate above 4/λ0 overflows, for three seeds") {
  book::check_seeds("rates off the band",
                    "rates ≤ 2/λ0 that did not train, plus rates > 4/λ0 that "
                    "did not overflow",
                    book::exactly(0), kSeeds, [](std::uint64_t seed) {
                      const double lambda0 = sharpest_curvature(seed);
                      const Sweep s = sweep(seed, 0);
                      const double start = fit_sine({"SGD", 0}, seed, 0).losses[0];
                      int off = 0;
                      double cliff = 0;
                      for (std::size_t i = 0; i < s.rates.size(); ++i) {
                        const bool trains = s.losses[i] < start;
                        if (trains) cliff = std::max(cliff, s.rates[i]);
                        off += s.rates[i] <= 2 / lambda0 && !trains;
                        off += s.rates[i] > 4 / lambda0 && std::isfinite(s.losses[i]);
                      }
                      out() << "seed " << seed << ": λ0 = " << lambda0
                            << ", the cliff at " << cliff << " = " << cliff * lambda0
                            << "/λ0\n";
                      if (seed == kSeeds[0]) draw_sweep(s, sweep(seed, 1.0), lambda0);
                      return off;
                    });
}

// %% 4 · Starting gently, and clipping
//
// Adam's first step moves every parameter by the full rate (section 2), whatever its
// gradient, and its averages of :math:`g` and :math:`g^2` rest on a handful of steps.
// At a large rate that first stretch can throw the network far from where it started:
// at rate 0.25 on the sine fit, the loss climbs above its start in the first steps (the
// account prints how far). A *warm-up* raises the rate from near 0 to its full value
// over the first steps, here linearly over 100, :math:`\eta_t = \eta \min(1, (t +
// 1)/100)`, with ``lr_scheduler::LambdaLR`` (the loop above calls its ``step()`` after
// the optimiser's). The first step is then a hundredth of the rate, and by the time the
// rate is large, the averages have seen many gradients and the network has found its
// way down. The claim, for three seeds: without the warm-up, the loss at some step of
// the first 1,000 exceeds the starting loss; with it, the loss never returns to where
// it started.
//
// .. figure:: warmup
//
//    The loss of Adam at rate 0.25 on the sine fit, with and without a warm-up over the
//    first 100 steps (the first seed), on a logarithmic scale.

// %% fold: drawing the two runs
void draw_warmup(const Fit& without, const Fit& with) {
  book::figure("warmup",
               book::line_plot("step", "mean squared error",
                               {loss_curve("no warm-up", without.losses),
                                loss_curve("warm-up over 100 steps", with.losses)},
                               true));
}

// %%
// The highest loss after the start, over the start, for each seed and both runs:

double highest_over_start(const Fit& f) {
  return *std::max_element(f.losses.begin() + 1, f.losses.end()) / f.losses[0];
}

TEST_CASE(
    "at rate 0.25 Adam throws the loss above its start in its first steps, and a "
    "linear warm-up over 100 steps prevents it: the loss never again reaches its "
    "start, "
    "for three seeds") {
  book::check_seeds("highest loss, no warm-up", "over the starting loss, steps 1-1000",
                    book::above(1), kSeeds, [](std::uint64_t seed) {
                      return highest_over_start(fit_sine({"Adam", 0.25}, seed, 1000));
                    });
  book::check_seeds("highest loss, warm-up", "over the starting loss, steps 1-1000",
                    book::below(1), kSeeds, [](std::uint64_t seed) {
                      const Fit with = fit_sine({"Adam", 0.25, 0, 100}, seed, 1000);
                      if (seed == kSeeds[0])
                        draw_warmup(fit_sine({"Adam", 0.25}, seed, 1000), with);
                      return highest_over_start(with);
                    });
}

// %%
// Past the cliff, plain SGD fails by feeding itself: a step overshoots along a steep
// direction, the gradient there is larger, so the next step is larger still, and the
// loss overflows. *Clipping* cuts that loop. Before each step,
// ``nn::utils::clip_grad_norm_`` measures the length of all the gradients together,
// :math:`|g| = \sqrt{\sum_p |g_p|^2}` over every parameter :math:`p`, and if it exceeds
// a limit :math:`c` it scales every gradient by :math:`c / |g|` (torch's rule, exactly:
// by :math:`c / (|g| + 10^{-6})`). The direction is kept; only the length is capped, so
// no step is longer than :math:`\eta c`, and in :math:`T` steps the parameters cannot
// move further than :math:`T \eta c`. A loss that is finite everywhere within that
// distance of the start, as this small network's is, cannot overflow; clipping alone
// promises no more than the bounded walk. The claim: at rate 0.5, beyond every seed's
// cliff, plain SGD overflows; clipped to norm 1 it does not, and ends below its
// starting loss; and with clipping no rate of the sweep overflows at all (the figure
// above). The test prints the largest gradient the clipped run met, which the step,
// unclipped, would have followed.

TEST_CASE(
    "clipping the gradient to norm 1 keeps SGD from overflowing: at rate 0.5, past the "
    "cliff, plain SGD overflows while clipped SGD ends below its starting loss, and "
    "clipped, no rate of the sweep overflows, for three seeds") {
  book::check_seeds("plain SGD at 0.5 overflowed", "1 if it did, 0 if not",
                    book::exactly(1), kSeeds, [](std::uint64_t seed) {
                      return fit_sine({"SGD", 0.5}, seed, 500).diverged ? 1.0 : 0.0;
                    });
  book::check_seeds("clipped loss at 0.5", "after 500 steps, over the starting loss",
                    book::below(1), kSeeds, [](std::uint64_t seed) {
                      const Fit f = fit_sine({"SGD", 0.5, 0, 0, 1.0}, seed, 500);
                      out() << "seed " << seed << ": the largest gradient norm met "
                            << f.largest_gradient << "\n";
                      return f.diverged ? INFINITY : f.losses.back() / f.losses[0];
                    });
  book::check_seeds("clipped rates that overflowed", "of the sweep's 29",
                    book::exactly(0), kSeeds, [](std::uint64_t seed) {
                      const Sweep s = sweep(seed, 1.0);
                      return static_cast<double>(
                          std::count(s.losses.begin(), s.losses.end(), INFINITY));
                    });
}

// %% 5 · Slowing down at the end
//
// Chapter 3 measured the floor that mini-batch noise leaves, growing in proportion to
// the rate. A large rate is fast at first and noisy at the end, a small one the
// reverse. A *schedule* changes the rate as training goes, to have both: litgrad's
// ``lr_scheduler::CosineAnnealingLR`` lowers it from its starting value :math:`\eta_0`
// to 0 along half a cosine, :math:`\eta_t = \eta_0 (1 + \cos(\pi t / T))/2`.
//
// How much lower does it end? Chapter 3's account of the floor carries over step by
// step. Near the best line :math:`\theta^*` a mini-batch step is :math:`e \leftarrow (I
// - \eta_t H) e + \eta_t \xi`, with :math:`H` the bowl's Hessian and :math:`\xi` the
// batch gradient's noise, of covariance :math:`\Sigma / B` for batches of :math:`B`
// points, :math:`\Sigma` being the covariance of one point's gradient at
// :math:`\theta^*`. So the covariance of the error follows :math:`V \leftarrow (I -
// \eta_t H) V (I - \eta_t H)^\top + \eta_t^2 \Sigma / B`, and the expected excess loss
// is :math:`\tfrac12 \operatorname{tr}(H V)`. The test runs this recursion with the
// data's own :math:`H` and :math:`\Sigma`, for the constant rate and the cosine, on
// chapter 3's line with batches of 8 and 4,000 steps from :math:`\eta_0 = 0.2`, and
// prints the expected excess averaged over the last 400 steps, and the predicted
// factor between the two.
//
// A run measures the factor with noise, differently at the two ends. At the constant
// rate the last 400 steps span about fifty of the walk's memories (a memory is about
// :math:`1/(\eta\lambda_{\min})` steps, with :math:`\lambda_{\min}` the bowl's smaller
// curvature), so their average has a relative spread of about :math:`\sqrt{2/50} =
// 0.2` and lies above 0.4 of its expectation but for three spreads' chance, 0.1%.
// Under the cosine the rate is nearly 0 in those steps and the parameters barely move:
// their excess is a single draw, a sum of :math:`\tfrac12\lambda_i e_i^2` over the two
// axes with Gaussian :math:`e_i`, whose tail is at worst that of one :math:`\chi^2_1`.
// So the test anneals four walks with different batches and averages their ends, which
// exceed four times their expectation with probability at most :math:`\Pr(\chi^2_4 >
// 16) = 0.3\%`. The claim, for each of three seeds: the constant rate's excess over the
// last 400 steps, divided by the four annealed walks' average, is at least a tenth
// (:math:`0.4 / 4`) of the predicted factor.

// %% fold: chapter 3's line, its best fit, and the floor the recursion predicts
struct Line {
  Tensor x, y;
  double best_w = 0, best_b = 0;
};

// Chapter 3's 200 noisy points of y = 2x + 0.5, and the least-squares line of them.
Line line_data() {
  Generator gen(1);
  Line d;
  d.x = uniform({200}, -1, 1, gen);
  d.y = 2.0 * d.x + 0.5 + 0.3 * randn({200}, gen);
  const double n = 200, sx = sum(d.x).item(), sxx = sum(d.x * d.x).item();
  const double sy = sum(d.y).item(), sxy = sum(d.x * d.y).item(),
               det = sxx * n - sx * sx;
  d.best_w = (sxy * n - sx * sy) / det, d.best_b = (sxx * sy - sx * sxy) / det;
  return d;
}

// The expected excess loss averaged over the last 400 of 4,000 steps, from the
// recursion V ← A V Aᵀ + η² Σ / 8 with A = I - ηH, and the mean error m ← A m added.
double predicted_tail(const Line& d, bool cosine) {
  const auto x = d.x.to_vector(), y = d.y.to_vector();
  double h00 = 0, h01 = 0, h11 = 0, s00 = 0, s01 = 0, s11 = 0;  // H and Σ
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = d.best_w * x[i] + d.best_b - y[i];  // one point's residual
    h00 += 2 * x[i] * x[i] / 200, h01 += 2 * x[i] / 200, h11 += 2.0 / 200;
    s00 += 4 * r * r * x[i] * x[i] / 200, s01 += 4 * r * r * x[i] / 200,
        s11 += 4 * r * r / 200;
  }
  double m0 = -d.best_w, m1 = -d.best_b, v00 = 0, v01 = 0, v11 = 0, tail = 0;
  for (int t = 0; t < 4000; ++t) {
    const double eta =
        cosine ? 0.2 * (1 + std::cos(std::acos(-1.0) * t / 4000)) / 2 : 0.2;
    const double a00 = 1 - eta * h00, a01 = -eta * h01, a11 = 1 - eta * h11;
    const double n00 = a00 * a00 * v00 + 2 * a00 * a01 * v01 + a01 * a01 * v11,
                 n01 =
                     a00 * a01 * v00 + (a00 * a11 + a01 * a01) * v01 + a01 * a11 * v11,
                 n11 = a01 * a01 * v00 + 2 * a01 * a11 * v01 + a11 * a11 * v11;
    v00 = n00 + eta * eta * s00 / 8, v01 = n01 + eta * eta * s01 / 8,
    v11 = n11 + eta * eta * s11 / 8;
    const double next0 = a00 * m0 + a01 * m1, next1 = a01 * m0 + a11 * m1;
    m0 = next0, m1 = next1;
    if (t >= 3600)
      tail +=
          0.5 *
          (h00 * (v00 + m0 * m0) + 2 * h01 * (v01 + m0 * m1) + h11 * (v11 + m1 * m1)) /
          400;
  }
  return tail;
}

// %%
// The walk itself: mini-batch SGD from (0, 0), the scheduler stepped after the
// optimiser, the excess loss over the least squares' averaged over the last 400 steps.

double tail_excess(const Line& d, bool cosine, std::uint64_t seed) {
  const auto loss = [&](double w, double b) {
    return mean(pow(d.x * w + b - d.y, 2.0)).item();
  };
  const double least = loss(d.best_w, d.best_b);
  Tensor w = scalar_tensor(0).requires_grad_(), b = scalar_tensor(0).requires_grad_();
  optim::SGD opt({w, b}, {0.2});
  optim::lr_scheduler::CosineAnnealingLR schedule(opt, 4000);
  Generator pick(seed);
  double tail = 0;
  for (int t = 0; t < 4000; ++t) {
    const Tensor batch = randint(0, 200, {8}, pick);
    opt.zero_grad();
    mse_loss(index_select(d.x, 0, batch) * w + b, index_select(d.y, 0, batch))
        .backward();
    opt.step();
    if (cosine) schedule.step();
    if (t >= 3600) tail += (loss(w.item(), b.item()) - least) / 400;
  }
  return tail;
}

TEST_CASE(
    "annealing the rate to 0 along a cosine ends below the constant rate's noise "
    "floor by at least a tenth of the factor the noise recursion predicts, for three "
    "seeds, averaging four annealed walks") {
  const Line d = line_data();
  const double predicted = predicted_tail(d, false) / predicted_tail(d, true);
  book::measured("predicted factor", predicted,
                 "the constant rate's expected tail excess over the cosine's");
  book::check_seeds(
      "measured factor", "the constant rate's tail excess over the cosine's",
      book::at_least(predicted / 10), kSeeds, [&](std::uint64_t seed) {
        const double constant = tail_excess(d, false, seed);
        double cosine = 0;
        for (std::uint64_t walk = 0; walk < 4; ++walk)
          cosine += tail_excess(d, true, seed + 100 * walk) / 4;
        out() << "seed " << seed << ": excess over the last 400 steps " << constant
              << " at the constant rate, " << cosine << " annealed (four walks)\n";
        return constant / cosine;
      });
}

// %% fold: the end of the file's namespace
}  // namespace
