// Exercise 2.4 · The backward walk: the reference solution.
#include <cstddef>
#include <set>
#include <vector>

struct Node {
  double data = 0, grad = 0;
  std::vector<Node*> parents;  // the nodes this one was made from
  std::vector<double> local;   // ∂ this / ∂ parents[i]
};

namespace {
// Adds `n` to `order` after every node it was made from, each node once.
void topological(Node* n, std::set<Node*>& seen, std::vector<Node*>& order) {
  if (!seen.insert(n).second) return;  // reached before, through another path
  for (Node* p : n->parents) topological(p, seen, order);
  order.push_back(n);
}
}  // namespace

void backward(Node& result) {
  std::set<Node*> seen;
  std::vector<Node*> order;
  topological(&result, seen, order);
  result.grad = 1;
  // From the result back: a node pushes once every node made from it has pushed.
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (std::size_t i = 0; i < (*it)->parents.size(); ++i)
      (*it)->parents[i]->grad += (*it)->grad * (*it)->local[i];
}
