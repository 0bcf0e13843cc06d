// Exercise 6.3 · Clipping by the total norm
// =========================================
//
// Write the clipping of section 4 on plain numbers. The gradients of a model's
// parameters come as a list of vectors, one per parameter. Measure their length all
// together, :math:`|g| = \sqrt{\sum_p \sum_i g_{p,i}^2}`; if it exceeds ``max_norm``,
// scale every gradient by ``max_norm / (|g| + 1e-6)``, as torch does; otherwise leave
// them alone. Return the length you measured, before any scaling. The tests compare
// your function with ``nn::utils::clip_grad_norm_`` on random gradients, check that
// gradients already short enough are not changed in any bit, that the clipped ones
// keep their direction and reach length ``max_norm``, and that one huge gradient in
// one parameter shortens the others too.

// %% hint
// Section 4 caps the length of one step of the whole model, not of each parameter's
// share of it: a single length, from every number of every gradient, decides whether
// and how much all of them shrink.

// %% fold: includes, and gradients to clip
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"  // vectors print as {a, b, c}

using namespace litgrad;

namespace {
using Gradients = std::vector<std::vector<double>>;

// Three parameters' gradients of sizes 5, 3 and 8, drawn at random and multiplied by
// `scale`.
Gradients random_gradients(std::uint64_t seed, double scale) {
  Generator gen(seed);
  Gradients g;
  for (std::int64_t n : {5, 3, 8}) {
    std::vector<double> v = randn({n}, gen).to_vector();
    for (double& x : v) x *= scale;
    g.push_back(v);
  }
  return g;
}

double length(const Gradients& g) {
  double s = 0;
  for (const auto& v : g)
    for (double x : v) s += x * x;
  return std::sqrt(s);
}
}  // namespace

// %%
// The function to write, in ``exercises/06_optimisers/3_clipping.cpp``:

double clip_by_total_norm(std::vector<std::vector<double>>& gradients, double max_norm);

// %% fold: what a wrong answer points to
namespace {
// One gradient (3, 4) of length 5 and another (0, 0.5), clipped to 1: the total length
// is √25.25 ≈ 5.025, and both are multiplied by about 0.199.
std::string probe() {
  Gradients g = {{3, 4}, {0, 0.5}};
  const double returned = clip_by_total_norm(g, 1);
  const std::string s =
      "with gradients (3, 4) and (0, 0.5) clipped to 1, you returned " +
      std::to_string(returned) + " and left (" + std::to_string(g[0][0]) + ", " +
      std::to_string(g[0][1]) + ") and (" + std::to_string(g[1][0]) + ", " +
      std::to_string(g[1][1]) +
      "); right is 5.02494 and about (0.597, 0.796), (0, 0.0995)";
  const auto near = [](double a, double b) { return std::fabs(a - b) < 1e-3; };
  if (near(g[0][0], 0.6) && near(g[1][1], 0.5))
    return s +
           ": each parameter was clipped on its own; this points to clipping each "
           "parameter separately";
  if (near(returned, 25.25))
    return s +
           ": the length you measured is its square; this points to the square "
           "root forgotten";
  if (near(g[0][0], 1) && near(g[0][1], 1))
    return s +
           ": numbers were cut off one by one, which turns the direction; this "
           "points to clamping each number instead of scaling";
  if (g[0][0] > 3.001)
    return s + ": the gradients grew; this points to the factor upside down";
  if (near(returned, 1))
    return s +
           ": the length you returned is the clipped one; this points to the length "
           "after clipping returned";
  Gradients short_ones = {{3, 4}, {0, 0.5}};
  clip_by_total_norm(short_ones, 100);
  if (short_ones[0][0] != 3 || short_ones[0][1] != 4 || short_ones[1][1] != 0.5)
    return s +
           "; clipped to 100, which they are well within, they changed: this points "
           "to gradients scaled even when shorter than the limit";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("it returns the same length as clip_grad_norm_ and leaves the same numbers") {
  INFO(probe());
  for (std::uint64_t seed : {1, 2, 3})
    for (double max_norm : {0.5, 2.0, 100.0}) {
      Gradients mine = random_gradients(seed, 1.0);
      std::vector<Tensor> params;
      for (const auto& v : mine) {
        Tensor p = zeros({static_cast<std::int64_t>(v.size())}).requires_grad_();
        sum(p * tensor(v, {static_cast<std::int64_t>(v.size())})).backward();
        params.push_back(p);  // a parameter whose gradient is v
      }
      const double theirs = nn::utils::clip_grad_norm_(params, max_norm);
      const double returned = clip_by_total_norm(mine, max_norm);
      INFO("seed ", seed, ", max_norm ", max_norm);
      CHECK(std::fabs(returned - theirs) <= 1e-14 * theirs);
      for (std::size_t p = 0; p < mine.size(); ++p)
        for (std::size_t i = 0; i < mine[p].size(); ++i)
          CHECK(std::fabs(mine[p][i] - params[p].grad().to_vector()[i]) <= 1e-14);
    }
}

TEST_CASE("gradients shorter than the limit are left alone, every bit") {
  INFO(probe());
  const Gradients before = random_gradients(4, 0.1);
  Gradients g = before;
  const double returned = clip_by_total_norm(g, 10 * length(before));
  CHECK(g == before);
  CHECK(std::fabs(returned - length(before)) <= 1e-15 * length(before));
}

TEST_CASE(
    "clipped gradients keep their direction and have the limit's length, and one huge "
    "gradient shortens all the others") {
  INFO(probe());
  Gradients g = random_gradients(5, 1.0);
  g[1][0] = 1e6;  // one number of one parameter is enormous
  const Gradients before = g;
  const double returned = clip_by_total_norm(g, 1.0);
  CHECK(std::fabs(returned - length(before)) <= 1e-15 * length(before));
  CHECK(std::fabs(length(g) - 1.0) < 1e-9);
  const double factor = 1.0 / (length(before) + 1e-6);
  for (std::size_t p = 0; p < g.size(); ++p)
    for (std::size_t i = 0; i < g[p].size(); ++i)
      CHECK(std::fabs(g[p][i] - before[p][i] * factor) <=
            1e-14 * std::fabs(before[p][i] * factor));
}
