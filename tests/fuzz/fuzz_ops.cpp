// libFuzzer target: builds random graphs of litgrad operations from the fuzzer's bytes, with
// any shapes (zero sizes included), any dimensions (out of range included), NaN and infinity
// in the data, and backward() at the end. It draws every public operation: the elementwise,
// reduction, reshaping, indexing and loss functions, attention, sampling and random draws,
// the in-place methods under the version check, autograd::grad with and without create_graph,
// the nn modules, and the loaders (nn::load, a StateDict, a BPE tokenizer) on saved files
// with the fuzzer's bytes written over them. The only exceptions allowed out of litgrad are
// its own (all std::logic_error); anything else, a crash, or a sanitizer report is a finding.
// Built and run by tools/fuzz (clang, -fsanitize=fuzzer,address,undefined). It reads its bytes
// with bytes.hpp rather than libFuzzer's FuzzedDataProvider, so that tests/test_fuzz_reach.cpp
// can run it on fixed bytes in the normal build and hold its graphs to the library's table of
// operations (ops/registry.hpp): every operation must be reached.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <litgrad/litgrad.hpp>

#include "bytes.hpp"
#include "fuzz_ops.hpp"

using namespace litgrad;
using FuzzedDataProvider = litgrad_fuzz::Bytes;

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
  for (auto& x : v)
    x = dtype == DType::Float64 ? any_value(in)
        : dtype == DType::Bool  ? in.ConsumeBool()
                                : in.ConsumeIntegralInRange<int>(-1, 4);
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
  const std::int64_t N = in.ConsumeIntegralInRange<std::int64_t>(0, 2),
                     L = in.ConsumeIntegralInRange<std::int64_t>(0, 70),
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
  switch (in.ConsumeIntegralInRange<int>(0, 63)) {
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
    case 14:
      return slice(a, any_dim(in), in.ConsumeIntegralInRange<std::int64_t>(-5, 5),
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
    case 25:
      return scaled_dot_product_attention(a, b, b, in.ConsumeBool() ? any_tensor(in, DType::Bool) : Tensor()).output;
    case 26: return dropout(a, in.ConsumeFloatingPointInRange<double>(-0.5, 1.5));
    case 27: return max(a);
    case 28: return sin(a) + cos(b);
    case 29: return unsqueeze(squeeze(a, any_dim(in)), any_dim(in));
    case 30: return sum(a);
    case 31: return big_attention(in);
    case 32: return nn::linear(a, b, pool[in.ConsumeIntegralInRange<std::size_t>(0, pool.size() - 1)]);
    case 33: return nn::linear(a, b);
    case 34:
      return nn::layer_norm(a, any_shape(in), in.ConsumeBool() ? b : Tensor(), Tensor(),
                            in.ConsumeFloatingPointInRange<double>(-1e-3, 1e-3));
    case 35:
      return nn::embedding(any_tensor(in, DType::Int64), a,
                           in.ConsumeBool() ? std::optional<std::int64_t>(any_dim(in)) : std::nullopt);
    case 36: return index_select(a, any_dim(in), any_tensor(in, DType::Int64));
    case 37: return logsumexp(a, any_dim(in), in.ConsumeBool());
    case 38: return var(a, {any_dim(in)}, in.ConsumeIntegralInRange<std::int64_t>(-1, 2), in.ConsumeBool());
    case 39: return litgrad::std(a, {}, in.ConsumeIntegralInRange<std::int64_t>(-1, 2));
    case 40:
      return clamp(a, in.ConsumeBool() ? std::optional<double>(any_value(in)) : std::nullopt,
                   in.ConsumeBool() ? std::optional<double>(any_value(in)) : std::nullopt);
    case 41: return expand(a, any_shape(in));
    case 42: return repeat(a, {any_dim(in), any_dim(in), any_dim(in)});
    case 43: {
      const MaxResult t =
          topk(a, in.ConsumeIntegralInRange<std::int64_t>(-1, 5), any_dim(in), in.ConsumeBool(), in.ConsumeBool());
      return t.values + t.indices;
    }
    case 44: {
      Generator gen(in.ConsumeIntegral<std::uint8_t>());
      return multinomial(a, in.ConsumeIntegralInRange<std::int64_t>(-1, 6), in.ConsumeBool(), gen);
    }
    case 45: return gelu(a, in.ConsumeBool() ? "tanh" : in.ConsumeBool() ? "none" : "other");
    case 46: return norm(a, in.ConsumeFloatingPointInRange<double>(-1, 3), {any_dim(in)}, in.ConsumeBool());
    case 47: return min(a, any_dim(in), in.ConsumeBool()).values + argmax(b, any_dim(in), in.ConsumeBool());
    case 48: return flatten(a, any_dim(in), any_dim(in)) * sqrt(abs(b)) - neg(a);
    case 49: return nll_loss(a, any_tensor(in, DType::Int64), in.ConsumeIntegralInRange<std::int64_t>(-101, 3));
    case 50: return binary_cross_entropy_with_logits(a, b);
    case 51: return one_hot(any_tensor(in, DType::Int64), in.ConsumeIntegralInRange<std::int64_t>(-2, 5));
    case 52: return tril(a, any_dim(in)) + triu(b, any_dim(in));
    case 53: return top_k_filter(a, in.ConsumeIntegralInRange<std::int64_t>(-1, 5));
    case 54: return top_p_filter(a, in.ConsumeFloatingPointInRange<double>(-0.5, 1.5));
    case 55: {
      SamplingOptions o;
      o.temperature = in.ConsumeBool() ? any_value(in) : 1.0;
      o.top_k = in.ConsumeIntegralInRange<std::int64_t>(-1, 5);
      o.top_p = in.ConsumeFloatingPointInRange<double>(-0.5, 1.5);
      Generator gen(in.ConsumeIntegral<std::uint8_t>());
      return sample(a, o, gen);
    }
    case 56: return where(logical_and(ge(a, b), logical_not(eq(a, b))), a, b) + where(le(a, b), a, b);
    case 57: return eq(a, b) + ne(a, b) + lt(a, b) + logical_or(gt(a, b), le(a, b));
    case 58: return to(a, in.ConsumeBool() ? DType::Int64 : in.ConsumeBool() ? DType::Bool : DType::Float64);
    case 59: return a.clone() * b.detach();
    case 61: {  // a Linear layer's product, its weight fitting a's last dimension
      const std::int64_t out = in.ConsumeIntegralInRange<std::int64_t>(0, 4), features = a.dim() > 0 ? a.size(-1) : 1;
      return nn::linear(a, big_tensor(in, {out, features}), in.ConsumeBool() ? big_tensor(in, {out}) : Tensor());
    }
    case 62: {  // the gradient of a selection, recorded (create_graph): the selections undone
      const Tensor x = a.detach().requires_grad_();
      Tensor picked;
      switch (in.ConsumeIntegralInRange<int>(0, 2)) {
        case 0:
          picked = slice(x, any_dim(in), in.ConsumeIntegralInRange<std::int64_t>(-3, 3),
                         in.ConsumeIntegralInRange<std::int64_t>(-3, 5), in.ConsumeIntegralInRange<std::int64_t>(1, 3));
          break;
        case 1: picked = gather(x, any_dim(in), any_tensor(in, DType::Int64)); break;
        default: picked = index_select(x, any_dim(in), any_tensor(in, DType::Int64)); break;
      }
      return autograd::grad({sum(picked * picked)}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    }
    case 63: return pow(in.ConsumeBool() ? abs(a) : a, b);  // a tensor exponent, negative bases too
    default:
      return sinusoidal_positional_encoding(in.ConsumeIntegralInRange<std::int64_t>(-1, 9),
                                            in.ConsumeIntegralInRange<std::int64_t>(-1, 9));
  }
}

// The in-place methods on a copy of a pool tensor, sometimes after the copy was used in a
// recorded operation: backward must then refuse (the version check), never compute with the
// changed numbers.
Tensor in_place(FuzzedDataProvider& in, const Tensor& a, const Tensor& b) {
  Tensor t = a.clone();
  Tensor used = t * t;  // saves t for its backward
  NoGradGuard guard;
  switch (in.ConsumeIntegralInRange<int>(0, 10)) {
    case 0: t.add_(b, any_value(in)); break;
    case 1: t.sub_(b); break;
    case 2: t.mul_(b); break;
    case 3: t.div_(b); break;
    case 4: t.masked_fill_(any_tensor(in, DType::Bool), any_value(in)); break;
    case 5: t.copy_(b); break;
    case 6: t.fill_(any_value(in)); break;
    case 7: t.zero_(); break;
    case 8: t.add_(any_value(in)); break;
    case 9: t.mul_(any_value(in)); break;
    default: t.div_(any_value(in)); break;
  }
  return used;
}

// autograd::grad over a graph the fuzzer built, with create_graph sometimes and then a second
// derivative through the first.
void gradients(FuzzedDataProvider& in, std::vector<Tensor>& pool) {
  const Tensor out = pool[in.ConsumeIntegralInRange<std::size_t>(0, pool.size() - 1)];
  const Tensor x = pool[in.ConsumeIntegralInRange<std::size_t>(0, 1)];  // a leaf
  const bool create = in.ConsumeBool();
  const std::vector<Tensor> g = autograd::grad({sum(out)}, {x}, {}, true, create, in.ConsumeBool());
  if (create && !g.empty() && g[0].defined() && g[0].requires_grad()) {
    pool.push_back(g[0]);  // its graph: the backward written with operations
    autograd::grad({sum(g[0] * g[0])}, {x}, {}, std::nullopt, false, true);
  }
}

// A module's forward on an input of any shape, then backward.
void modules(FuzzedDataProvider& in, const Tensor& a) {
  const std::int64_t e = in.ConsumeIntegralInRange<std::int64_t>(0, 4) * 2;  // heads 1 or 2 divide it
  Generator gen(in.ConsumeIntegral<std::uint8_t>());
  Tensor y;
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: y = nn::Linear(in.ConsumeIntegralInRange<std::int64_t>(0, 4), e, in.ConsumeBool(), gen)(a); break;
    case 1: y = nn::LayerNorm(e, in.ConsumeFloatingPointInRange<double>(0, 1e-3), in.ConsumeBool())(a); break;
    case 2:
      y = nn::Embedding(in.ConsumeIntegralInRange<std::int64_t>(1, 5), e + 1, std::nullopt, gen)(to(a, DType::Int64));
      break;
    case 3: {
      nn::MultiheadAttentionOptions o;
      o.batch_first = in.ConsumeBool();
      o.add_bias_kv = in.ConsumeBool();
      o.add_zero_attn = in.ConsumeBool();
      nn::MultiheadAttention mha(std::max<std::int64_t>(e, 2), in.ConsumeBool() ? 2 : 1, o, gen);
      y = mha(a, a, a, Tensor(), in.ConsumeBool(), in.ConsumeBool() ? any_tensor(in, DType::Bool) : Tensor(), true,
              in.ConsumeBool())
              .output;
      break;
    }
    default: {
      nn::TransformerEncoderLayer layer(std::max<std::int64_t>(e, 2), in.ConsumeBool() ? 2 : 1, {}, gen);
      if (in.ConsumeBool()) layer.eval();
      y = layer(a, in.ConsumeBool() ? any_tensor(in) : Tensor(), Tensor(), in.ConsumeBool());
      break;
    }
  }
  if (y.requires_grad()) sum(y).backward();
}

