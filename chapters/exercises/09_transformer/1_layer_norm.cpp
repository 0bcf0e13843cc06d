// Exercise 9.1 · Layer normalisation by hand
// ==========================================
//
// Write section 1's layer normalisation of one token, on plain numbers: :math:`y_i =
// (x_i - \mu) / \sqrt{\sigma^2 + \epsilon}` with :math:`\mu` the mean of the features
// and :math:`\sigma^2` their biased variance (divided by :math:`D`, not :math:`D - 1`).
// The tests compare it with litgrad's ``nn::layer_norm`` on random tokens to
// :math:`10^{-14}`, and on a token far from 0 (features :math:`1000 + z`, with
// :math:`z` standard normal) to :math:`10^{-12}`: subtracting a mean of 1000 rounds
// each deviation by about :math:`1000 u \approx 10^{-13}`. They check that a token
// whose features are all equal comes out exactly zero (the :math:`\epsilon` is what
// makes that possible), and that a quiet token's variance comes out as
// :math:`\sigma^2 / (\sigma^2 + \epsilon)`, not 1.

// %% hint
// Two passes: first the mean, then the mean of the squared deviations. Without the
// :math:`\epsilon` inside the square root, a constant token divides 0 by 0.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/09_transformer/1_layer_norm.cpp``:

std::vector<double> layer_norm_by_hand(const std::vector<double>& x, double eps = 1e-5);

// %% fold: what your output for a small token points to
namespace {
// Your output for the token (1, 2, 3, 4), whose mean is 2.5 and whose (biased) variance
// is 1.25: the output should have mean 0 and variance 1.25 / (1.25 + ε), almost 1.
std::string token_problem() {
  const std::vector<double> y = layer_norm_by_hand({1, 2, 3, 4});
  if (y.size() != 4) return "";
  double mean = 0, variance = 0;
  for (double v : y) mean += v / 4;
  for (double v : y) variance += (v - mean) * (v - mean) / 4;
  std::string s = "for the token (1, 2, 3, 4) your output has mean " +
                  exercise::number(mean) + " and variance " +
                  exercise::number(variance) + " (0 and almost 1 are right)";
  const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-4; };
  if (std::fabs(mean) > 1e-9)
    return s +
           ": the features were scaled but not moved; this points to the output "
           "not centred";
  if (near(variance, 0.75))
    return s +
           ": (D - 1)/D of 1, as if the variance were divided by D - 1; this points "
           "to the unbiased variance (divided by D - 1)";
  if (near(variance, 1.25 / 7.5))
    return s +
           ": 1.25/7.5, the variance over the mean square 7.5; this points to the "
           "mean square instead of the variance";
  if (near(variance, 0.8))
    return s +
           ": 1/1.25, as if divided by σ² rather than σ; this points to divided by "
           "the variance instead of its square root";
  if (std::fabs(variance - 1.25 / std::pow(std::sqrt(1.25) + 1e-5, 2)) < 1e-9)
    return s +
           ": 1.25/(√1.25 + ε)², as if ε were added after the square root; this "
           "points to ε outside the square root";
  // Right near 0, wrong far from it: the variance lost its digits to cancellation.
  Generator gen(4);
  const Tensor far = 1000 + randn({32}, gen);
  const std::vector<double> mine = layer_norm_by_hand(far.to_vector());
  if (near(variance, 1.25 / 1.25001) &&
      !exercise::agrees(mine, nn::layer_norm(far, {32}).to_vector(), 1e-12))
    return s +
           ", right; but a token near 1000 comes out wrong, so the variance lost "
           "digits far from 0; this points to the variance as the mean square less "
           "the squared mean";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("it agrees with nn::layer_norm on random tokens to 1e-14") {
  const std::string why = exercise::quietly(token_problem);
  INFO(why);
  Generator gen(3);
  for (double spread : {1e-2, 1.0, 50.0}) {
    const Tensor x = spread * randn({32}, gen);
    const Tensor y = nn::layer_norm(x, {32});
    const std::vector<double> mine = layer_norm_by_hand(x.to_vector());
    INFO("a token of spread ", spread);
    CHECK(exercise::agrees(mine, y.to_vector(), 1e-14));
  }
}

TEST_CASE("it agrees with nn::layer_norm to 1e-12 on a token far from 0") {
  const std::string why = exercise::quietly(token_problem);
  INFO(why);
  Generator gen(4);
  const Tensor x = 1000 + randn({32}, gen);
  const Tensor y = nn::layer_norm(x, {32});
  CHECK(exercise::agrees(layer_norm_by_hand(x.to_vector()), y.to_vector(), 1e-12));
}

TEST_CASE("a token whose features are all equal comes out exactly zero") {
  const std::string why = exercise::quietly(token_problem);
  INFO(why);
  const std::vector<double> y = layer_norm_by_hand(std::vector<double>(16, 2.0));
  CHECK(exercise::agrees(y, std::vector<double>(16, 0.0)));
}

TEST_CASE("a quiet token's variance is σ²/(σ² + ε), not 1, to 1e-12") {
  const std::string why = exercise::quietly(token_problem);
  INFO(why);
  const std::vector<double> x = {0.001, -0.001, 0.002, -0.002};  // σ² = 2.5e-6
  const std::vector<double> y = layer_norm_by_hand(x);
  REQUIRE(y.size() == 4);
  double variance = 0;
  for (double v : y) variance += v * v / 4;
  INFO("your output's variance: ", exercise::number(variance));
  CHECK(std::fabs(variance - 2.5e-6 / (2.5e-6 + 1e-5)) < 1e-12);
}
