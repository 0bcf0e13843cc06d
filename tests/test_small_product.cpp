// detail::small_product computes with SIMD what small_product_plain says element by element:
// each sum in four interleaved partial sums. The SIMD kernels start the sums at their first
// term and fix the sign of a zero at the end, so the test feeds them the inputs where that could
// go wrong (-0, products that cancel, inf, NaN) and asks for the same bits (any NaN for a NaN).

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include <litgrad/detail/small_product.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

// Random values, a fifth of them replaced by +0, -0, 1, -1 (whose products cancel to zeros of
// either sign) and, when `poison`, by inf or NaN.
std::vector<double> awkward(std::int64_t count, bool poison, Generator& gen) {
  const Tensor t = randn({count}, gen);
  std::vector<double> v(t.data(), t.data() + count);
  for (double& x : v)
    switch (gen.randint(0, poison ? 14 : 10)) {
      case 0: x = 0.0; break;
      case 1: x = -0.0; break;
      case 2: x = 1.0; break;
      case 3: x = -1.0; break;
      case 10: x = INFINITY; break;
      case 11: x = NAN; break;
      default: break;
    }
  return v;
}

// Bit for bit, but a NaN may be any NaN: which of two NaNs an addition passes on depends on the
// order of its operands, which the compiler may swap (it does, in the plain loop).
bool same_bits_or_both_nan(const std::vector<double>& x, const std::vector<double>& y) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i]) != std::isnan(y[i]) || (!std::isnan(x[i]) && std::memcmp(&x[i], &y[i], sizeof x[i]) != 0))
      return false;
  return true;
}

}  // namespace

TEST_CASE("small products with SIMD give the bits of the plain four-sum loop, for every shape, transpose and mode") {
  // Shapes reach every kernel: the plain loop (tiny), rows of C and of Cᵀ (narrow C) in strips
  // of 16, 8, 4, 2 and 1 columns, and dot products (a matrix times a vector); sums of 1 to 3
  // terms (fewer than four partial sums) and long ones with every remainder mod 4.
  Generator gen(11290);
  const std::vector<std::int64_t> sizes = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 23, 31, 64, 130};
  const std::vector<std::int64_t> sums = {1, 2, 3, 4, 5, 6, 7, 8, 9, 33, 130, 515};
  int compared = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const std::int64_t n = sizes[static_cast<std::size_t>(gen.randint(0, 14))];
    const std::int64_t m = sizes[static_cast<std::size_t>(gen.randint(0, 14))];
    const std::int64_t k = sums[static_cast<std::size_t>(gen.randint(0, 12))];
    const bool ta = gen.randint(0, 2) == 1, tb = gen.randint(0, 2) == 1, overwrite = gen.randint(0, 2) == 1;
    const bool poison = gen.randint(0, 4) == 0;
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(m);
    CAPTURE(ta);
    CAPTURE(tb);
    CAPTURE(overwrite);
    const std::vector<double> a = awkward(n * k, poison, gen), b = awkward(k * m, poison, gen);
    const std::vector<double> start = awkward(n * m, false, gen);
    std::vector<double> fast = start, plain = start;
    const std::int64_t ac = ta ? n : k, bc = tb ? k : m;
    detail::small_product(fast.data(), overwrite, a.data(), ac, ta, b.data(), bc, tb, n, k, m);
    detail::small_product_plain(plain.data(), overwrite, a.data(), ac, ta, b.data(), bc, tb, n, k, m);
    CHECK(same_bits_or_both_nan(fast, plain));
    ++compared;
  }
  CHECK(compared == 600);
}

TEST_CASE("a small product's sum of products that are all -0 is +0, as a sum started at +0 is") {
  // Every kernel: rows of C (n = 8, m = 8), rows of Cᵀ (A read transposed, m = 1), dot
  // products (m = 1), with sums of 1, 2, 3 and 6 terms.
  for (const std::int64_t k : {1, 2, 3, 6})
    for (const bool ta : {false, true})
      for (const std::int64_t m : {1, 8}) {
        const std::int64_t n = 100;  // past the plain loop's few hundred multiply-adds
        const std::vector<double> a(static_cast<std::size_t>(n * k), -0.0), b(static_cast<std::size_t>(k * m), 1.0);
        std::vector<double> c(static_cast<std::size_t>(n * m), 5.0);
        detail::small_product(c.data(), true, a.data(), ta ? n : k, ta, b.data(), m, false, n, k, m);
        CAPTURE(k);
        CAPTURE(ta);
        CAPTURE(m);
        bool all_plus_zero = true;
        for (double v : c) all_plus_zero = all_plus_zero && v == 0.0 && !std::signbit(v);
        CHECK(all_plus_zero);
      }
}
