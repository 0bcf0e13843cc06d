// Exercise 4.2 · Where a ReLU network bends
// =========================================
//
// For a network ``output(relu(hidden(x)))`` with one input, list the points of an
// interval ``(lo, hi)`` where its slope changes, in increasing order. Section 5 found
// each unit's kink at :math:`-b_j / w_j`; but not every unit bends the output: a unit
// with :math:`w_j = 0` is constant, and one whose output weight :math:`v_j` is 0
// contributes nothing. The tests build networks with such units and compare your
// points with where autograd's slope really changes.

// %% hint
// Unit j changes the slope by v_j times the size of w_j, so it bends the output
// exactly when both v_j and w_j are nonzero. Collect -b_j / w_j for those units, keep
// the ones strictly inside (lo, hi), and sort them.

// %% fold: includes, and two networks to test on
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {
struct TwoLayers {
  nn::Linear hidden, output;
};

// Six units: kinks at 0.5, -1, 2 and 0.25; one unit with w = 0, and one with v = 0
// whose kink at -0.5 bends nothing.
TwoLayers handmade() {
  TwoLayers net{nn::Linear(1, 6), nn::Linear(6, 1)};
  NoGradGuard no_grad;
  net.hidden.weight.copy_(tensor({2, 1, -1, 0, 4, 1}, {6, 1}));
  net.hidden.bias.copy_(tensor({-1, 1, 2, 3, -1, 0.5}, {6}));
  net.output.weight.copy_(tensor({1, -0.5, 2, 7, 0.75, 0}, {1, 6}));
  return net;
}

// Autograd's slope at each of the points x.
std::vector<double> slopes(const TwoLayers& net, const std::vector<double>& x) {
  Tensor at = tensor(x, {static_cast<std::int64_t>(x.size()), 1}).requires_grad_();
  sum(net.output(relu(net.hidden(at)))).backward();
  return at.grad().to_vector();
}
}  // namespace

// %%
// The function to write, in ``exercises/04_nonlinearity/2_kinks.cpp``:

std::vector<double> kinks_in(const nn::Linear& hidden, const nn::Linear& output,
                             double lo, double hi);

// %% fold: what your points for the handmade network point to
namespace {
std::string kinks_problem() {
  const TwoLayers net = handmade();
  const std::vector<double> yours = kinks_in(net.hidden, net.output, -2, 1);
  const std::vector<double> right = {-1, 0.25, 0.5};
  std::vector<double> sorted = yours, mirrored;
  std::sort(sorted.begin(), sorted.end());
  for (double k : yours) mirrored.push_back(-k);
  std::sort(mirrored.begin(), mirrored.end());
  const auto has = [](const std::vector<double>& v, double k) {
    return std::find(v.begin(), v.end(), k) != v.end();
  };
  std::string s = "for the handmade network yours are " +
                  std::string(doctest::toString(yours).c_str());
  if (has(yours, -0.5) && yours.size() == 4)
    return s +
           ": -0.5 is the kink of the unit whose output weight is 0, which changes "
           "nothing; this points to a unit the output ignores counted as a bend";
  if (!yours.empty() && std::all_of(mirrored.begin(), mirrored.end(), [&](double k) {
        return has(right, k) || k == 1 || k == 2;
      }))
    return s +
           ": each is a kink mirrored through 0; this points to the sign of the kink "
           "flipped";
  if (sorted == right && yours != right)
    return s +
           ": the right points, out of order; this points to the points left "
           "unsorted";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "the handmade network bends at -1, 0.25 and 0.5 inside (-2, 1), and nowhere else") {
  const std::string why = exercise::quietly(kinks_problem);
  INFO(why);
  const TwoLayers net = handmade();
  CHECK(kinks_in(net.hidden, net.output, -2, 1) == std::vector<double>{-1, 0.25, 0.5});
}

TEST_CASE(
    "for a random network, the slope is constant between your points and changes "
    "across each") {
  const std::string why = exercise::quietly(kinks_problem);
  INFO(why);
  Generator gen(8);
  const TwoLayers net{nn::Linear(1, 12, true, gen), nn::Linear(12, 1, true, gen)};
  const std::vector<double> k = kinks_in(net.hidden, net.output, -1, 1);
  REQUIRE(!k.empty());
  INFO("your points: ", k);
  std::vector<double> edges = {-1};
  edges.insert(edges.end(), k.begin(), k.end());
  edges.push_back(1);
  for (std::size_t p = 0; p + 1 < edges.size(); ++p) {
    const double a = edges[p], b = edges[p + 1];
    const auto s =
        slopes(net, {a + 0.1 * (b - a), a + 0.5 * (b - a), a + 0.9 * (b - a)});
    INFO("between ", a, " and ", b);
    CHECK(s[0] == s[1]);
    CHECK(s[1] == s[2]);
    if (p + 2 < edges.size()) {  // across the point edges[p + 1]
      const double c = edges[p + 2];
      CHECK(slopes(net, {b + 0.5 * (c - b)})[0] != s[2]);
    }
  }
}
