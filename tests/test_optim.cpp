// Optimisers and learning-rate schedules: torch's update formulas, checked against numbers
// worked out by hand.

#include <doctest/doctest.h>

#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
// One step on f(x) = sum(x²), whose gradient is 2x.
void step_on_square(optim::Optimizer& opt, Tensor& x) {
  opt.zero_grad();
  sum(x * x).backward();
  opt.step();
}
}  // namespace

TEST_CASE("Adam's first step on x² from x = 1 moves x to 1 - 0.2 / (2 + 1e-8), as the formula gives") {
  // g = 2; m = 0.1 * 2 = 0.2; v = 0.001 * 4 = 0.004; bias corrections 1 - 0.9 = 0.1 and
  // 1 - 0.999 = 0.001; step size 0.1 / 0.1 = 1; denominator sqrt(0.004) / sqrt(0.001) + 1e-8.
  Tensor x = tensor({1.0}).requires_grad_();
  optim::Adam opt({x}, {0.1});
  step_on_square(opt, x);
  CHECK(x.item() == doctest::Approx(1 - 0.2 / (2 + 1e-8)).epsilon(1e-15));
}

TEST_CASE("three Adam steps with weight decay match the formula worked in plain arithmetic") {
  const double lr = 0.05, b1 = 0.8, b2 = 0.99, eps = 1e-6, wd = 0.1;
  Tensor x = tensor({1.0, -3.0}).requires_grad_();
  optim::Adam opt({x}, {lr, b1, b2, eps, wd});
  double p[2] = {1.0, -3.0}, m[2] = {0, 0}, v[2] = {0, 0};
  for (int t = 1; t <= 3; ++t) {
    step_on_square(opt, x);
    for (int i = 0; i < 2; ++i) {
      const double g = 2 * p[i] + wd * p[i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      const double m_hat = m[i] / (1 - std::pow(b1, t)), v_hat = v[i] / (1 - std::pow(b2, t));
      p[i] -= lr * m_hat / (std::sqrt(v_hat) + eps);  // the paper's form of the update
    }
    // torch (and litgrad) group the bias corrections differently, (lr / (1 - b1^t)) m and
    // sqrt(v) / sqrt(1 - b2^t): equal in exact arithmetic, so the two differ only by a few
    // roundings of 2^-53 each; 1e-13 relative leaves room for those and nothing else.
    CHECK(x.at({0}) == doctest::Approx(p[0]).epsilon(1e-13));
    CHECK(x.at({1}) == doctest::Approx(p[1]).epsilon(1e-13));
  }
}

TEST_CASE(
    "Adam counts each parameter's steps: one with no gradient at the first step takes a first step at the second") {
  // b misses the first step (no gradient), so its first update comes at the optimiser's second
  // step and must be corrected as a first step, t = 1, exactly as b_alone's, which a fresh Adam
  // takes at its first. Corrected with a's count, t = 2, it would move 0.074 instead of 0.1:
  // (0.1 / 0.19) / (sqrt(0.001) / sqrt(1 - 0.999²)) of a first step.
  Tensor a = tensor({1.0, -2.0}).requires_grad_(), b = tensor({0.5, 3.0}).requires_grad_();
  Tensor b_alone = tensor({0.5, 3.0}).requires_grad_();
  optim::Adam opt({a, b}, {0.1}), alone({b_alone}, {0.1});
  sum(a * a).backward();
  opt.step();
  CHECK(b.to_vector() == std::vector<double>{0.5, 3.0});
  opt.zero_grad();
  sum(a * a + b * b).backward();
  opt.step();
  step_on_square(alone, b_alone);
  CHECK(b.to_vector() == b_alone.to_vector());
  CHECK(b.at({0}) == doctest::Approx(0.5 - 0.1).epsilon(1e-6));  // a first step moves lr = 0.1
}

TEST_CASE("Adam's defaults are torch's: lr 1e-3, betas (0.9, 0.999), eps 1e-8, no weight decay") {
  const optim::AdamOptions o;
  CHECK(o.lr == 1e-3);
  CHECK(o.beta1 == 0.9);
  CHECK(o.beta2 == 0.999);
  CHECK(o.eps == 1e-8);
  CHECK(o.weight_decay == 0);
}

TEST_CASE("RMSprop's defaults are torch's: lr 1e-2, alpha 0.99, eps 1e-8, no weight decay or momentum, not centered") {
  const optim::RMSpropOptions o;
  CHECK(o.lr == 1e-2);
  CHECK(o.alpha == 0.99);
  CHECK(o.eps == 1e-8);
  CHECK(o.weight_decay == 0);
  CHECK(o.momentum == 0);
  CHECK(!o.centered);
}

TEST_CASE("RMSprop's first step is lr g / (sqrt(0.01 g²) + eps): ten times lr, whatever the gradient's size") {
  // On x² from x = 1, g = 2; v = 0.01 · g² = 0.04; the step is 0.01 · 2 / (0.2 + 1e-8). From
  // x = 30, g = 60 and the step is 0.01 · 60 / (6 + 1e-8): both 0.1 but for eps.
  Tensor x = tensor({1.0}).requires_grad_(), far = tensor({30.0}).requires_grad_();
  optim::RMSprop opt({x}), opt_far({far});
  step_on_square(opt, x);
  step_on_square(opt_far, far);
  CHECK(x.item() == doctest::Approx(1 - 0.01 * 2 / (0.2 + 1e-8)).epsilon(1e-15));
  CHECK(far.item() == doctest::Approx(30 - 0.01 * 60 / (6 + 1e-8)).epsilon(1e-15));
  CHECK(1 - x.item() == doctest::Approx(0.1).epsilon(1e-7));
  CHECK(30 - far.item() == doctest::Approx(0.1).epsilon(1e-7));
  // Its state is torch's four names, a count of steps first.
  const StateDict state = opt.state_dict();
  CHECK(state.at("state.0.step").item() == 1);
  CHECK(state.at("state.0.square_avg").item() == doctest::Approx(0.04).epsilon(1e-15));
  CHECK(state.contains("state.0.momentum_buffer"));
  CHECK(state.contains("state.0.grad_avg"));
}

TEST_CASE("SGD with momentum 0.9 takes x from 1 to 0.8, 0.46, 0.062 on x² with lr 0.1") {
  // g = 2x. Step 1: b = 2, x = 1 - 0.2. Step 2: g = 1.6, b = 1.8 + 1.6 = 3.4, x = 0.8 - 0.34.
  // Step 3: g = 0.92, b = 3.06 + 0.92 = 3.98, x = 0.46 - 0.398.
  Tensor x = tensor({1.0}).requires_grad_();
  optim::SGD opt({x}, {0.1, 0.9});
  const double expected[] = {0.8, 0.46, 0.062};
  for (double e : expected) {
    step_on_square(opt, x);
    CHECK(x.item() == doctest::Approx(e).epsilon(1e-14));
  }
}

TEST_CASE("SGD with Nesterov momentum takes its first step along g + momentum * g") {
  Tensor x = tensor({1.0}).requires_grad_();
  optim::SGD opt({x}, {0.1, 0.9, 0, 0, true});
  step_on_square(opt, x);
  CHECK(x.item() == doctest::Approx(1 - 0.1 * (2 + 0.9 * 2)).epsilon(1e-15));
}

TEST_CASE("plain SGD is x -= lr * grad, and a parameter without a gradient is left alone") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_(), unused = tensor({5.0}).requires_grad_();
  optim::SGD opt({x, unused}, {0.25});
  step_on_square(opt, x);
  CHECK(x.at({0}) == 0.5);
  CHECK(x.at({1}) == 1.0);
  CHECK(unused.item() == 5.0);
}

