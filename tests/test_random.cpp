// The generator: reproducible to the bit, and drawing from the distributions it promises.

#include <doctest/doctest.h>

#include <map>

#include <algorithm>
#include <cmath>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

TEST_CASE("the same seed gives bit-identical tensors, and another seed other tensors") {
  Generator a(123), b(123), c(124);
  const Tensor x = randn({50}, a), y = randn({50}, b), z = randn({50}, c);
  CHECK(test::identical(x, y));
  CHECK_FALSE(test::identical(x, z));
  a.manual_seed(123);
  CHECK(test::identical(randn({50}, a), x));
}

TEST_CASE("the sequence for seed 0 is pinned to the bit, so any platform that differs fails here") {
  // Recorded once from this implementation; every operation that makes them is exact in IEEE 754
  // (integer bit operations, a 53-bit scaling, + - * / and sqrt, no fused multiply-add).
  Generator u(0);
  CHECK(u.uniform() == 0x1.33d8be6d96ebep-1);
  CHECK(u.uniform() == 0x1.7edc3ef092ac8p-1);
  CHECK(u.uniform() == 0x1.a5f849d4933ep-4);
  Generator n(0);
  CHECK(n.normal() == 0x1.323a82a4bc9e5p-1);
  CHECK(n.normal() == 0x1.76a54f2c0effap+0);
  CHECK(n.normal() == -0x1.ca445408b789cp-1);
  CHECK(n.normal() == -0x1.81270d2ddbad6p-3);
  CHECK(Generator(42).next_u64() == 1546998764402558742ULL);
}

TEST_CASE("the portable logarithm is within 4 ulps of std::log over 120 binades") {
  Generator r(1);
  double worst = 0;
  for (int i = 0; i < 100000; ++i) {
    const double x = std::ldexp(0.5 + r.uniform(), static_cast<int>(r.randint(-60, 60)));
    const double exact = std::log(x), ulp = std::nextafter(std::fabs(exact), INFINITY) - std::fabs(exact);
    worst = std::max(worst, std::fabs(detail::portable_log(x) - exact) / ulp);
  }
  CHECK(worst <= 4.0);
  CHECK(detail::portable_log(1.0) == 0.0);
  CHECK_THROWS_AS(detail::portable_log(0.0), ValueError);
}

TEST_CASE("normals have mean 0 and variance 1, within five standard errors over 200,000 draws") {
  // The sample mean has standard error 1/sqrt(n) = 0.0022; the sample variance sqrt(2/n) = 0.0032.
  Generator gen(9);
  const Tensor x = randn({200000}, gen);
  const double m = mean(x).item(), v = mean(pow(x - m, 2.0)).item();
  CHECK(std::fabs(m) < 5 * 0.0023);
  CHECK(std::fabs(v - 1) < 5 * 0.0032);
}

TEST_CASE("uniforms lie in 0 <= u < 1 with mean 1/2, integers in their range, and randperm is a permutation") {
  Generator gen(4);
  const Tensor u = rand({100000}, gen);
  CHECK(max(u).item() < 1.0);
  CHECK(-max(-u).item() >= 0.0);
  CHECK(std::fabs(mean(u).item() - 0.5) < 5 * std::sqrt(1.0 / 12 / 100000));  // sd of U(0,1) is 1/sqrt(12)
  const Tensor k = randint(-2, 3, {1000}, gen);
  CHECK(k.dtype() == DType::Int64);
  for (double v : k.to_vector()) CHECK((v >= -2 && v < 3));
  std::vector<double> p = randperm(10, gen).to_vector();
  std::sort(p.begin(), p.end());
  CHECK(p == arange(10).to_vector());
  const Tensor w = uniform({1000}, -3, -1, gen);
  CHECK((max(w).item() < -1 && -max(-w).item() >= -3));
  CHECK_THROWS_WITH_AS(randint(3, 3, {1}, gen), "randint: empty range [3, 3)", ValueError);
  CHECK_THROWS_WITH_AS(uniform({1}, 1, 0, gen), doctest::Contains("uniform: need finite low < high"), ValueError);
}

TEST_CASE(
    "randperm draws each of the 24 orders of 4 elements equally often, within five standard errors, for three seeds") {
  // A uniform shuffle gives each order probability 1/24: over 24,000 draws each count is
  // binomial, 1,000 ± sqrt(24,000 · 1/24 · 23/24) = 31. A shuffle that never leaves an element
  // where it was (swapping only with later positions) draws 6 of the orders and no other.
  for (std::uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    Generator gen(seed);
    std::map<std::vector<double>, int> counts;
    for (int draw = 0; draw < 24000; ++draw) ++counts[randperm(4, gen).to_vector()];
    const double sd = std::sqrt(24000.0 / 24 * 23 / 24);
    CHECK(counts.size() == 24);
    for (const auto& [order, count] : counts) CHECK(std::fabs(count - 1000) < 5 * sd);
  }
}

TEST_CASE("manual_seed re-seeds the default generator, as torch.manual_seed") {
  manual_seed(5);
  const Tensor a = randn({4});
  manual_seed(5);
  CHECK(test::identical(randn({4}), a));
}
