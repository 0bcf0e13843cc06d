// The second floor's tensor operations and losses, by what torch's documentation promises, and
// the learning-rate schedules. (Their values and gradients against torch itself are in
// test_torch_reference.cpp; their gradients against finite differences in
// test_gradcheck_ops.cpp.)

#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

TEST_CASE("linspace hits both ends exactly and spaces the points as torch") {
  CHECK(test::identical(linspace(-1, 1, 5), tensor({-1, -0.5, 0, 0.5, 1})));
  const Tensor t = linspace(0, 1, 7);
  CHECK(t.at({0}) == 0.0);
  CHECK(t.at({6}) == 1.0);
  CHECK(t.numel() == 7);
  // Counted up from 0 alone, the last of 50 points would be 49 · (1/49) = 0.9999999999999999.
  CHECK(linspace(0, 1, 50).at({49}) == 1.0);
  CHECK(linspace(3, 5, 1).at({0}) == 3.0);
  CHECK(linspace(3, 5, 0).numel() == 0);
}

TEST_CASE("one_hot puts a 1 at each index, and one_hot(ids) @ weight is the embedding of ids, bit for bit") {
  const Tensor ids = tensor({2, 0, 2}, {3}, DType::Int64);
  const Tensor h = one_hot(ids, 4);
  CHECK(h.dtype() == DType::Int64);
  CHECK(test::identical(to(h, DType::Float64), tensor({{0, 0, 1, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}})));
  CHECK(one_hot(ids).shape() == Shape{3, 3});
  Generator gen(1);
  const Tensor w = randn({4, 5}, gen);
  // Each element of the product adds one 1·w and three 0·w: adding zeros changes nothing.
  CHECK(test::identical(matmul(to(h, DType::Float64), w), nn::embedding(ids, w)));
  CHECK_THROWS_WITH_AS(one_hot(ids, 2), "one_hot: index 2 is out of range for 2 classes", IndexError);
}

TEST_CASE("argmax, argmin, min and topk give the first of tied positions, and a NaN wins as in torch") {
  const Tensor x = tensor({{1, 3, 3, 0}, {2, 2, -1, -1}});
  CHECK(test::identical(argmax(x, 1), tensor({1, 0}, {2}, DType::Int64)));
  CHECK(test::identical(argmin(x, 1), tensor({3, 2}, {2}, DType::Int64)));
  CHECK(argmax(x).item() == 1);
  CHECK(min(x).item() == -1);
  CHECK(std::isnan(min(tensor({1, NAN, -5})).item()));
  const auto top = topk(tensor({4, NAN, 4, 1, 9}), 3);
  CHECK(std::isnan(top.values.at({0})));
  CHECK(test::identical(top.indices, tensor({1, 4, 0}, {3}, DType::Int64)));
  const auto low = topk(tensor({4, 2, 4, 1}), 2, 0, false);
  CHECK(test::identical(low.values, tensor({1, 2})));
  CHECK_THROWS_WITH_AS(topk(x, 5, 1), doctest::Contains("topk: k = 5 is out of range for dimension 1 of size 4"), ValueError);
  // No elements, as torch: the shapes with k along dim, and nothing read (a fuzzer finding).
  CHECK(topk(zeros({2, 0, 3}), 0, 1).values.shape() == Shape{2, 0, 3});
  CHECK(topk(zeros({0, 3}), 2, 1).indices.shape() == Shape{0, 2});
  CHECK(topk(zeros({3, 2}), 0, 1).values.shape() == Shape{3, 0});
}

TEST_CASE("var divides by N - correction as torch 1.13: correction 1 (unbiased, the default) or 0, and a bool means the same") {
  const Tensor x = tensor({1, 2, 3, 4});
  CHECK(var(x).item() == doctest::Approx(5.0 / 3).epsilon(1e-15));
  CHECK(var(x, {}, 0).item() == 1.25);
  CHECK(var(x, {}, false).item() == 1.25);
  CHECK(var(x, {}, true).item() == var(x).item());
  CHECK(litgrad::std(x, {}, 0).item() == std::sqrt(1.25));
  CHECK(std::isnan(var(tensor({7})).item()));  // N - 1 = 0, as torch
}

