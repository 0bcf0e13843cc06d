// Exercise 2.4 · The backward walk
// ================================
//
// Write the heart of section 2's autograd: the walk that fills in every gradient. Here
// a number of the computation is a ``Node``: its ``data``, its ``grad``, the nodes it
// was made from (``parents``) and, for each parent, the local derivative of the node
// with respect to that parent (``local``): for :math:`c = a b`, the parents are
// :math:`a, b` and the local derivatives :math:`b, a`. A node made from the same parent
// twice, as :math:`a \cdot a`, lists it twice.
//
// ``backward(result)`` sets the result's gradient to 1 and gives every node it was made
// from, directly or not, the derivative of the result with respect to that node: each
// node pushes its gradient times each local derivative into the parent's gradient, and
// a node must push only once its own gradient is complete, that is, after every node
// made from it has pushed. Every gradient starts at 0; a node the result was not made
// from keeps 0.
//
// The tests build expressions that reuse their nodes (``a * b + a``, a diamond, a sum
// of fifty copies of one node, a square, a deep chain in which each node is the sum of
// the two before it) and compare every gradient with the chain rule's. Their numbers
// are small integers and halves, so every sum and product is exact: any right walk,
// whatever order it adds in, gives the very same bits, and the tests ask for them.

// %% hint
// Two steps, as section 2 does it: first put every node in an order in which each comes
// after all the nodes it was made from (a depth-first search that adds a node after
// its parents, and never adds one twice); then go through that order from the end. When
// a node is reached twice in the search, through two paths, what must happen the second
// time? And when a parent gets gradient from two of its children, what must happen to
// the second share?

// %% fold: includes, the graphs the tests build, and the gradients of wrong walks
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "exercise_checks.hpp"

// A number of the computation, with what it was made from.
struct Node {
  double data = 0, grad = 0;
  std::vector<Node*> parents;  // the nodes this one was made from
  std::vector<double> local;   // ∂ this / ∂ parents[i]
};

void backward(Node& result);  // yours, below

namespace {
// The nodes of one expression, kept where pointers to them stay valid.
struct Graph {
  std::deque<Node> nodes;
  Node* leaf(double x) { return &nodes.emplace_back(Node{x, 0, {}, {}}); }
  Node* add(Node* a, Node* b) {
    return &nodes.emplace_back(Node{a->data + b->data, 0, {a, b}, {1, 1}});
  }
  Node* mul(Node* a, Node* b) {
    return &nodes.emplace_back(Node{a->data * b->data, 0, {a, b}, {b->data, a->data}});
  }
  std::vector<double> grads() const {
    std::vector<double> g;
    for (const Node& n : nodes) g.push_back(n.grad);
    return g;
  }
};

// The walks the catalogued mistakes make, as switches on the right one.
struct Walk {
  bool overwrite = false;  // a parent's gradient set, not added to
  bool forwards = false;   // the order gone through from the start
  bool no_seed = false;    // the result's gradient left at 0
  bool revisit = false;    // a node added to the order once per path that reaches it
  bool breadth = false;  // nodes pushed in the order a breadth-first search meets them
};

void walk(Node& result, const Walk& w) {
  std::vector<Node*> order;
  std::set<Node*> seen;
  std::function<void(Node*)> visit = [&](Node* n) {
    if (!w.revisit && !seen.insert(n).second) return;
    for (Node* p : n->parents) visit(p);
    order.push_back(n);
  };
  if (w.breadth) {  // from the result outwards, each node once
    order.push_back(&result), seen.insert(&result);
    for (std::size_t i = 0; i < order.size(); ++i)
      for (Node* p : order[i]->parents)
        if (seen.insert(p).second) order.push_back(p);
    std::reverse(order.begin(), order.end());
  } else {
    visit(&result);
  }
  if (w.forwards) std::reverse(order.begin(), order.end());
  if (!w.no_seed) result.grad = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (std::size_t i = 0; i < (*it)->parents.size(); ++i) {
      Node& parent = *(*it)->parents[i];
      const double share = (*it)->grad * (*it)->local[i];
      parent.grad = w.overwrite ? share : parent.grad + share;
    }
}

// Builds an expression afresh: its graph and its result.
using Build = std::function<Node*(Graph&)>;

std::vector<double> gradients(const Build& build, const Walk& w) {
  Graph g;
  Node* result = build(g);
  walk(*result, w);
  return g.grads();
}

// The expressions the tests build (below).
const std::vector<Build>& expressions();

// Your walk's gradients on the expression.
std::vector<double> your_gradients(const Build& build) {
  Graph g;
  Node* result = build(g);
  backward(*result);
  return g.grads();
}

// Your walk on the expression against the chain rule's gradients (the right walk). A
// catalogued wrong walk is named only when it gives your gradients on every expression
// the tests build, not only on this one, and no other does.
void check_walk(const Build& build) {
  const std::vector<double> yours = your_gradients(build);
  const std::vector<double> expected = gradients(build, {});
  const std::vector<std::pair<Walk, std::string>> mistakes = {
      {{true, false, false, false, false}, "a gradient overwritten, not added to"},
      {{false, true, false, false, false},
       "the walk begun at the leaves, not at the result"},
      {{false, false, true, false, false}, "the result's gradient not set to 1"},
      {{false, false, false, true, false}, "a node visited once per path"},
      {{false, false, false, false, true}, "nodes pushed in breadth-first order"}};
  std::string why;
  if (yours != expected) {
    std::vector<std::vector<double>> all;
    for (const Build& b : expressions()) all.push_back(your_gradients(b));
    const std::string name = exercise::the_mistake(mistakes, [&](const Walk& w) {
      for (std::size_t k = 0; k < expressions().size(); ++k)
        if (gradients(expressions()[k], w) != all[k]) return false;
      return true;
    });
    if (!name.empty()) why = "your gradients are exactly those of " + name;
  }
  INFO(why);
  CHECK_MESSAGE(exercise::agrees(yours, expected),
                "the gradients of the nodes in the order they were made");
}
}  // namespace

