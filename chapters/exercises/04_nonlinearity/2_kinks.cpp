// Exercise 4.2 · Where a ReLU network bends
// =========================================
//
// For a network ``output(relu(hidden(x)))`` with one input, list the points of an
// interval ``(lo, hi)`` where its slope changes, in increasing order. Section 7 found
// each unit's kink at :math:`-b_j / w_j`; but not every unit bends the output: a unit
// with :math:`w_j = 0` is constant, and one whose output weight :math:`v_j` is 0
// contributes nothing. The tests build networks with such units and compare your
// points with where autograd's slope really changes.

// %% hint
// Where does unit j switch on or off, and by how much does the output's slope jump
// there (section 7 worked it out)? A jump of zero is no bend at all.

// %% fold: includes, and two networks to test on
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>
#include <string>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"  // vectors print as {a, b, c}

using namespace litgrad;

namespace {
struct TwoLayers {
  nn::Linear hidden, output;
};

// Six units: kinks at 0.5, -1, 2 and 0.25; one unit with w = 0, and one with v = 0
// whose -b/w is -0.75.
TwoLayers handmade() {
  TwoLayers net{nn::Linear(1, 6), nn::Linear(6, 1)};
  NoGradGuard no_grad;
  net.hidden.weight.copy_(tensor({2, 1, -1, 0, 4, 1}, {6, 1}));
  net.hidden.bias.copy_(tensor({-1, 1, 2, 3, -1, 0.75}, {6}));
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

// %%
// The tests.

TEST_CASE(
    "the handmade network bends at -1, 0.25 and 0.5 inside (-2, 1), and nowhere else") {
  const TwoLayers net = handmade();
  const std::vector<double> yours = kinks_in(net.hidden, net.output, -2, 1);
  CHECK_MESSAGE(std::is_sorted(yours.begin(), yours.end()),
                "your points are not in increasing order: this points to points not "
                "sorted");
  for (double at : yours) {
    const auto s = slopes(net, {at - 1e-3, at + 1e-3});
    const auto mirrored = slopes(net, {-at - 1e-3, -at + 1e-3});
    const std::string why =
        mirrored[0] != mirrored[1]
            ? "it bends at the opposite point: this points to the kink's sign lost"
            : "no unit bends there: this points to units with a zero output weight "
              "kept";
    CHECK_MESSAGE(s[0] != s[1], "the slope does not change at ", at,
                  ": a unit bends the output where its w x + b crosses zero, and only "
                  "if both its weights are nonzero; ",
                  why);
    CHECK_MESSAGE((at > -2 && at < 1), at, " is outside (-2, 1)");
  }
  CHECK(yours == std::vector<double>{-1, 0.25, 0.5});
}

TEST_CASE(
    "for a random network, the slope is constant between your points and changes "
    "across each") {
  Generator gen(8);
  const TwoLayers net{nn::Linear(1, 12, true, gen), nn::Linear(12, 1, true, gen)};
  const std::vector<double> k = kinks_in(net.hidden, net.output, -1, 1);
  REQUIRE(!k.empty());
  std::vector<double> edges = {-1};
  edges.insert(edges.end(), k.begin(), k.end());
  edges.push_back(1);
  for (std::size_t p = 0; p + 1 < edges.size(); ++p) {
    const double a = edges[p], b = edges[p + 1];
    const auto s =
        slopes(net, {a + 0.1 * (b - a), a + 0.5 * (b - a), a + 0.9 * (b - a)});
    INFO("between ", a, " and ", b);
    CHECK_MESSAGE((s[0] == s[1] && s[1] == s[2]),
                  "the slope changes here: a kink between these points is missing");
    if (p + 2 < edges.size()) {  // across the point edges[p + 1]
      const double c = edges[p + 2];
      CHECK_MESSAGE(slopes(net, {b + 0.5 * (c - b)})[0] != s[2],
                    "the slope does not change across ", b, ": no unit bends there");
    }
  }
}
