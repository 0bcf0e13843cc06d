// Chapter 6 · Optimisers
// ======================
//
// Chapter 3 found gradient descent's speed limit: on a bowl whose curvatures differ by
// a factor :math:`\kappa`, the condition number, it needs a number of steps that grows
// in proportion to :math:`\kappa`. Training a network is a walk through far worse bowls
// than a line's, so the step rule matters. This chapter measures two improvements.
// *Momentum* remembers the previous steps and keeps going in their direction; with the
// right settings its steps grow only like :math:`\sqrt\kappa`. *Adam*, the optimiser
// chapter 8 trains with, divides each coordinate's step by a running measure of that
// coordinate's gradient size, so every parameter moves at about the same pace whatever
// the scale of its gradient. We take apart Adam's first step, show an exact invariance
// that follows from its design, separate the two ways of adding weight decay to it, and
// race it against plain gradient descent. Last, a schedule that lowers the rate as
// training ends, which chapter 10 uses.

// %% about: Gradient descent's steps grow like the condition number, momentum's like
// its square root; Adam's per-coordinate steps, its invariance to the loss's scale, and
// the two kinds of weight decay; a race on a real fit; and lowering the rate at the
// end.
// %% assumes: 2, 3, 4

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::out;

namespace {

constexpr double kU = 0x1p-53;  // the unit roundoff of double precision

// %% 1 · Gradient descent's speed limit
//
// Take the simplest bowl with condition number :math:`\kappa`: :math:`f(x) = \tfrac12
// (x_1^2 + \kappa x_2^2)`, curvatures 1 and :math:`\kappa`, minimum at 0. Chapter 3
// showed that the best rate is :math:`2 / (1 + \kappa)`, where both axes shrink by
// :math:`(\kappa - 1)/(\kappa + 1)` per step. Shrinking the error by a factor
// :math:`\rho` then takes :math:`\ln(1/\rho) / \ln\frac{\kappa + 1}{\kappa - 1}` steps,
// rounded up, and since :math:`\ln\frac{\kappa + 1}{\kappa - 1} = \frac2\kappa +
// \frac2{3\kappa^3} + \cdots`, that is :math:`\tfrac\kappa2 \ln(1/\rho)` to within a
// relative :math:`1/(3\kappa^2)`.

// A step rule for the bowl, applied by a litgrad optimiser to x = (x1, x2).
struct Run {
  std::vector<double> distance;  // |x_t| / |x_0| after every step, from t = 0
  std::vector<double> x1, x2;    // the path
};

// Up to `steps` steps of `opt` on f(x) = (x1² + κ x2²)/2 from x0 = (1, 1), stopping
// early once the distance is at most `stop` of the start.
Run descend(double kappa, int steps,
            const std::function<std::unique_ptr<optim::Optimizer>(Tensor&)>& make,
            double stop = 0) {
  Tensor x = tensor({1, 1}).requires_grad_();
  const Tensor curvature = tensor({1, kappa});
  auto opt = make(x);
  Run run;
  const double start = std::sqrt(2.0);
  for (int t = 0; t <= steps; ++t) {
    run.distance.push_back(std::hypot(x.at({0}), x.at({1})) / start);
    run.x1.push_back(x.at({0})), run.x2.push_back(x.at({1}));
    if (t == steps || run.distance.back() <= stop) break;
    opt->zero_grad();
    (0.5 * sum(curvature * x * x)).backward();
    opt->step();
  }
  return run;
}

// The first step at which the distance is below rho of the start.
int steps_to(const Run& run, double rho) {
  for (std::size_t t = 0; t < run.distance.size(); ++t)
    if (run.distance[t] <= rho) return static_cast<int>(t);
  return -1;
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

const std::vector<double> kKappas = {10, 30, 100, 300, 1000};
constexpr double kRho = 1e-6;  // shrink the distance a millionfold

std::unique_ptr<optim::Optimizer> gradient_descent(Tensor& x, double kappa) {
  return std::make_unique<optim::SGD>(std::vector<Tensor>{x},
                                      optim::SGDOptions{2 / (1 + kappa)});
}

// %%
// The test counts the steps for :math:`\kappa` from 10 to 1000. Each count may differ
// from the formula by one step, where the distance lands within rounding of
// :math:`\rho`, and the formula's :math:`1/(3\kappa^2)` and the rounding up change the
// counts by at most 2% (at :math:`\kappa = 10`, 69 steps), which moves a slope fitted
// over two decades by at most :math:`2 \cdot 0.02 / \ln 100 < 0.01`. We claim the slope
// is within 0.05 of 1.

TEST_CASE(
    "at its best rate, gradient descent's steps to shrink the error a millionfold grow "
    "like κ: each count within one step of the formula, the log-log slope within 0.05 "
    "of 1") {
  std::vector<double> counts;
  int worst = 0;
  for (double kappa : kKappas) {
    const Run run = descend(
        kappa, 20000, [&](Tensor& x) { return gradient_descent(x, kappa); }, kRho);
    const int t = steps_to(run, kRho);
    const int formula = static_cast<int>(
        std::ceil(std::log(1 / kRho) / std::log((kappa + 1) / (kappa - 1))));
    out() << "κ = " << kappa << ": " << t << " steps (formula " << formula << ")\n";
    worst = std::max(worst, std::abs(t - formula));
    counts.push_back(t);
  }
  const double slope = log_log_slope(kKappas, counts);
  book::measured("largest miss", worst, "steps between a count and its formula",
                 book::at_most(1));
  book::measured("slope", slope, "of log steps against log κ", book::within(0.05, 1.0));
  CHECK(worst <= 1);
  CHECK(std::fabs(slope - 1) < 0.05);
}

// %% 2 · Momentum
//
// Gradient descent forgets: each step uses only the gradient where it stands. In a long
// narrow valley the gradient points mostly across the valley, and the steps zigzag. The
// *heavy ball* (Polyak, 1964) adds a share :math:`\beta` of the previous step:
// :math:`x_{t+1} = x_t - \alpha \nabla f(x_t) + \beta (x_t - x_{t-1})`. The zigzags
// cancel and the motion along the valley builds up. litgrad's ``optim::SGD`` with
// ``momentum`` :math:`\beta` writes the same rule as torch does, with a velocity:
// :math:`v \leftarrow \beta v + \nabla f`, :math:`x \leftarrow x - \alpha v`. Since
// :math:`\alpha v_t = x_{t-1} - x_t`, the two are one rule. They round differently (one
// rounds :math:`v`, the other :math:`x_t - x_{t-1}`), so we check that they agree to
// rounding: over 50 steps on the bowl with :math:`\kappa = 100`, to :math:`10^{-13}`
// (each step rounds a few numbers of size at most 1, and the heavy ball's own
// contraction keeps the roundings from growing; 50 steps of a few :math:`u` each is
// :math:`10^{-14}`).

std::unique_ptr<optim::Optimizer> heavy_ball(Tensor& x, double kappa) {
  const double root = std::sqrt(kappa);
  const double rate = 4 / ((1 + root) * (1 + root));
  const double beta = std::pow((root - 1) / (root + 1), 2);
  return std::make_unique<optim::SGD>(std::vector<Tensor>{x},
                                      optim::SGDOptions{rate, beta});
}

TEST_CASE(
    "litgrad's SGD with momentum is the heavy ball x - α∇f + β(x_t - x_{t-1}), to "
    "1e-13 over 50 steps") {
  const double kappa = 100, root = 10;
  const double rate = 4 / ((1 + root) * (1 + root)), beta = std::pow(9.0 / 11, 2);
  const Run run = descend(kappa, 50, [&](Tensor& x) { return heavy_ball(x, kappa); });
  double x1 = 1, x2 = 1, p1 = 1, p2 = 1, worst = 0;  // now, and one step before
  for (int t = 1; t <= 50; ++t) {
    const double n1 = x1 - rate * x1 + beta * (x1 - p1);
    const double n2 = x2 - rate * kappa * x2 + beta * (x2 - p2);
    p1 = x1, p2 = x2, x1 = n1, x2 = n2;
    worst = std::max({worst, std::fabs(run.x1[t] - x1), std::fabs(run.x2[t] - x2)});
  }
  book::measured("largest gap", worst,
                 "between the two forms' positions, over 50 steps",
                 book::at_most(1e-13));
  CHECK(worst <= 1e-13);
}

// %%
// With the best settings, :math:`\alpha = 4 / (1 + \sqrt\kappa)^2` and :math:`\beta =
// ((\sqrt\kappa - 1)/(\sqrt\kappa + 1))^2` for curvatures 1 and :math:`\kappa`, both
// axes' errors turn into slow spirals that shrink by :math:`r = \sqrt\beta =
// (\sqrt\kappa - 1)/(\sqrt\kappa + 1)` per step, which is chapter 3's factor with
// :math:`\kappa` replaced by :math:`\sqrt\kappa` (the standard analysis: the update is
// linear in :math:`(x_t, x_{t-1})`, and these settings put both eigenvalues of its
// matrix at :math:`r` for both curvatures). The two eigenvalues coincide, and such a
// double eigenvalue makes the error shrink like :math:`t\,r^t` rather than :math:`r^t`.
// So between steps 100 and 400 the mean factor per step is :math:`r (400/100)^{1/300}`,
// within 0.5% of :math:`r`; we check 1%, at :math:`\kappa = 100`, where
// :math:`r = 9/11`.

TEST_CASE(
    "with its best settings the heavy ball shrinks the error by (√κ - 1)/(√κ + 1) per "
    "step, on average over steps 100 to 400, to 1%") {
  const double kappa = 100, r = 9.0 / 11;
  const Run run = descend(kappa, 400, [&](Tensor& x) { return heavy_ball(x, kappa); });
  const double mean_factor = std::pow(run.distance[400] / run.distance[100], 1.0 / 300);
  book::measured("mean factor", mean_factor, "per step, from step 100 to 400",
                 book::within(0.01 * r, r));
  CHECK(std::fabs(mean_factor - r) < 0.01 * r);
}

// %%
// The price of momentum is that it overshoots. Gradient descent at its best rate
// multiplies each axis's error by a factor between -1 and 1 at every step, so the
// distance to the minimum never grows. The heavy ball carries speed into the minimum
// and past it: its distance rises at some steps on the way down, as the spirals swing
// out.

TEST_CASE(
    "gradient descent's distance to the minimum never grows, while the heavy ball's "
    "rises at some steps") {
  const double kappa = 100;
  const Run gd =
      descend(kappa, 300, [&](Tensor& x) { return gradient_descent(x, kappa); });
  const Run heavy =
      descend(kappa, 300, [&](Tensor& x) { return heavy_ball(x, kappa); });
  int gd_rises = 0, heavy_rises = 0;
  for (int t = 0; t < 300; ++t) {
    gd_rises += gd.distance[t + 1] > gd.distance[t];
    heavy_rises += heavy.distance[t + 1] > heavy.distance[t];
  }
  book::measured("gradient descent's rises", gd_rises,
                 "steps, of 300, after which the distance was larger",
                 book::exactly(0));
  book::measured("heavy ball's rises", heavy_rises, "the same for the heavy ball",
                 book::above(0));
  CHECK(gd_rises == 0);
  CHECK(heavy_rises > 0);
}

// %%
// So the steps to shrink the error by :math:`\rho` grow like :math:`\sqrt\kappa`:
// :math:`t\,r^t = \rho` gives :math:`t \approx \tfrac{\sqrt\kappa}{2} (\ln(1/\rho) +
// \ln t)`. The :math:`\ln t` term grows slowly with :math:`\kappa` (from about 3.5 to 6
// over our range, against :math:`\ln 10^6 \approx 13.8`), which raises the log-log
// slope above :math:`\tfrac12` by about :math:`\ln(19.8/17.3) / \ln 100 \approx 0.03`.
// We claim the slope within 0.1 of :math:`\tfrac12`. And at :math:`\kappa = 1000`
// momentum should need about :math:`\sqrt\kappa \ln(1/\rho) / (\ln(1/\rho) + \ln t)
// \approx 22` times fewer steps than gradient descent; we claim a ratio between
// :math:`\sqrt\kappa / 2` and :math:`2 \sqrt\kappa`.
//
// .. figure:: steps_against_kappa
//
//    Steps to shrink the distance a millionfold against the condition number, both axes
//    logarithmic: gradient descent's line has slope 1, momentum's about 1/2.

// %% fold: drawing the steps against κ
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

// %%
// The test counts both optimisers' steps at every :math:`\kappa`.

TEST_CASE(
    "the heavy ball's steps grow like √κ: log-log slope within 0.1 of 1/2, and at κ = "
    "1000 between √κ/2 and 2√κ times fewer than gradient descent's") {
  std::vector<double> gd, heavy;
  for (double kappa : kKappas) {
    gd.push_back(steps_to(
        descend(
            kappa, 20000, [&](Tensor& x) { return gradient_descent(x, kappa); }, kRho),
        kRho));
    heavy.push_back(steps_to(
        descend(
            kappa, 20000, [&](Tensor& x) { return heavy_ball(x, kappa); }, kRho),
        kRho));
    out() << "κ = " << kappa << ": gradient descent " << gd.back()
          << " steps, heavy ball " << heavy.back() << "\n";
  }
  const double slope = log_log_slope(kKappas, heavy);
  const double ratio = gd.back() / heavy.back(), root = std::sqrt(1000.0);
  book::measured("slope", slope, "of log steps against log κ, heavy ball",
                 book::within(0.1, 0.5));
  book::measured("ratio at κ = 1000", ratio, "gradient descent's steps over momentum's",
                 book::between(root / 2, 2 * root));
  CHECK(std::fabs(slope - 0.5) < 0.1);
  CHECK(ratio > root / 2);
  CHECK(ratio < 2 * root);
  draw_steps(gd, heavy);
}

// %% 3 · Adam
//
// Adam (Kingma and Ba, 2015) keeps two running averages for every parameter: of its
// gradient, :math:`m \leftarrow \beta_1 m + (1 - \beta_1) g`, and of its squared
// gradient, :math:`v \leftarrow \beta_2 v + (1 - \beta_2) g^2`, both starting at 0,
// with :math:`\beta_1 = 0.9`, :math:`\beta_2 = 0.999`. Starting at 0 biases them
// towards 0 early on, so it divides them by :math:`1 - \beta_1^t` and
// :math:`1 - \beta_2^t`, the share of the average that has been filled after :math:`t`
// steps: :math:`\hat m`, :math:`\hat v`. The step is :math:`x \leftarrow x - \alpha
// \hat m / (\sqrt{\hat v} + \epsilon)`, with a small :math:`\epsilon = 10^{-8}` to
// avoid dividing by 0.
//
// On the first step the correction makes :math:`\hat m = g` and :math:`\hat v = g^2`
// exactly as mathematics goes, so every coordinate moves by
// :math:`\alpha g / (|g| + \epsilon)`: by :math:`\alpha` in the direction of its
// gradient, whether that gradient is :math:`10^{-4}` or :math:`10^3`. In floating
// point, each of the dozen operations rounds once; we check the step to
// :math:`16 u \alpha`.

TEST_CASE(
    "Adam's first step moves each coordinate by lr·g/(|g| + eps), to 16u·lr, for "
    "gradients from 1e-4 to 1e3") {
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
  book::measured("largest gap", worst,
                 "between a coordinate's step and lr·g/(|g| + eps)",
                 book::at_most(16 * kU * lr));
  CHECK(worst <= 16 * kU * lr);
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

// %% fold: chapter 4's tanh network, and training it with a scaled loss
struct TanhNet : nn::Module {
  nn::Linear hidden, output;
  explicit TanhNet(Generator& gen)
      : Module("TanhNet"), hidden(2, 4, true, gen), output(4, 1, true, gen) {
    register_module("hidden", hidden);
    register_module("output", output);
  }
  Tensor forward(const Tensor& x) const { return output(tanh(hidden(x))); }
};

// The parameters, flattened, after `steps` steps with the loss multiplied by `scale`;
// with `gradients`, the gradients of the last step instead.
std::vector<double> trained(double scale, int steps, bool adam, double eps,
                            bool gradients = false) {
  const Tensor x = tensor({0, 0, 0, 1, 1, 0, 1, 1}, {4, 2});
  const Tensor y = tensor({0, 1, 1, 0}, {4, 1});
  Generator gen(1);
  TanhNet net(gen);
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
  const auto plain = trained(1, 100, true, 0), scaled = trained(s, 100, true, 0);
  const auto with_eps = trained(1, 100, true, 1e-8),
             with_eps_scaled = trained(s, 100, true, 1e-8);
  int differing = 0, differing_eps = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    differing += plain[i] != scaled[i];
    differing_eps += with_eps[i] != with_eps_scaled[i];
  }
  const auto g = trained(1, 1, false, 0, true),
             g_scaled = trained(s, 1, false, 0, true);
  const auto sgd = trained(1, 100, false, 0), sgd_scaled = trained(s, 100, false, 0);
  int off_scale = 0, sgd_same = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    off_scale += g_scaled[i] != s * g[i];
    sgd_same += sgd_scaled[i] == sgd[i];
  }
  out() << plain.size() << " parameters; with the default eps, " << differing_eps
        << " of them differ after 100 steps\n";
  book::measured("differing parameters", differing,
                 "of Adam's, with eps = 0, after 100 steps", book::exactly(0));
  book::measured(
      "gradients not scaled exactly", off_scale,
      "of the 17, gradients other than 2^10 times the unscaled ones in any bit",
      book::exactly(0));
  CHECK(differing == 0);
  CHECK(off_scale == 0);
  CHECK(sgd_same == 0);  // SGD's trajectory is another one
  CHECK(differing_eps > 0);
}

// %%
// Weight decay pulls every parameter towards 0 a little at each step, a common guard
// against weights growing without need. There are two ways to add it to Adam, and they
// are not the same. *Adam with an L2 term* adds :math:`\lambda x` to the gradient, as
// the gradient of :math:`\tfrac\lambda2 |x|^2` (litgrad's ``optim::Adam`` with
// ``weight_decay``, as torch's). But then the decay goes through Adam's division, and
// is rescaled with everything else. *AdamW* (Loshchilov and Hutter, 2019) instead
// shrinks the parameter directly, :math:`x \leftarrow (1 - \alpha \lambda) x`, and then
// takes Adam's step on the loss alone.
//
// The difference is starkest where the loss's own gradient is 0, at its minimum. Adam
// with an L2 term then sees only :math:`g = \lambda x`, and its first step is
// :math:`\alpha \lambda x / (|\lambda x| + \epsilon)`: about :math:`\alpha` whatever
// :math:`\lambda` is, so the strength of the decay is lost (for
// :math:`\lambda = 10^{-4}` and :math:`10^{-1}` and :math:`x = 3`, the two steps are
// within :math:`\epsilon / (10^{-4} \cdot 3) \approx 3 \cdot 10^{-5}` of
// :math:`\alpha`, relatively). AdamW multiplies the parameter by exactly its factor:
// the same bits as :math:`x (1 - \alpha\lambda)`, and the loss's zero gradient adds
// nothing.

TEST_CASE(
    "at the loss's minimum, Adam with an L2 term moves by about lr whatever the decay, "
    "while AdamW multiplies by exactly 1 - lr·λ") {
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
    out() << "λ = " << decay << ": Adam with L2 moved " << start - a.item()
          << ", AdamW " << start - w.item() << "\n";
  }
  const double spread =
      std::max(std::fabs(l2_steps[0] / lr - 1), std::fabs(l2_steps[1] / lr - 1));
  book::measured("L2 steps' distance from lr", spread,
                 "the larger relative gap between an L2 step and lr, for both λ",
                 book::below(4e-5));
  book::measured("inexact AdamW steps", not_exact,
                 "of the two, results other than x (1 - lr λ) in any bit",
                 book::exactly(0));
  CHECK(spread < 4e-5);
  CHECK(not_exact == 0);
}

