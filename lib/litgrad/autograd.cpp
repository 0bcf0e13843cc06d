// The backward pass: a topological sort of the recorded graph and one loop over it in reverse.

#include "litgrad/autograd.hpp"

#include <algorithm>
#include <atomic>

#include "litgrad/detail/node.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/error.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/kernels/elementwise.hpp"

namespace litgrad {

namespace {
thread_local bool grad_enabled = true;
std::atomic<long> live_nodes{0};
}  // namespace

long live_graph_nodes() { return live_nodes.load(); }

bool is_grad_enabled() { return grad_enabled; }
void set_grad_enabled(bool enabled) { grad_enabled = enabled; }
NoGradGuard::NoGradGuard() : previous_(grad_enabled) { grad_enabled = false; }
NoGradGuard::~NoGradGuard() { grad_enabled = previous_; }

namespace detail {

Node::Node(const char* name, std::vector<Tensor> in, BackwardFn fn)
    : op(name), inputs(std::move(in)), backward(std::move(fn)) {
  ++live_nodes;
}
Node::~Node() { --live_nodes; }

Tensor record(const char* op, const Tensor& value, std::vector<Tensor> inputs, BackwardFn backward) {
  if (!grad_enabled) return value;
  const bool any = std::any_of(inputs.begin(), inputs.end(),
                               [](const Tensor& t) { return t.defined() && t.requires_grad(); });
  if (!any) return value;
  Tensor out = share_storage(value, value.shape());
  out.impl().requires_grad = true;
  out.impl().grad_fn = kernels::make_shared<Node>(op, std::move(inputs), std::move(backward));
  return out;
}

namespace {

// g += delta, allocating g on first use. This is where gradients from several uses of one
// tensor add up, for leaves and intermediate tensors alike. `fresh` says that delta was just
// made by a backward step and nothing else will write to it, so an intermediate gradient may
// take it over instead of copying it (a leaf's grad, which the user sees, is always a copy).
void accumulate(Tensor& g, const Tensor& delta, bool fresh = false) {
  if (!g.defined() && fresh) {
    g = delta;
    return;
  }
  if (!g.defined()) {
    g = uninitialized_tensor(delta.shape());
    kernels::copy(delta.data(), delta.numel(), g.data());
    return;
  }
  kernels::add_into(g.numel(), delta.data(), g.data());  // g += delta
}

// Every tensor that the gradient of `root` must pass through, each after all tensors that
// were computed from it (depth-first, iterative so that a long chain cannot overflow the stack).
// Each tensor it reaches is marked with `pass`, a number no other pass uses.
std::vector<TensorImpl*> topological_order(TensorImpl* root, std::uint64_t pass) {
  std::vector<TensorImpl*> order;
  std::vector<std::pair<TensorImpl*, std::size_t>> stack{{root, 0}};
  order.reserve(32);
  stack.reserve(32);
  root->reached_in_pass = pass;
  while (!stack.empty()) {
    auto& [t, next_input] = stack.back();
    const auto* inputs = t->grad_fn ? &t->grad_fn->inputs : nullptr;
    if (inputs && next_input < inputs->size()) {
      const Tensor& in = (*inputs)[next_input++];
      if (in.defined() && in.requires_grad() && in.impl().reached_in_pass != pass) {
        in.impl().reached_in_pass = pass;
        stack.push_back({&in.impl(), 0});
      }
    } else {
      order.push_back(t);
      stack.pop_back();
    }
  }
  std::reverse(order.begin(), order.end());  // root first, leaves last
  return order;
}

// Sends `seed` back through `order` (root first, as topological_order gives it): each step's
// gradients go to its inputs' pending_grad, or to a leaf's grad. Gradients of intermediate
// tensors live in pending_grad only while the pass needs them; none is left behind, even when
// a step throws.
void propagate(const std::vector<TensorImpl*>& order, TensorImpl& root, const Tensor& seed) {
  struct ClearPending {
    const std::vector<TensorImpl*>& order;
    ~ClearPending() {
      for (TensorImpl* t : order) t->pending_grad = Tensor();
    }
  } clear_pending{order};
  accumulate(root.grad_fn ? root.pending_grad : root.grad, seed);
  for (TensorImpl* t : order) {
    if (!t->grad_fn) continue;  // a leaf: its gradient has arrived in t->grad
    Node& node = *t->grad_fn;
    const Tensor g = std::move(t->pending_grad);
    t->pending_grad = Tensor();
    const std::vector<Tensor> grads = node.backward(g);
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      Tensor& in = node.inputs[i];
      if (!in.defined() || !in.requires_grad() || !grads[i].defined()) continue;
      auto& target = in.impl();
      if (target.grad_fn) accumulate(target.pending_grad, grads[i], /*fresh=*/true);
      else accumulate(target.grad, grads[i]);
    }
  }
}

}  // namespace
}  // namespace detail

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  using namespace detail;
  auto& root = impl();
  if (!root.requires_grad)
    throw AutogradError("backward: this tensor does not require grad and has no grad_fn "
                        "(did you forget requires_grad_() on a parameter, or run under NoGradGuard?)");
  Tensor seed;
  if (gradient.defined()) {
    if (gradient.shape() != root.shape)
      throw ShapeError("backward: gradient of shape " + to_string(gradient.shape()) +
                       " for a tensor of shape " + to_string(root.shape));
    seed = gradient;
  } else {
    if (numel() != 1)
      throw AutogradError("backward: a gradient can be implied only for a one-element output; "
                          "this tensor has shape " + to_string(root.shape) +
                          " (pass backward(gradient) or reduce it first, e.g. with sum)");
    seed = ones(root.shape);
  }

  NoGradGuard no_grad;  // the backward pass computes with tensors but records nothing
  static std::atomic<std::uint64_t> passes{0};
  const auto order = topological_order(&root, ++passes);
  for (const TensorImpl* t : order)
    if (t->grad_fn && !t->grad_fn->backward)
      throw AutogradError(std::string("backward: the graph through ") + t->grad_fn->op +
                          " was already freed by an earlier backward(); pass retain_graph=true "
                          "to the first backward() to run it again");

  propagate(order, root, seed);
  // Free what each step saved, once the pass is over (`order` points into the graph). From the
  // leaves' end: emptying a Node frees only tensors later in `order`, which are done with.
  // The emptied Nodes stay, to report a second backward() as misuse.
  if (!retain_graph)
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if ((*it)->grad_fn) {
        (*it)->grad_fn->backward = nullptr;
        (*it)->grad_fn->inputs.clear();
      }
}

}  // namespace litgrad