// Writes bytes over a saved file (or cuts it short), and loads it back: each loader either
// loads or throws its own error.
void load_changed(FuzzedDataProvider& in) {
  // In the system's temporary folder, one file a process (the fuzzer may run several).
  const std::string path =
      (std::filesystem::temp_directory_path() / ("litgrad-fuzz-" + std::to_string(::getpid()) + ".tmp")).string();
  struct RemovedAtTheEnd {
    const std::string& path;
    ~RemovedAtTheEnd() { std::remove(path.c_str()); }
  } removed{path};
  std::string text;
  // 0: nn::save; 1 and 3: a state_dict in text and in binary; 2: a tokenizer.
  const int kind = in.ConsumeIntegralInRange<int>(0, 3);
  Generator gen(1);
  nn::Linear saved(2, 3, true, gen);
  BPETokenizer tokenizer;
  if (kind == 0) {
    nn::save(saved, path);
  } else if (kind == 1 || kind == 3) {
    std::ostringstream os;
    save(saved.state_dict(), os, kind == 3 ? StateDictFormat::Binary : StateDictFormat::Text);
    std::ofstream(path) << os.str();
  } else {
    tokenizer.train("the cat sat on the mat, the cat ate", 262);
    tokenizer.add_special_token("<|endoftext|>");  // a version 3 file, with its special block
    tokenizer.save(path);
  }
  {
    std::ifstream f(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  for (int i = 0, n = in.ConsumeIntegralInRange<int>(0, 4); i < n && !text.empty(); ++i)
    text[in.ConsumeIntegralInRange<std::size_t>(0, text.size() - 1)] =
        static_cast<char>(in.ConsumeIntegral<std::uint8_t>());
  if (in.ConsumeBool() && !text.empty()) text.resize(in.ConsumeIntegralInRange<std::size_t>(0, text.size() - 1));
  if (in.ConsumeBool()) text += in.ConsumeBytesAsString(in.ConsumeIntegralInRange<std::size_t>(0, 8));
  std::ofstream(path, std::ios::binary) << text;
  if (kind == 0) {
    nn::Linear fresh(2, 3, true, gen);
    nn::load(fresh, path);
  } else if (kind == 1 || kind == 3) {
    nn::Linear fresh(2, 3, true, gen);
    fresh.load_state_dict(load(path), in.ConsumeBool());
  } else {
    BPETokenizer loaded;
    loaded.load(path);
    std::vector<std::int64_t> ids(in.ConsumeIntegralInRange<std::size_t>(0, 6));
    for (auto& id : ids) id = in.ConsumeIntegralInRange<std::int64_t>(-2, 300);
    loaded.decode(ids);
    loaded.encode(in.ConsumeBytesAsString(in.ConsumeIntegralInRange<std::size_t>(0, 16)), loaded.special_tokens());
  }
}

}  // namespace

std::vector<Tensor> litgrad_fuzz::run(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<Tensor> pool;
  try {
    pool.push_back(any_tensor(in));
    pool.push_back(any_tensor(in));
  } catch (const std::logic_error&) {
    return pool;
  }
  // The first byte picks what else runs besides the graph of operations.
  const int extra = in.ConsumeIntegralInRange<int>(0, 3);
  for (int i = 0; i < 12 && in.remaining_bytes() > 0; ++i) {
    try {
      // Results past 2^16 elements are dropped: chained repeats and expands would otherwise
      // grow without bound and exhaust the fuzzer's memory, which is no finding.
      const Tensor t = step(in, pool);
      if (t.numel() <= (1 << 16)) pool.push_back(t);
    } catch (const std::logic_error&) {
      // litgrad refused the input, as it should when the input is wrong
    }
  }
  try {
    if (extra == 1) pool.push_back(in_place(in, pool[0], pool[1]));
    if (extra == 2) modules(in, pool[in.ConsumeIntegralInRange<std::size_t>(0, pool.size() - 1)]);
    if (extra == 3) load_changed(in);
  } catch (const std::logic_error&) {
  }
  try {
    gradients(in, pool);
  } catch (const std::logic_error&) {
  }
  for (const Tensor& t : pool) {
    try {
      if (t.requires_grad()) sum(t).backward();
    } catch (const std::logic_error&) {
    }
  }
  return pool;
}

#ifdef LITGRAD_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  litgrad_fuzz::run(data, size);
  return 0;
}
#endif