TEST_CASE("norm's gradient at the zero vector is 0, as torch's, not NaN") {
  const Tensor x = zeros({3}).requires_grad_();
  const Tensor n = norm(x);
  CHECK(n.item() == 0.0);
  n.backward();
  CHECK(test::identical(x.grad(), zeros({3})));
  CHECK(norm(tensor({3, -4})).item() == 5.0);
  CHECK(norm(tensor({3, -4}), 1).item() == 7.0);
  CHECK(norm(tensor({3, -4}), INFINITY).item() == 4.0);
}

TEST_CASE("logsumexp, the losses and softmax stay exact and finite for scores of +-1000: shifting the scores changes nothing") {
  // Every score and shift below is a small integer or half-integer, exact in double precision,
  // so the shifted scores have the same differences from their maximum, and the same bits.
  const Tensor scores = tensor({{1000, 999, -1000}, {-999.5, -1000, -1001}});
  const Tensor shift = tensor({-1000, 1000}, {2, 1});
  const Tensor target = tensor({0, 2}, {2}, DType::Int64);
  CHECK(logsumexp(scores, 1).at({0}) == 1000 + std::log1p(std::exp(-1.0) + std::exp(-2000.0)));
  CHECK(test::identical(logsumexp(scores + shift, 1) - tensor({-1000, 1000}), logsumexp(scores, 1)));
  CHECK(test::identical(softmax(scores + shift, 1), softmax(scores, 1)));
  CrossEntropyOptions smooth;
  smooth.label_smoothing = 0.1, smooth.reduction = Reduction::None;
  CHECK(test::identical(cross_entropy(scores + shift, target, smooth), cross_entropy(scores, target, smooth)));
  const Tensor probs = tensor({{0.5, 0.25, 0.25}, {0, 0, 1}});
  CHECK(test::identical(cross_entropy(scores + shift, probs, Reduction::None), cross_entropy(scores, probs, Reduction::None)));
  for (double v : cross_entropy(scores, target, smooth).to_vector()) CHECK(std::isfinite(v));
  CHECK(test::identical(nll_loss(log_softmax(scores, 1), target), nll_loss(log_softmax(scores + shift, 1), target)));
  // max(x, 0) - x t + log(1 + e^-|x|) at ±1000: e^-1000 is 0 in double, so the loss is exact.
  const Tensor bce = binary_cross_entropy_with_logits(tensor({1000, -1000, 1000}), tensor({1, 1, 0}), Reduction::None);
  CHECK(test::identical(bce, tensor({0, 1000, 1000})));
  CHECK(logsumexp(full({3}, -INFINITY), 0).item() == -INFINITY);
}

TEST_CASE("cross_entropy leaves ignored rows out of its mean, and is NaN when every row is ignored, as torch") {
  const Tensor scores = tensor({{1, 2, 3}, {0, 0, 0}, {3, 2, 1}});
  CrossEntropyOptions o;
  o.ignore_index = 1;
  const Tensor target = tensor({2, 1, 0}, {3}, DType::Int64);
  const double kept = cross_entropy(slice(scores, 0, 0, 1), tensor({2}, {1}, DType::Int64)).item();
  CHECK(cross_entropy(scores, target, o).item() == doctest::Approx(kept).epsilon(1e-15));
  o.reduction = Reduction::None;
  CHECK(cross_entropy(scores, target, o).at({1}) == 0.0);
  o.reduction = Reduction::Mean;
  CHECK(std::isnan(cross_entropy(scores, tensor({1, 1, 1}, {3}, DType::Int64), o).item()));
}

TEST_CASE("multinomial draws the same indices from the same seed, never a zero weight, and without replacement never twice") {
  const Tensor w = tensor({0.1, 0, 0.6, 0.3});
  Generator a(5), b(5);
  const Tensor da = multinomial(w, 1000, true, a), db = multinomial(w, 1000, true, b);
  CHECK(test::identical(da, db));
  std::int64_t counts[4] = {0, 0, 0, 0};
  for (double v : da.to_vector()) ++counts[static_cast<int>(v)];
  CHECK(counts[1] == 0);
  // 600 expected for index 2, standard deviation sqrt(1000 · 0.6 · 0.4) ≈ 15.5: five of them.
  CHECK(std::abs(counts[2] - 600) < 78);
  Generator c(6);
  const Tensor once = multinomial(w, 3, false, c);
  CHECK(std::set<double>{once.at({0}), once.at({1}), once.at({2})}.size() == 3);
  CHECK_THROWS_WITH_AS(multinomial(w, 4, false, c),
                       "multinomial: cannot draw 4 samples without replacement from 3 categories with weight", ValueError);
  CHECK(multinomial(tensor({{1, 0}, {0, 1}}), 2, true, c).shape() == Shape{2, 2});
}

