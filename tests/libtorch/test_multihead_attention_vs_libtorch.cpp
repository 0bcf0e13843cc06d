// nn::MultiheadAttention against libtorch's torch::nn::MultiheadAttention (Debian libtorch-dev,
// 1.13), in double precision, over many random configurations.
//
// The same weights are copied into both layers; outputs, attention weights and the gradients
// of one loss with respect to query, key, value and every parameter must agree to 1e-10
// relative to max(1, |value|). Both sides compute the same formulas in double; they differ only
// in the order of additions inside matrix products (a few dozen roundings of 1.1e-16), so
// 1e-10 leaves a margin of about 10^4 and still catches any change to the arithmetic.
//
// Only where libtorch 1.13 is right: no Bool attn_mask (it adds true as +1.0,
// pytorch/pytorch#80494), no batch_first, no unbatched input, no 3-D masks, kdim == vdim.
// Those are compared with Python torch in test_multihead_attention_vs_python.cpp.

#include <doctest/doctest.h>
#include <torch/torch.h>  // whose glog defines a CHECK that aborts: doctest's is DOCTEST_CHECK here

#include <litgrad/litgrad.hpp>

namespace lg = litgrad;

namespace {

torch::Tensor to_torch(const lg::Tensor& t) {
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  auto out = torch::from_blob(const_cast<double*>(t.data()), shape, torch::kDouble).clone();
  return t.dtype() == lg::DType::Bool ? out.to(torch::kBool) : out;
}

// The largest |a - b| / max(1, |b|), with NaN in the same places counted as equal.
double relative_error(const lg::Tensor& a, const torch::Tensor& b_in) {
  const torch::Tensor b = b_in.contiguous().to(torch::kDouble);
  DOCTEST_REQUIRE(a.numel() == b.numel());
  const double* bv = b.data_ptr<double>();
  double worst = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const double x = a.data()[i], y = bv[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (!(std::isnan(x) && std::isnan(y))) return INFINITY;
      continue;
    }
    worst = std::max(worst, std::fabs(x - y) / std::max(1.0, std::fabs(y)));
  }
  return worst;
}

struct Config {
  std::int64_t L, S, N, H, head_dim, kvdim;
  bool bias, add_bias_kv, add_zero_attn, average, float_mask, padding_mask, self_attention;
};

Config draw(lg::Generator& g) {
  Config c;
  c.L = g.randint(1, 6), c.N = g.randint(1, 4), c.H = g.randint(1, 4), c.head_dim = g.randint(1, 4);
  c.self_attention = g.uniform() < 0.25;
  c.S = c.self_attention ? c.L : g.randint(1, 6);
  c.kvdim = c.self_attention || g.uniform() < 0.5 ? c.H * c.head_dim : g.randint(1, 6);
  c.bias = g.uniform() < 0.7, c.add_bias_kv = g.uniform() < 0.3, c.add_zero_attn = g.uniform() < 0.3;
  c.average = g.uniform() < 0.5, c.float_mask = g.uniform() < 0.5, c.padding_mask = g.uniform() < 0.5;
  return c;
}

}  // namespace