// %%
// On the bowl, the three rules take visibly different paths. Gradient descent at its
// best rate zigzags across the narrow axis; the heavy ball overshoots and swings back
// in a spiral; Adam's first steps move both coordinates by the same amount, diagonally,
// whatever the curvature, and it then slows as its averages settle.
//
// .. figure:: optimiser_paths
//
//    The first 40 steps of gradient descent, the heavy ball and Adam (rate 0.1) on the
//    bowl with κ = 30, from (1, 1), over the bowl's contours.

// %% fold: drawing the three paths
void draw_paths() {
  const double kappa = 30;
  const Run gd =
      descend(kappa, 40, [&](Tensor& x) { return gradient_descent(x, kappa); });
  const Run heavy = descend(kappa, 40, [&](Tensor& x) { return heavy_ball(x, kappa); });
  const Run adam = descend(kappa, 40, [](Tensor& x) {
    return std::make_unique<optim::Adam>(std::vector<Tensor>{x},
                                         optim::AdamOptions{0.1});
  });
  std::vector<double> axis;
  for (int i = 0; i <= 60; ++i) axis.push_back(-1.2 + 2.4 * i / 60);
  Tensor z = zeros({61, 61});
  for (int i = 0; i < 61; ++i)
    for (int j = 0; j < 61; ++j)
      z.data()[i * 61 + j] =
          0.5 * (axis[j] * axis[j] + kappa * axis[i] * axis[i]) + 1e-3;
  book::figure("optimiser_paths",
               book::plane("x1", "x2", book::field(axis, axis, z, "contour", 12, true),
                           {book::path("gradient descent", gd.x1, gd.x2),
                            book::path("heavy ball", heavy.x1, heavy.x2),
                            book::path("Adam", adam.x1, adam.x2)},
                           {}, true));
}

