// Exercise 4.1 · Parity of three bits: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct TwoLayers {
  nn::Linear hidden, output;
};

// With s = x1 + x2 + x3: relu(s) - 2 relu(s - 1) + 2 relu(s - 2) is 0, 1, 0, 1 at
// s = 0, 1, 2, 3 (slope 1, then -1, then 1 again).
TwoLayers parity_network() {
  TwoLayers net{nn::Linear(3, 3), nn::Linear(3, 1)};
  NoGradGuard no_grad;
  net.hidden.weight.copy_(scalar_tensor(1));
  net.hidden.bias.copy_(tensor({0, -1, -2}, {3}));
  net.output.weight.copy_(tensor({1, -2, 2}, {1, 3}));
  net.output.bias.copy_(scalar_tensor(0));
  return net;
}