TEST_CASE(
    "MultiheadAttention agrees with libtorch to 1e-10 in outputs, weights and every gradient over 60 random "
    "configurations") {
  torch::set_num_threads(1);
  lg::Generator g(2026);
  for (int trial = 0; trial < 60; ++trial) {
    const Config c = draw(g);
    const std::int64_t E = c.H * c.head_dim;
    DOCTEST_CAPTURE(trial);
    DOCTEST_CAPTURE(c.L);
    DOCTEST_CAPTURE(c.S);
    DOCTEST_CAPTURE(c.N);
    DOCTEST_CAPTURE(c.H);
    DOCTEST_CAPTURE(E);
    DOCTEST_CAPTURE(c.kvdim);
    DOCTEST_CAPTURE(c.bias);
    DOCTEST_CAPTURE(c.add_bias_kv);
    DOCTEST_CAPTURE(c.add_zero_attn);
    DOCTEST_CAPTURE(c.average);
    DOCTEST_CAPTURE(c.float_mask);
    DOCTEST_CAPTURE(c.padding_mask);
    DOCTEST_CAPTURE(c.self_attention);

    lg::nn::MultiheadAttentionOptions o;
    o.bias = c.bias, o.add_bias_kv = c.add_bias_kv, o.add_zero_attn = c.add_zero_attn, o.kdim = c.kvdim,
    o.vdim = c.kvdim;
    lg::nn::MultiheadAttention ours(E, c.H, o, g);
    torch::nn::MultiheadAttention theirs(torch::nn::MultiheadAttentionOptions(E, c.H)
                                             .bias(c.bias)
                                             .add_bias_kv(c.add_bias_kv)
                                             .add_zero_attn(c.add_zero_attn)
                                             .kdim(c.kvdim)
                                             .vdim(c.kvdim));
    theirs->to(torch::kDouble);

    // The same weights in both, matched by torch's parameter names.
    auto their_params = theirs->named_parameters();
    {
      torch::NoGradGuard no_grad;
      for (auto& [name, p] : ours.named_parameters()) {
        DOCTEST_CAPTURE(name);
        DOCTEST_REQUIRE(their_params.contains(name));
        their_params[name].copy_(to_torch(p).reshape(their_params[name].sizes()));
      }
    }
    DOCTEST_CHECK(their_params.size() == ours.named_parameters().size());

    // Inputs: sequence first [L, N, E]; a float mask with a few -inf (never a whole row) and a
    // padding mask that always leaves key 0 visible.
    const lg::Tensor query = lg::randn({c.L, c.N, E}, g).requires_grad_();
    const lg::Tensor key = c.self_attention ? query : lg::randn({c.S, c.N, c.kvdim}, g).requires_grad_();
    const lg::Tensor value = c.self_attention ? query : lg::randn({c.S, c.N, c.kvdim}, g).requires_grad_();
    lg::Tensor mask, padding;
    if (c.float_mask) {
      mask = lg::randn({c.L, c.S}, g);
      for (std::int64_t i = 0; i < c.L; ++i)
        for (std::int64_t j = 1; j < c.S; ++j)
          if (g.uniform() < 0.3) mask.data()[i * c.S + j] = -INFINITY;
    }
    if (c.padding_mask) {
      padding = lg::zeros({c.N, c.S});
      for (std::int64_t j = 1; j < c.N * c.S; ++j) padding.data()[j] = (j % c.S != 0) && g.uniform() < 0.4;
      padding = lg::to(padding, lg::DType::Bool);
    }
    const lg::Tensor out_weights = lg::randn({c.L, c.N, E}, g);  // the loss: sum(out * A) + sum(w * B)

    auto [out, w] = ours(query, key, value, padding, true, mask, c.average);
    const lg::Tensor w_weights = lg::randn(w.shape(), g);
    (lg::sum(out * out_weights) + lg::sum(w * w_weights)).backward();

    torch::Tensor tq = to_torch(query).requires_grad_();
    torch::Tensor tk = c.self_attention ? tq : to_torch(key).requires_grad_();
    torch::Tensor tv = c.self_attention ? tq : to_torch(value).requires_grad_();
    auto [tout, tw] = theirs->forward(tq, tk, tv, padding.defined() ? to_torch(padding) : torch::Tensor(), true,
                                      mask.defined() ? to_torch(mask) : torch::Tensor(), c.average);
    ((tout * to_torch(out_weights)).sum() + (tw * to_torch(w_weights)).sum()).backward();

    DOCTEST_CHECK(relative_error(out, tout) <= 1e-10);
    DOCTEST_CHECK(relative_error(w, tw) <= 1e-10);
    DOCTEST_CHECK(relative_error(query.grad(), tq.grad()) <= 1e-10);
    if (!c.self_attention) {
      DOCTEST_CHECK(relative_error(key.grad(), tk.grad()) <= 1e-10);
      DOCTEST_CHECK(relative_error(value.grad(), tv.grad()) <= 1e-10);
    }
    for (auto& [name, p] : ours.named_parameters()) {
      DOCTEST_CAPTURE(name);
      DOCTEST_CHECK(relative_error(p.grad(), their_params[name].grad()) <= 1e-10);
    }
  }
}