// %% 4 · A race on a real fit
//
// Bowls are where the theory is clean; a network's loss is not a bowl. The race: fit
// :math:`\sin 3x` at 64 points of :math:`[-1, 1]` with 32 tanh units, until the mean
// squared error is below :math:`10^{-3}`, with SGD and with Adam, each at its best
// learning rate among the powers of two (:math:`2^{-6}` to :math:`2^0` for SGD, whose
// larger rates diverge, and :math:`2^{-8}` to :math:`2^{-1}` for Adam). The claim: Adam
// at its best rate gets there in fewer steps than SGD at any rate on its grid, for
// three seeds. To check it, SGD need only be run for as many steps as Adam needed.
//
// .. figure:: race
//
//    The loss of SGD and Adam at their best rates on the grid (the first seed), on a
//    logarithmic scale, with the target 1e-3.

// %% fold: the race's network and its training
struct Fit {
  int steps = -1;              // steps to the target, or -1 if not within the cap
  std::vector<double> losses;  // the loss before every step
};

Fit race(bool adam, double lr, std::uint64_t seed, int cap) {
  const Tensor x = linspace(-1, 1, 64).reshape({64, 1}), y = sin(3.0 * x);
  Generator gen(seed);
  nn::Linear hidden(1, 32, true, gen), output(32, 1, true, gen);
  std::vector<Tensor> params = {hidden.weight, hidden.bias, output.weight, output.bias};
  std::unique_ptr<optim::Optimizer> opt;
  if (adam)
    opt = std::make_unique<optim::Adam>(params, optim::AdamOptions{lr});
  else
    opt = std::make_unique<optim::SGD>(params, optim::SGDOptions{lr});
  Fit fit;
  for (int t = 0; t <= cap; ++t) {
    opt->zero_grad();
    const Tensor loss = mse_loss(output(tanh(hidden(x))), y);
    fit.losses.push_back(loss.item());
    if (loss.item() < 1e-3) {
      fit.steps = t;
      break;
    }
    if (!std::isfinite(loss.item()) || t == cap) break;
    loss.backward();
    opt->step();
  }
  return fit;
}

