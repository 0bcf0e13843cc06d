// Exercise 4.1 · Parity of three bits
// ===================================
//
// Section 3 computed XOR, the parity of two bits, exactly with two ReLU units. Do the
// same for three bits: build a network ``Linear(3, H)``, relu, ``Linear(H, 1)`` with
// at most three hidden units whose output is 1 when an odd number of the three inputs
// are 1 and 0 otherwise, exactly, at all eight corners of the cube.

// %% hint
// The parity depends only on the sum s = x1 + x2 + x3, which is 0, 1, 2 or 3. A
// function of s built from relu(s), relu(s - 1) and relu(s - 2) has slope changes at
// 0, 1 and 2: choose them so that it climbs to 1, falls back to 0, and climbs again.

// %% fold: includes
#include <doctest/doctest.h>

#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/04_nonlinearity/1_parity.cpp``: it returns the
// two layers, whose weights the tests apply as ``output(relu(hidden(x)))``.

struct TwoLayers {
  nn::Linear hidden, output;
};
TwoLayers parity_network();

// %% fold: what your network computes along the sum of the bits
namespace {
// Your network's output at the corners whose bits sum to 0, 1, 2 and 3 (parity: 0, 1,
// 0, 1), and the mistake that shape points to.
std::string parity_problem(const TwoLayers& net) {
  if (net.hidden.in_features != 3 || net.output.out_features != 1) return "";
  std::vector<double> f;
  for (const Tensor& corner : {tensor({0, 0, 0}, {1, 3}), tensor({1, 0, 0}, {1, 3}),
                               tensor({1, 1, 0}, {1, 3}), tensor({1, 1, 1}, {1, 3})})
    f.push_back(net.output(relu(net.hidden(corner))).item());
  std::string s = "along the sum of the bits, 0 to 3, yours gives ";
  s += doctest::toString(f).c_str();
  s += " where parity is {0, 1, 0, 1}";
  const auto is = [&](std::vector<double> g) { return f == g; };
  if (is({0, 1, 1, 2}))
    return s +
           ": the slope goes +1, 0, +1; it must turn from +1 to -1 and back; this "
           "points to a turn of slope 1 instead of 2";
  if (is({0, 0, 1, 0}))
    return s +
           ": the pattern comes one step late; this points to the kinks shifted by "
           "one";
  if (f[1] - f[0] == 1 && f[2] - f[1] == -1 && f[3] - f[2] == 1 && f[0] != 0)
    return s + ": the right shape, lifted by " + exercise::number(f[0]) +
           " everywhere; this points to a bias left at its random start";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE(
    "with three inputs and at most three hidden units, the output is the parity at "
    "every corner of the cube, exactly") {
  const TwoLayers net = parity_network();
  REQUIRE(net.hidden.in_features == 3);
  CHECK(net.hidden.out_features <= 3);
  REQUIRE(net.output.in_features == net.hidden.out_features);
  REQUIRE(net.output.out_features == 1);
  const std::string why = exercise::quietly(parity_problem, net);
  INFO(why);
  for (int corner = 0; corner < 8; ++corner) {
    const double a = corner & 1, b = (corner >> 1) & 1, c = (corner >> 2) & 1;
    const double y = net.output(relu(net.hidden(tensor({a, b, c}, {1, 3})))).item();
    INFO("corner (", a, ", ", b, ", ", c, ")");
    CHECK(y == static_cast<double>((corner & 1) ^ ((corner >> 1) & 1) ^ (corner >> 2)));
  }
}