TEST_CASE("optimisers refuse bad settings, computed tensors and a tensor given twice") {
  Tensor x = tensor({1.0}).requires_grad_();
  CHECK_THROWS_WITH_AS(optim::SGD({x}, {-1}),
                       doctest::Contains("SGD: lr, momentum, dampening and weight_decay must be non-negative"),
                       ValueError);
  CHECK_THROWS_WITH_AS(optim::SGD({x}, {0.1, 0, 0, 0, true}),
                       "SGD: Nesterov momentum requires a momentum and zero dampening (param group 0)", ValueError);
  CHECK_THROWS_WITH_AS(optim::Adam({x}, {0.1, 1.0}), doctest::Contains("Adam: need lr >= 0, eps >= 0, 0 <= betas < 1"),
                       ValueError);
  CHECK_THROWS_WITH_AS(optim::Adam({x * 2.0}),
                       doctest::Contains("Adam: param group 0, parameter 0 was computed (by mul), so it is not a leaf"),
                       ValueError);
  CHECK_THROWS_WITH_AS(optim::Adam({x, x}),
                       doctest::Contains("parameter 1 is the same tensor as parameter 0 of the group"), ValueError);
  CHECK_NOTHROW(optim::Adam({tensor({1.0})}));  // frozen: accepted, and skipped by step()
}