constexpr std::uint64_t kSeeds[] = {1, 2, 3};

void draw_race(const Fit& sgd, const Fit& adam) {
  const auto curve = [](const std::string& name, const Fit& f) {
    std::vector<double> t, l;
    for (std::size_t i = 0; i < f.losses.size(); i += 5)
      t.push_back(static_cast<double>(i)), l.push_back(f.losses[i]);
    return book::series(name, t, l);
  };
  const double last = static_cast<double>(sgd.losses.size() - 1);
  book::figure("race",
               book::line_plot(
                   "step", "mean squared error",
                   {book::series("target", {0, last}, {1e-3, 1e-3}).set("style", "k--"),
                    curve("SGD", sgd), curve("Adam", adam)},
                   true));
}

// %%
// The test runs the race for each seed, and draws the first seed's best runs (SGD's
// until it reaches the target, for the figure only).

TEST_CASE(
    "fitting sin 3x, Adam at its best rate reaches error 1e-3 in fewer steps than SGD "
    "at any rate of its grid, for three seeds") {
  int lost = 0;
  for (auto seed : kSeeds) {
    Fit best_adam;
    double adam_rate = 0;
    for (int k = -8; k <= -1; ++k) {
      const Fit f = race(true, std::ldexp(1.0, k), seed, 5000);
      if (f.steps >= 0 && (best_adam.steps < 0 || f.steps < best_adam.steps))
        best_adam = f, adam_rate = std::ldexp(1.0, k);
    }
    REQUIRE(best_adam.steps > 0);
    int sgd_reached = 0;  // SGD rates that reach the target within Adam's steps
    for (int k = -6; k <= 0; ++k)
      sgd_reached += race(false, std::ldexp(1.0, k), seed, best_adam.steps).steps >= 0;
    out() << "seed " << seed << ": Adam at rate " << adam_rate << " needs "
          << best_adam.steps
          << " steps; SGD rates reaching the target as soon: " << sgd_reached << "\n";
    lost += sgd_reached > 0;
    if (seed != kSeeds[0]) continue;
    Fit best_sgd;  // from the largest rate down, each run capped at the best so far
    for (int k = 0; k >= -6; --k) {
      const int cap = best_sgd.steps >= 0 ? best_sgd.steps : 20000;
      const Fit f = race(false, std::ldexp(1.0, k), seed, cap);
      if (f.steps >= 0 && (best_sgd.steps < 0 || f.steps < best_sgd.steps))
        best_sgd = f;
    }
    out() << "  (SGD's best rate needs " << best_sgd.steps << " steps)\n";
    draw_race(best_sgd, best_adam);
  }
  book::measured("seeds Adam lost", lost,
                 "seeds where some SGD rate reached the target as fast as Adam",
                 book::exactly(0));
  CHECK(lost == 0);
  draw_paths();
}

