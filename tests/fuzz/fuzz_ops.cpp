// libFuzzer target: builds random graphs of litgrad operations from the fuzzer's bytes, with
// any shapes (zero sizes included), any dimensions (out of range included), NaN and infinity
// in the data, and backward() at the end. The only exceptions allowed out of litgrad are its
// own (all std::logic_error); anything else, a crash, or a sanitizer report is a finding.
// Built and run by tools/fuzz (clang, -fsanitize=fuzzer,address,undefined).

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

Shape any_shape(FuzzedDataProvider& in) {
  Shape s(in.ConsumeIntegralInRange<std::size_t>(0, 4));
  for (auto& d : s) d = in.ConsumeIntegralInRange<std::int64_t>(0, 4);
  return s;
}

double any_value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return 0.0;
    default: return in.ConsumeFloatingPointInRange<double>(-4, 4);
  }
}

Tensor any_tensor(FuzzedDataProvider& in, DType dtype = DType::Float64) {
  const Shape s = any_shape(in);
  std::vector<double> v(static_cast<std::size_t>(numel(s)));
  for (auto& x : v) x = dtype == DType::Float64 ? any_value(in) : dtype == DType::Bool ? in.ConsumeBool() : in.ConsumeIntegralInRange<int>(-1, 4);
  Tensor t = tensor(v, s, dtype);
  if (dtype == DType::Float64 && in.ConsumeBool()) t.requires_grad_();
  return t;
}

std::int64_t any_dim(FuzzedDataProvider& in) { return in.ConsumeIntegralInRange<std::int64_t>(-5, 5); }

// A tensor big enough for the matrix product's GEMM paths (its blocks, zero-skipping and bias):
// normal numbers from a seed the fuzzer picks, some zeros, NaNs or infinities where it says.
Tensor big_tensor(FuzzedDataProvider& in, const Shape& s) {
  Generator gen(in.ConsumeIntegral<std::uint16_t>());
  Tensor t = randn(s, gen);
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 3); i < n && t.numel() > 0; ++i)
    t.data()[in.ConsumeIntegralInRange<std::int64_t>(0, t.numel() - 1)] = any_value(in);
  if (in.ConsumeBool()) t.requires_grad_();
  return t;
}

// Attention over up to 70 positions under a causal float mask, as a Linear-projected model
// makes it: the fused weights' skipped scores and the products' skipped zero terms.
Tensor big_attention(FuzzedDataProvider& in) {
  const std::int64_t N = in.ConsumeIntegralInRange<std::int64_t>(0, 2), L = in.ConsumeIntegralInRange<std::int64_t>(0, 70),
                     S = in.ConsumeBool() ? L : in.ConsumeIntegralInRange<std::int64_t>(0, 70),
                     E = in.ConsumeIntegralInRange<std::int64_t>(0, 20);
  const Tensor x = big_tensor(in, {N, L, E}), w = big_tensor(in, {E, E}), bias = big_tensor(in, {E});
  const Tensor q = nn::linear(x, w, bias), k = big_tensor(in, {N, S, E}), v = big_tensor(in, {N, S, E});
  const Tensor mask = masked_fill(zeros({L, S}), gt(reshape(arange(S), {1, S}), reshape(arange(L), {L, 1})), -INFINITY);
  return scaled_dot_product_attention(q, k, v, mask, in.ConsumeBool() ? 0.25 : 0.0).output;
}

Tensor step(FuzzedDataProvider& in, const std::vector<Tensor>& pool) {
  const Tensor& a = pool[in.ConsumeIntegralInRange<std::size_t>(0, pool.size() - 1)];
  const Tensor& b = pool[in.ConsumeIntegralInRange<std::size_t>(0, pool.size() - 1)];
  switch (in.ConsumeIntegralInRange<int>(0, 33)) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return matmul(a, b);
    case 5: return softmax(a, any_dim(in));
    case 6: return log_softmax(a, any_dim(in));
    case 7: return sum(a, {any_dim(in)}, in.ConsumeBool());
    case 8: return mean(a, {any_dim(in), any_dim(in)}, in.ConsumeBool());
    case 9: return max(a, any_dim(in), in.ConsumeBool()).values;
    case 10: return reshape(a, any_shape(in));
    case 11: return permute(a, {any_dim(in), any_dim(in), any_dim(in)});
    case 12: return transpose(a, any_dim(in), any_dim(in));
    case 13: return select(a, any_dim(in), in.ConsumeIntegralInRange<std::int64_t>(-5, 5));
    case 14: return slice(a, any_dim(in), in.ConsumeIntegralInRange<std::int64_t>(-5, 5),
                          in.ConsumeIntegralInRange<std::int64_t>(-5, 5), in.ConsumeIntegralInRange<std::int64_t>(-1, 3));
    case 15: return gather(a, any_dim(in), any_tensor(in, DType::Int64));
    case 16: return cat({a, b}, any_dim(in));
    case 17: return stack({a, b}, any_dim(in));
    case 18: return where(gt(a, scalar_tensor(0)), a, b);
    case 19: return masked_fill(a, any_tensor(in, DType::Bool), any_value(in));
    case 20: return exp(a) + log(abs(b));
    case 21: return tanh(a) * sigmoid(b) + relu(a);
    case 22: return pow(a, in.ConsumeFloatingPointInRange<double>(-3, 3));
    case 23: return mse_loss(a, b);
    case 24: return cross_entropy(a, any_tensor(in, DType::Int64));
    case 25: return scaled_dot_product_attention(a, b, b, in.ConsumeBool() ? any_tensor(in, DType::Bool) : Tensor()).output;
    case 26: return dropout(a, in.ConsumeFloatingPointInRange<double>(-0.5, 1.5));
    case 27: return max(a);
    case 28: return sin(a) + cos(b);
    case 29: return unsqueeze(squeeze(a, any_dim(in)), any_dim(in));
    case 30: return sum(a);
    case 31: return big_attention(in);
    case 32: return nn::linear(a, b, pool[in.ConsumeIntegralInRange<std::size_t>(0, pool.size() - 1)]);
    default: return nn::linear(a, b);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<Tensor> pool;
  try {
    pool.push_back(any_tensor(in));
    pool.push_back(any_tensor(in));
  } catch (const std::logic_error&) {
    return 0;
  }
  for (int i = 0; i < 12 && in.remaining_bytes() > 0; ++i) {
    try {
      pool.push_back(step(in, pool));
    } catch (const std::logic_error&) {
      // litgrad refused the input, as it should when the input is wrong
    }
  }
  for (const Tensor& t : pool) {
    try {
      if (t.requires_grad()) sum(t).backward();
    } catch (const std::logic_error&) {
    }
  }
  return 0;
}