TEST_CASE(
    "LambdaLR scales the base rate by its factor at each step, and cosine_with_warmup rises, then falls to its floor") {
  Tensor p = zeros({1}).requires_grad_();
  optim::AdamW opt({p}, {0.01});
  optim::lr_scheduler::LambdaLR schedule(opt, optim::lr_scheduler::cosine_with_warmup(4, 12, 0.1));
  std::vector<double> rates;
  for (int t = 0; t <= 14; ++t) {
    rates.push_back(opt.param_groups()[0]["lr"]);
    schedule.step();
  }
  CHECK(rates[0] == 0.0);
  CHECK(rates[2] == 0.01 * 2 / 4);
  CHECK(rates[4] == 0.01);                                                      // the top, where the cosine starts
  CHECK(rates[8] == doctest::Approx(0.01 * (0.1 + 0.9 * 0.5)).epsilon(1e-15));  // halfway down
  CHECK(rates[12] == doctest::Approx(0.001).epsilon(1e-15));
  CHECK(rates[14] == rates[12]);  // stays at the floor
  CHECK(schedule.get_last_lr() == rates[14]);
  CHECK_THROWS_AS(optim::lr_scheduler::cosine_with_warmup(5, 5), ValueError);
}

TEST_CASE("cosine_with_warmup's floor is 0 unless asked: its factor is exactly 0 at the end and after") {
  const auto factor = optim::lr_scheduler::cosine_with_warmup(4, 12);
  CHECK(factor(0) == 0.0);
  CHECK(factor(4) == 1.0);
  CHECK(factor(12) == 0.0);  // (1 + cos(π)) / 2, and cos(π) rounds to exactly -1
  CHECK(factor(20) == 0.0);
}

TEST_CASE("clip_grad_norm_ leaves gradients whose norm is below the maximum unchanged in every bit, and returns it") {
  Tensor a = tensor({3.0, 0.0}).requires_grad_(), b = tensor({4.0}).requires_grad_();
  sum(a * tensor({1.0, 2.0})).backward();  // a's gradient (1, 2)
  sum(b * 2.0).backward();                 // b's gradient 2
  const std::vector<double> ga = a.grad().to_vector(), gb = b.grad().to_vector();
  const double total = nn::utils::clip_grad_norm_({a, b}, 10.0);  // the norm is 3, below 10
  CHECK(total == 3.0);
  CHECK(a.grad().to_vector() == ga);
  CHECK(b.grad().to_vector() == gb);
  // Above the maximum they are scaled down to it (to within the 1e-6 torch adds).
  nn::utils::clip_grad_norm_({a, b}, 1.5);
  CHECK(a.grad().at({1}) == doctest::Approx(2.0 * 1.5 / 3.0).epsilon(1e-6));
}