TEST_CASE("chunk, split, tril, triu, clamp, expand and repeat do what torch's namesakes do") {
  const Tensor x = arange(7);
  const auto pieces = chunk(x, 3);
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].numel() == 3);
  CHECK(pieces[2].numel() == 1);
  CHECK(split(x, 4).size() == 2);
  CHECK(split(x, std::vector<std::int64_t>{1, 6})[1].at({0}) == 1.0);
  CHECK_THROWS_AS(split(x, std::vector<std::int64_t>{1, 2}), ShapeError);
  const Tensor m = tensor({{NAN, NAN}, {NAN, NAN}});
  CHECK(tril(m).at({0, 1}) == 0.0);  // exactly 0 above the diagonal, whatever was there
  CHECK(std::isnan(tril(m).at({0, 0})));
  CHECK(triu(m).at({1, 0}) == 0.0);
  CHECK(test::identical(clamp(tensor({-2, 0.5, 3}), -1, 1), tensor({-1, 0.5, 1})));
  CHECK(std::isnan(clamp(tensor({NAN}), 0).at({0})));
  CHECK(test::identical(expand(tensor({1, 2}, {2, 1}), {2, 3}), tensor({{1, 1, 1}, {2, 2, 2}})));
  CHECK(test::identical(repeat(tensor({1, 2}), {2, 2}), tensor({{1, 2, 1, 2}, {1, 2, 1, 2}})));
  CHECK_THROWS_AS(expand(tensor({1, 2}), {3}), ShapeError);
}

TEST_CASE("the member forms are the free functions, bit for bit, and comparisons with numbers give Bool tensors") {
  Generator gen(7);
  const Tensor x = randn({3, 4}, gen), w = randn({4, 2}, gen);
  CHECK(test::identical(x.sum(), sum(x)));
  CHECK(test::identical(x.mean({1}, true), mean(x, {1}, true)));
  CHECK(test::identical(x.reshape({2, -1}), reshape(x, {2, -1})));
  CHECK(test::identical(x.transpose(0, 1), transpose(x, 0, 1)));
  CHECK(test::identical(x.matmul(w).softmax(-1), softmax(matmul(x, w), -1)));
  CHECK(test::identical(x.exp().log(), log(exp(x))));
  CHECK(test::identical(x.abs().sqrt(), sqrt(abs(x))));
  CHECK(x.argmax(1).dtype() == DType::Int64);
  const Tensor positive = x > 0.0;
  CHECK(positive.dtype() == DType::Bool);
  CHECK(test::identical(positive, gt(x, scalar_tensor(0))));
  CHECK(test::identical(x <= 0.5, le(x, scalar_tensor(0.5))));
  CHECK(test::identical(x == 0.0, eq(x, scalar_tensor(0))));
}

TEST_CASE("reading the gradient of a tensor that is not a leaf says why it has none") {
  const Tensor a = ones({2}).requires_grad_();
  const Tensor b = a * 2.0;
  sum(b).backward();
  CHECK_THROWS_WITH_AS(b.grad(), doctest::Contains("grad: this tensor was made by mul, so it is not a leaf"), AutogradError);
  CHECK(a.grad().defined());
}

TEST_CASE("LambdaLR scales the base rate by its factor at each step, and cosine_with_warmup rises, then falls to its floor") {
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
  CHECK(rates[4] == 0.01);   // the top, where the cosine starts
  CHECK(rates[8] == doctest::Approx(0.01 * (0.1 + 0.9 * 0.5)).epsilon(1e-15));  // halfway down
  CHECK(rates[12] == doctest::Approx(0.001).epsilon(1e-15));
  CHECK(rates[14] == rates[12]);  // stays at the floor
  CHECK(schedule.get_last_lr() == rates[14]);
  CHECK_THROWS_AS(optim::lr_scheduler::cosine_with_warmup(5, 5), ValueError);
}
