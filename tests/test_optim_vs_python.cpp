// The optimisers, the cosine schedule and gradient clipping against torch 1.13, which
// reference/make_optim_reference.py ran in double precision (optim_python.txt).
//
// Thresholds. The optimisers follow torch's order of operations, so each step rounds alike
// but for the gradient (its sum of two terms may round differently): six steps of
// differences of a few units of 2^-53 in numbers of order 1 stay below 1e-14; we allow 1e-13.
// CosineAnnealingLR is computed in closed form here and step by step in torch, whose
// recursion adds about one rounding per step: 13 steps stay within 1e-13 relative, we allow
// 1e-12. The clipped gradients are one product each: 1e-15 relative, we allow 1e-14.

#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"
#include "reference_file.hpp"

using namespace litgrad;

namespace {
const test::ReferenceCase& find(const std::vector<test::ReferenceCase>& cases, const std::string& name) {
  for (const auto& c : cases)
    if (c.name == name) return c;
  FAIL("optim_python.txt has no case " << name);
  return cases.front();
}

// Six steps of `make_optimizer`'s optimiser on the reference's loss, each compared with torch.
template <class Make>
void check_trajectory(const test::ReferenceCase& c, Make make_optimizer) {
  Tensor p = c.get("input", "p0").detach().requires_grad_();
  const Tensor w = c.get("input", "w"), target = c.get("input", "target");
  auto opt = make_optimizer(std::vector<Tensor>{p});
  for (int step = 1; step <= 6; ++step) {
    CAPTURE(step);
    opt.zero_grad();
    (sum(w * pow(p - target, 2.0)) + sum(pow(p, 3.0)) / 10.0).backward();
    opt.step();
    CHECK(test::relative_error(p.detach(), c.get("output", "p" + std::to_string(step))) <= 1e-13);
  }
}
}  // namespace

TEST_CASE("AdamW, Adam with L2, and SGD with momentum follow torch's trajectories to 1e-13 over six steps") {
  const auto cases = test::read_reference_file("optim_python.txt");
  check_trajectory(find(cases, "adamw_lr0.05_wd0.1"), [](auto ps) {
    return optim::AdamW(ps, {0.05, 0.9, 0.999, 1e-8, 0.1});
  });
  check_trajectory(find(cases, "adamw_defaults"), [](auto ps) { return optim::AdamW(ps); });
  check_trajectory(find(cases, "adam_l2_0.1"), [](auto ps) { return optim::Adam(ps, {0.05, 0.9, 0.999, 1e-8, 0.1}); });
  check_trajectory(find(cases, "sgd_nesterov"), [](auto ps) {
    optim::SGDOptions o{0.05};
    o.momentum = 0.9, o.nesterov = true, o.weight_decay = 0.01;
    return optim::SGD(ps, o);
  });
  check_trajectory(find(cases, "sgd_momentum_dampening"), [](auto ps) {
    optim::SGDOptions o{0.05};
    o.momentum = 0.8, o.dampening = 0.3;
    return optim::SGD(ps, o);
  });
}

TEST_CASE(
    "RMSprop, plain and centered with momentum and weight decay, follows torch's trajectories to 1e-13 over six "
    "steps") {
  const auto cases = test::read_reference_file("optim_python.txt");
  check_trajectory(find(cases, "rmsprop_defaults"), [](auto ps) { return optim::RMSprop(ps); });
  check_trajectory(find(cases, "rmsprop_centered_momentum_wd"), [](auto ps) {
    optim::RMSpropOptions o;
    o.lr = 0.02, o.alpha = 0.9, o.weight_decay = 0.1, o.momentum = 0.5, o.centered = true;
    return optim::RMSprop(ps, o);
  });
}

TEST_CASE("CosineAnnealingLR gives torch's learning rates to 1e-12, and the optimiser steps with the rate set") {
  const auto cases = test::read_reference_file("optim_python.txt");
  const Tensor expected = find(cases, "cosine_annealing").get("output", "lr");
  Tensor p = zeros({1}).requires_grad_();
  optim::SGD opt({p}, {0.1});
  optim::lr_scheduler::CosineAnnealingLR schedule(opt, 10, 0.001);
  for (std::int64_t t = 0; t < expected.numel(); ++t) {
    CAPTURE(t);
    CHECK(std::fabs(opt.param_groups()[0]["lr"] - expected.at({t})) <= 1e-12 * expected.at({t}));
    opt.step();
    schedule.step();
  }
}

TEST_CASE(
    "clip_grad_norm_ returns torch's total norm and scales the gradients as torch, for the 2-norm and the inf-norm") {
  const auto cases = test::read_reference_file("optim_python.txt");
  for (const char* name : {"clip_2", "clip_inf"}) {
    CAPTURE(name);
    const auto& c = find(cases, name);
    Tensor a = zeros_like(c.get("input", "grad_a")).requires_grad_(),
           b = zeros_like(c.get("input", "grad_b")).requires_grad_();
    (sum(a * c.get("input", "grad_a")) + sum(b * c.get("input", "grad_b"))).backward();  // sets the gradients
    const double total =
        nn::utils::clip_grad_norm_({a, b}, std::stod(c.config.at("max_norm")), std::stod(c.config.at("norm_type")));
    CHECK(std::fabs(total - c.get("output", "total").item()) <= 1e-14 * total);
    CHECK(test::relative_error(a.grad(), c.get("output", "grad_a")) <= 1e-14);
    CHECK(test::relative_error(b.grad(), c.get("output", "grad_b")) <= 1e-14);
  }
}