// %% 5 · Slowing down at the end
//
// Chapter 3 measured the floor that mini-batch noise leaves, growing in proportion to
// the rate. A large rate is fast at first and noisy at the end, a small one the
// reverse. A *schedule* changes the rate as training goes, to have both: litgrad's
// ``lr_scheduler::CosineAnnealingLR`` lowers it from its starting value to 0 along half
// a cosine, :math:`\eta_t = \eta_0 (1 + \cos(\pi t / T)) / 2`. Over the last tenth of
// the steps the rate is below :math:`\eta_0 (1 - \cos(0.1\pi)) / 2 \approx 0.025\,
// \eta_0`, so a walk that kept pace with the rate would sit on a floor forty times
// lower. It cannot quite keep pace (its memory, about :math:`1/(\eta \lambda)` steps,
// grows as the rate shrinks), so we claim ten times: on chapter 3's line, with batches
// of 8 and 4,000 steps from :math:`\eta_0 = 0.2`, the excess loss averaged over the
// last 400 steps is at least ten times lower with the cosine than at the constant rate,
// for three seeds.

// Chapter 3's 200 noisy points of y = 2x + 0.5, and mini-batch SGD on them from (0, 0):
// the excess loss over the least squares' averaged over the last 400 of 4,000 steps.
double tail_excess(bool cosine, std::uint64_t seed) {
  Generator gen(1);
  const Tensor x = uniform({200}, -1, 1, gen);
  const Tensor y = 2.0 * x + 0.5 + 0.3 * randn({200}, gen);
  const double n = 200, sx = sum(x).item(), sxx = sum(x * x).item();
  const double sy = sum(y).item(), sxy = sum(x * y).item(), det = sxx * n - sx * sx;
  const double best_w = (sxy * n - sx * sy) / det, best_b = (sxx * sy - sx * sxy) / det;
  const auto loss = [&](double w, double b) {
    return mean(pow(x * w + b - y, 2.0)).item();
  };
  const double least = loss(best_w, best_b);
  Tensor w = scalar_tensor(0).requires_grad_(), b = scalar_tensor(0).requires_grad_();
  optim::SGD opt({w, b}, {0.2});
  optim::lr_scheduler::CosineAnnealingLR schedule(opt, 4000);
  Generator pick(seed);
  double tail = 0;
  for (int t = 0; t < 4000; ++t) {
    const Tensor batch = randint(0, 200, {8}, pick);
    opt.zero_grad();
    mse_loss(index_select(x, 0, batch) * w + b, index_select(y, 0, batch)).backward();
    opt.step();
    if (cosine) schedule.step();
    if (t >= 3600) tail += (loss(w.item(), b.item()) - least) / 400;
  }
  return tail;
}

TEST_CASE(
    "annealing the rate to 0 along a cosine ends at least ten times below the "
    "constant rate's noise floor, for three seeds") {
  double worst = INFINITY;
  for (auto seed : kSeeds) {
    const double constant = tail_excess(false, seed), cosine = tail_excess(true, seed);
    out() << "seed " << seed << ": excess over the last 400 steps " << constant
          << " at the constant rate, " << cosine << " annealed\n";
    worst = std::min(worst, constant / cosine);
  }
  book::measured("smallest gain", worst,
                 "the constant rate's final excess loss over the annealed one's",
                 book::at_least(10.0));
  CHECK(worst >= 10.0);
}

// %% fold: the end of the file's namespace
}  // namespace