// %%
// The function to write, in ``exercises/02_derivatives/4_backward_walk.cpp``:

void backward(Node& result);

// %%
// The tests.

namespace {
const std::vector<Build>& expressions() {
  static const std::vector<Build> all = {
      [](Graph& g) {  // a * b + a
        Node *a = g.leaf(3), *b = g.leaf(-2);
        return g.add(g.mul(a, b), a);
      },
      [](Graph& g) {  // (a + b) * (a * b)
        Node *a = g.leaf(1.5), *b = g.leaf(2);
        return g.mul(g.add(a, b), g.mul(a, b));
      },
      [](Graph& g) {  // (a * a) * c
        Node *a = g.leaf(-2.5), *c = g.leaf(4);
        return g.mul(g.mul(a, a), c);
      },
      [](Graph& g) {  // (a + a + ... + a) * 2, fifty a's, and a * 7 unused
        Node* a = g.leaf(0.5);
        g.mul(a, g.leaf(7));
        Node* sum = a;
        for (int i = 1; i < 50; ++i) sum = g.add(sum, a);
        return g.mul(sum, g.leaf(2));
      },
      [](Graph& g) {  // each node the sum of the two before it, 30 times
        Node *x = g.leaf(1), *y = g.leaf(1);
        for (int i = 0; i < 30; ++i) {
          Node* next = g.add(x, y);
          x = y, y = next;
        }
        return y;
      }};
  return all;
}
}  // namespace

TEST_CASE("a * b + a: a is reached twice, so its gradient is b + 1") {
  check_walk(expressions()[0]);
}

TEST_CASE(
    "a diamond, (a + b) * (a * b): every path to a adds its share, whatever order the "
    "walk takes") {
  check_walk(expressions()[1]);
}

TEST_CASE("a square, a * a, lists a twice: its gradient is 2a") {
  check_walk(expressions()[2]);
}

TEST_CASE(
    "fifty copies of one node added in a chain: its gradient is 50, and a node the "
    "result was not made from keeps 0") {
  check_walk(expressions()[3]);
}

TEST_CASE(
    "a deep chain, each step the sum of the two before it: every node's gradient a "
    "count of the paths from it to the result") {
  check_walk(expressions()[4]);
}
