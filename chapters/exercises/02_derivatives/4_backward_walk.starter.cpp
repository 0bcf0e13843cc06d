// Exercise 2.4 · The backward walk. This is your file: write backward below, then run
// `tools/exercise check 02.4`.
#include <cstddef>
#include <set>
#include <vector>

// A number of the computation, with what it was made from.
struct Node {
  double data = 0, grad = 0;
  std::vector<Node*> parents;  // the nodes this one was made from
  std::vector<double> local;   // ∂ this / ∂ parents[i]
};

// Sets result.grad to 1 and gives every node the result was made from its gradient.
void backward(Node& result) {
  (void)result;  // your walk here
}
