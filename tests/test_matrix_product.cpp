// detail::MatrixProduct's two ways of doing less work: leaving zero terms out of its sums, and
// leaving out the columns a caller does not need. Both promise the bits of the whole product,
// so the tests compare bit for bit against a MatrixProduct that adds every term of every sum.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include <litgrad/detail/matrix_product.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {

using Matrix = std::vector<double>;

bool same_bits(const double* a, const double* b, std::int64_t n) {
  return std::memcmp(a, b, sizeof(double) * static_cast<std::size_t>(n)) == 0;
}

Matrix random_matrix(std::int64_t rows, std::int64_t cols, Generator& gen) {
  const Tensor t = randn({rows, cols}, gen);
  return Matrix(t.data(), t.data() + rows * cols);
}

// Zeros in the shapes that attention makes and some it does not: a causal lower triangle (zeros
// after the diagonal), its transpose (zeros before it), whole zero rows, zeros at both ends of
// each row, or none; some of them -0.
void zero_out(Matrix& a, std::int64_t rows, std::int64_t cols, int pattern, Generator& gen) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t p = 0; p < cols; ++p) {
      const bool zero = pattern == 0   ? p > i
                        : pattern == 1 ? p < i
                        : pattern == 2 ? (i / 5) % 2 == 1
                        : pattern == 3 ? p < cols / 3 || p >= 2 * cols / 3
                                       : false;
      if (zero) a[static_cast<std::size_t>(i * cols + p)] = gen.randint(0, 2) == 0 ? 0.0 : -0.0;
    }
}

}  // namespace

TEST_CASE("a product that leaves zero terms out of its sums gives the bits of the product that adds them all") {
  // Sizes around 32-row blocks and GEMM's tiles, sums longer than Eigen's one-pass limit
  // (where nothing is left out), operands read transposed, and NaN or inf in B (which must
  // reach C through 0 x inf, so nothing may be left out either).
  Generator gen(20261129);
  const std::vector<std::int64_t> sizes = {16, 24, 36, 64, 100, 128, 200};
  int skipped_somewhere = 0;
  for (int trial = 0; trial < 120; ++trial) {
    auto pick = [&] { return sizes[static_cast<std::size_t>(gen.randint(0, 7))]; };
    const std::int64_t n = pick() / 4 * 4, k = trial < 100 ? pick() : 1200, m = gen.randint(16, 80);
    const bool ta = gen.randint(0, 2) == 1, tb = gen.randint(0, 2) == 1;
    const int pattern = gen.randint(0, 5), poison = gen.randint(0, 6);
    CAPTURE(trial);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(m);
    CAPTURE(ta);
    CAPTURE(tb);
    CAPTURE(pattern);
    // op(A) is n x k: zero it in that layout, then store it transposed when ta.
    Matrix op_a = random_matrix(n, k, gen), a(static_cast<std::size_t>(n * k));
    zero_out(op_a, n, k, pattern, gen);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t p = 0; p < k; ++p) a[static_cast<std::size_t>(ta ? p * n + i : i * k + p)] = op_a[static_cast<std::size_t>(i * k + p)];
    Matrix b = random_matrix(tb ? m : k, tb ? k : m, gen);
    if (poison == 0) b[static_cast<std::size_t>(gen.randint(0, k * m))] = INFINITY;
    if (poison == 1) b[static_cast<std::size_t>(gen.randint(0, k * m))] = NAN;
    const std::int64_t ar = ta ? k : n, ac = ta ? n : k, br = tb ? m : k, bc = tb ? k : m;

    Matrix skipping(static_cast<std::size_t>(n * m)), every(static_cast<std::size_t>(n * m));
    detail::MatrixProduct(n, k, m, true).add(skipping.data(), a.data(), ar, ac, ta, b.data(), br, bc, tb);
    detail::MatrixProduct(n, k, m, true, /*skip_zero_terms=*/false).add(every.data(), a.data(), ar, ac, ta, b.data(), br, bc, tb);
    CHECK(same_bits(skipping.data(), every.data(), n * m));
    // And added to what C holds (a bias, say) rather than written.
    const Matrix start = random_matrix(n, m, gen);
    Matrix added = start, added_every = start;
    detail::MatrixProduct(n, k, m, false).add(added.data(), a.data(), ar, ac, ta, b.data(), br, bc, tb);
    detail::MatrixProduct(n, k, m, false, /*skip_zero_terms=*/false).add(added_every.data(), a.data(), ar, ac, ta, b.data(), br, bc, tb);
    CHECK(same_bits(added.data(), added_every.data(), n * m));
    skipped_somewhere += pattern < 4 && poison > 1 && k < 1200 ? 1 : 0;
  }
  CHECK(skipped_somewhere >= 40);  // the cases where terms can be left out were exercised
}

TEST_CASE("a product asked for only some columns of each row computes at least those, with the bits of the whole product") {
  Generator gen(7);
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t n = 4 * gen.randint(4, 40), k = gen.randint(8, 40), m = gen.randint(trial % 3 == 0 ? 64 : 16, 150);
    const bool tb = trial % 2 == 1;
    CAPTURE(trial);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(m);
    const Matrix a = random_matrix(n, k, gen), b = random_matrix(tb ? m : k, tb ? k : m, gen);
    std::vector<std::int64_t> asked(static_cast<std::size_t>(n)), columns;
    for (std::int64_t i = 0; i < n; ++i)  // causal (row i needs i + 1 columns), or at random
      asked[static_cast<std::size_t>(i)] = trial % 3 == 0 ? std::min(m, i + 1) : gen.randint(0, m + 1);
    columns = asked;
    Matrix part(static_cast<std::size_t>(n * m), NAN), whole(static_cast<std::size_t>(n * m));
    detail::MatrixProduct(n, k, m, true).add(part.data(), a.data(), n, k, false, b.data(), tb ? m : k, tb ? k : m, tb,
                                             columns.data());
    detail::MatrixProduct(n, k, m, true).add(whole.data(), a.data(), n, k, false, b.data(), tb ? m : k, tb ? k : m, tb);
    std::int64_t written = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t c = columns[static_cast<std::size_t>(i)];
      CHECK(c >= asked[static_cast<std::size_t>(i)]);
      CHECK(c <= m);
      CHECK(same_bits(part.data() + i * m, whole.data() + i * m, c));
      written += c;
    }
    if (trial % 3 == 0 && n > 32) CHECK(written < n * m);  // a causal request over several blocks leaves columns out
  }
}
