// Compiled, like all of litgrad, with -ffp-contract=off (see CMakeLists.txt): a fused
// multiply-add would round differently from a multiply and an add, and the numbers here must
// not depend on the CPU.

#include "litgrad/core/random.hpp"

#include <algorithm>
#include <vector>

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"

namespace litgrad {

namespace {
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

void Generator::manual_seed(std::uint64_t seed) {
  // SplitMix64 spreads one seed over the four words of state (never all zero).
  for (auto& word : state_) {
    std::uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    word = z ^ (z >> 31);
  }
  spare_normal_.reset();
}

std::uint64_t Generator::next_u64() {  // xoshiro256**
  auto& s = state_;
  const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
  const std::uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

StateDict Generator::state_dict() const {
  std::vector<double> halves;
  for (std::uint64_t word : state_) {
    halves.push_back(static_cast<double>(word >> 32));
    halves.push_back(static_cast<double>(word & 0xffffffffULL));
  }
  StateDict dict;
  dict.insert("state", tensor(std::move(halves), {8}, DType::Int64));
  dict.insert("spare_normal", spare_normal_ ? tensor({*spare_normal_}, {1}) : zeros({0}));
  return dict;
}

void Generator::load_state_dict(const StateDict& dict) {
  IncompatibleKeys keys;
  for (const char* key : {"state", "spare_normal"})
    if (!dict.contains(key)) keys.missing_keys.push_back(key);
  for (const auto& [key, value] : dict)
    if (key != "state" && key != "spare_normal") keys.unexpected_keys.push_back(key);
  detail::check_keys("Generator", keys);
  detail::check_entry("Generator", "state", dict.at("state"), {8}, DType::Int64);
  const Tensor& spare = dict.at("spare_normal");
  if (spare.numel() != 0)
    detail::check_entry("Generator", "spare_normal", spare, {1}, DType::Float64);
  else
    detail::check_entry("Generator", "spare_normal", spare, {0}, DType::Float64);
  std::uint64_t words[4];
  for (int i = 0; i < 4; ++i) {
    std::uint64_t halves[2];
    for (int h = 0; h < 2; ++h) {
      const double v = dict.at("state").data()[2 * i + h];
      if (!(v >= 0 && v < 0x1p32 && v == std::floor(v)))
        throw ValueError("Generator.load_state_dict: state[", 2 * i + h, "] is ", v,
                         ", not a whole number in [0, 2^32)");
      halves[h] = static_cast<std::uint64_t>(v);
    }
    words[i] = halves[0] << 32 | halves[1];
  }
  if ((words[0] | words[1] | words[2] | words[3]) == 0)
    throw ValueError("Generator.load_state_dict: the state is all zeros, from which xoshiro256** never leaves");
  std::copy(words, words + 4, state_);
  if (spare.numel() != 0)
    spare_normal_ = spare.item();
  else
    spare_normal_.reset();
}

double Generator::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Generator::normal() {
  if (spare_normal_) {
    const double z = *spare_normal_;
    spare_normal_.reset();
    return z;
  }
  // Marsaglia's polar method: a point uniform in the unit disc, pushed radially so that both
  // coordinates become independent standard normals.
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * detail::portable_log(s) / s);  // sqrt is exactly rounded by IEEE 754
  spare_normal_ = v * factor;
  return u * factor;
}

std::int64_t Generator::randint(std::int64_t low, std::int64_t high) {
  if (low >= high) throw ValueError("randint: empty range [", low, ", ", high, ")");
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % range;  // reject the biased tail
  std::uint64_t x;
  do x = next_u64();
  while (x >= limit);
  return low + static_cast<std::int64_t>(x % range);
}

Generator& default_generator() {
  static Generator gen(0);
  return gen;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

namespace {
template <class F>
Tensor fill(const char* op, const Shape& shape, DType dtype, F next) {
  detail::check_sizes(op, shape);
  Tensor t = detail::empty_tensor(shape, dtype);
  double* v = t.data();
  const std::int64_t n = t.numel();
  for (std::int64_t i = 0; i < n; ++i) v[i] = next();
  return t;
}
}  // namespace

Tensor rand(const Shape& shape, Generator& gen) {
  return fill("rand", shape, DType::Float64, [&] { return gen.uniform(); });
}

Tensor randn(const Shape& shape, Generator& gen) {
  return fill("randn", shape, DType::Float64, [&] { return gen.normal(); });
}

Tensor uniform(const Shape& shape, double low, double high, Generator& gen) {
  if (!(low < high) || !std::isfinite(high - low))
    throw ValueError("uniform: need finite low < high, got [", low, ", ", high, ")");
  return fill("uniform", shape, DType::Float64, [&] { return low + (high - low) * gen.uniform(); });
}

Tensor randint(std::int64_t low, std::int64_t high, const Shape& shape, Generator& gen) {
  return fill("randint", shape, DType::Int64, [&] { return static_cast<double>(gen.randint(low, high)); });
}

Tensor randperm(std::int64_t n, Generator& gen) {
  if (n < 0) throw ValueError("randperm: n must be non-negative, got ", n);
  Tensor p = detail::empty_tensor({n}, DType::Int64);
  double* v = p.data();
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  for (std::int64_t i = n - 1; i > 0; --i) std::swap(v[i], v[gen.randint(0, i + 1)]);
  return p;
}

// input: [C] or [N, C] weights; result: [num_samples] or [N, num_samples], Int64.
Tensor multinomial(const Tensor& input, std::int64_t num_samples, bool replacement, Generator& gen) {
  if (input.dim() != 1 && input.dim() != 2)
    throw ShapeError("multinomial: input must be [C] or [N, C], got shape ", input.shape());
  const std::int64_t rows = input.dim() == 1 ? 1 : input.size(0), C = input.size(-1);
  if (num_samples < 0) throw ValueError("multinomial: num_samples must be non-negative, got ", num_samples);
  Tensor out = detail::empty_tensor(input.dim() == 1 ? Shape{num_samples} : Shape{rows, num_samples}, DType::Int64);
  std::vector<double> w(static_cast<std::size_t>(C));
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t positive = 0;
    for (std::int64_t c = 0; c < C; ++c) {
      const double v = input.data()[r * C + c];
      if (!(v >= 0) || !std::isfinite(v))
        throw ValueError("multinomial: weights must be finite and non-negative, got ", v, " in row ", r);
      w[static_cast<std::size_t>(c)] = v;
      positive += v > 0;
    }
    if (positive == 0) throw ValueError("multinomial: row ", r, " has no positive weight");
    if (!replacement && num_samples > positive)
      throw ValueError("multinomial: cannot draw ", num_samples, " samples without replacement from ", positive,
                       " categories with weight");
    for (std::int64_t k = 0; k < num_samples; ++k) {
      double total = 0;
      for (double v : w) total += v;
      const double u = gen.uniform() * total;
      double running = 0;
      std::int64_t pick = -1, last = -1;
      for (std::int64_t c = 0; c < C && pick < 0; ++c) {
        running += w[static_cast<std::size_t>(c)];
        if (w[static_cast<std::size_t>(c)] > 0) last = c;
        if (running > u && w[static_cast<std::size_t>(c)] > 0) pick = c;
      }
      if (pick < 0) pick = last;  // u within rounding of the total: the last category with weight
      out.data()[r * num_samples + k] = static_cast<double>(pick);
      if (!replacement) w[static_cast<std::size_t>(pick)] = 0;
    }
  }
  return out;
}

namespace detail {

double portable_log(double x) {
  if (!(x > 0) || !std::isfinite(x)) throw ValueError("portable_log: needs a positive finite number, got ", x);
  // x = m 2^e exactly (frexp only moves the exponent), with m brought into [sqrt(1/2), sqrt(2)).
  int e;
  double m = std::frexp(x, &e);
  if (m < 0.70710678118654752440) {
    m *= 2;
    e -= 1;
  }
  // log m = 2 atanh(s) = 2 (s + s³/3 + s⁵/5 + ...), s = (m-1)/(m+1), |s| < 0.1716, so s² < 0.0295
  // and 14 terms leave a remainder below 0.0295^14 / 29 < 1e-22 relative to s.
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double series = 0;
  for (int k = 27; k >= 1; k -= 2) series = series * s2 + 1.0 / k;
  // ln 2 split as in fdlibm: hi has trailing zero bits, so e * hi is exact for any exponent e.
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  return e * ln2_hi + (2 * s * series + e * ln2_lo);
}

}  // namespace detail

}  // namespace litgrad
