// Exercise 9.1 · Layer normalisation by hand
// ==========================================
//
// Write section 1's layer normalisation of one token, on plain numbers: :math:`y_i =
// (x_i - \mu) / \sqrt{\sigma^2 + \epsilon}` with :math:`\mu` the mean of the features
// and :math:`\sigma^2` their biased variance (divided by :math:`D`, not :math:`D - 1`).
// The tests compare it with litgrad's ``nn::layer_norm`` on random tokens to
// :math:`10^{-14}`, check that a token whose features are all equal comes out exactly
// zero (the :math:`\epsilon` is what makes that possible), and that a quiet token's
// variance comes out as :math:`\sigma^2 / (\sigma^2 + \epsilon)`, not 1.

// %% hint
// Two passes: first the mean, then the mean of the squared deviations. Without the
// :math:`\epsilon` inside the square root, a constant token divides 0 by 0.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/09_transformer/1_layer_norm.cpp``:

std::vector<double> layer_norm_by_hand(const std::vector<double>& x, double eps = 1e-5);

// %%
// The tests.

TEST_CASE("it agrees with nn::layer_norm on random tokens to 1e-14") {
  Generator gen(3);
  for (double spread : {1e-2, 1.0, 50.0}) {
    const Tensor x = spread * randn({32}, gen);
    const Tensor y = nn::layer_norm(x, {32});
    const std::vector<double> mine = layer_norm_by_hand(x.to_vector());
    REQUIRE(mine.size() == 32);
    for (std::int64_t i = 0; i < 32; ++i) CHECK(std::fabs(mine[i] - y.at({i})) < 1e-14);
  }
}

TEST_CASE("a token whose features are all equal comes out exactly zero") {
  const std::vector<double> y = layer_norm_by_hand(std::vector<double>(16, 2.0));
  REQUIRE(y.size() == 16);
  for (double v : y) CHECK(v == 0.0);
}

TEST_CASE("a quiet token's variance is σ²/(σ² + ε), not 1, to 1e-12") {
  const std::vector<double> x = {0.001, -0.001, 0.002, -0.002};  // σ² = 2.5e-6
  const std::vector<double> y = layer_norm_by_hand(x);
  REQUIRE(y.size() == 4);
  double variance = 0;
  for (double v : y) variance += v * v / 4;
  CHECK(std::fabs(variance - 2.5e-6 / (2.5e-6 + 1e-5)) < 1e-12);
}
