// The backward pass: a topological sort of the recorded graph and one loop over it in reverse.
// Every gradient a tensor receives is summed in its pending_grad; when the loop reaches the
// tensor, its gradient is whole: its hooks see it, a leaf adds it to grad(), and an operation's
// backward passes it on to the operation's inputs.

#include "litgrad/autograd/autograd.hpp"

#include <algorithm>
#include <atomic>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/kernels/elementwise.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad {

namespace {
thread_local bool pass_running = false;  // a backward pass is running on this thread
std::atomic<std::uint64_t> passes{0};
std::atomic<std::uint64_t> hook_ids{0};
}  // namespace

namespace detail {

namespace {

// g += delta, allocating g on first use. This is where gradients from several uses of one
// tensor add up, for leaves and intermediate tensors alike. `fresh` says that delta was just
// made by a backward step and nothing else will write to it, so g may take it over instead of
// copying it. With `graph`, the sum is an operation (recorded, a new tensor), as the gradients
// of create_graph must be.
void accumulate(Tensor& g, const Tensor& delta, bool fresh, bool graph) {
  if (!g.defined()) {
    if (fresh || graph) {
      g = delta;
    } else {
      g = uninitialized_tensor(delta.shape());
      kernels::copy(delta.data(), delta.numel(), g.data());
    }
  } else if (graph) {
    g = g + delta;
  } else {
    kernels::add_into(g.numel(), delta.data(), g.data());  // g += delta
  }
}

// Every tensor that a gradient from `roots` passes through, each after all tensors computed
// from it (depth-first, iterative so that a long chain cannot overflow the stack). Each tensor
// it reaches is marked with `pass`, a number no other pass uses. The order points at the
// tensors where the graph holds them (in `roots` and in the Nodes' inputs) rather than copying
// them: a copy is an atomic count up and down per tensor, a cost the size of a small step's
// arithmetic. The pointers stay good while `roots` lives and no Node's inputs are cleared.
std::vector<const Tensor*> topological_order(const std::vector<Tensor>& roots, std::uint64_t pass) {
  std::vector<const Tensor*> order;
  std::vector<std::pair<const Tensor*, std::size_t>> stack;  // a tensor, and the next input to visit
  order.reserve(32);
  stack.reserve(32);
  for (const Tensor& root : roots) {
    if (root.impl().reached_in_pass == pass) continue;
    root.impl().reached_in_pass = pass;
    stack.push_back({&root, 0});
    while (!stack.empty()) {
      auto& [t, next_input] = stack.back();
      const auto* inputs = t->impl().grad_fn ? &t->impl().grad_fn->inputs : nullptr;
      if (inputs && next_input < inputs->size()) {
        const Tensor& in = (*inputs)[next_input++];
        if (needs_grad(in) && in.impl().reached_in_pass != pass) {
          in.impl().reached_in_pass = pass;
          stack.push_back({&in, 0});
        }
      } else {
        order.push_back(t);
        stack.pop_back();
      }
    }
  }
  std::reverse(order.begin(), order.end());  // roots first, leaves last
  return order;
}

// What one pass computes: backward() (every leaf's grad) or autograd::grad() (the gradients
// of `targets`, touching no grad()).
struct Pass {
  bool create_graph = false;
  bool keep_graph = false;
  const std::vector<Tensor>* targets = nullptr;  // autograd::grad: the inputs asked for
  std::vector<Tensor> captured;                  // their gradients
};

// Throws AutogradError unless the tensors that t's operation saved are as they were.
void check_versions(const Node& node, const TensorImpl& t) {
  auto changed = [&](const std::string& which, const Shape& shape, std::uint64_t was, std::uint64_t now) {
    throw AutogradError(
        "backward: ", which, " of ", node.op, " (shape ", shape,
        "), which its gradient needs, was changed in place after ", node.op, " used it: it is at version ", now,
        ", it was at version ", was,
        " (an in-place operation such as copy_ or add_ between the forward and backward(); torch refuses the same)");
  };
  if (node.saved.output && t.storage->version != node.output_version)
    changed("the output", t.shape, node.output_version, t.storage->version);
  for (std::size_t i = 0; i < node.inputs.size() && i < 32; ++i) {
    const Tensor& in = node.inputs[i];
    if (!in.defined() || !((node.saved.inputs >> i) & 1u)) continue;
    if (in.impl().storage->version != node.input_versions[i])
      changed(detail::message("input ", i), in.shape(), node.input_versions[i], in.impl().storage->version);
  }
  for (const Node::Kept& read : node.reads)
    if (read.tensor.impl().storage->version != read.version)
      changed(read.what, read.tensor.shape(), read.version, read.tensor.impl().storage->version);
}

// Calls t's hooks on its whole gradient g, each possibly replacing it.
Tensor run_hooks(TensorImpl& t, Tensor g) {
  for (const auto& [id, hook] : t.hooks) {
    Tensor replaced = hook(g);
    if (!replaced.defined()) continue;
    if (replaced.shape() != g.shape())
      throw ShapeError("register_hook: a hook returned a gradient of shape ", replaced.shape(),
                       " for a tensor of shape ", t.shape);
    g = replaced;
  }
  return g;
}

// The body of propagate, over `order` (roots first, as topological_order gives it): every step's
// gradient computed and added to its inputs' pending_grad, freeing what each step saved unless
// the graph is kept.
void send_gradients(const std::vector<const Tensor*>& order, const std::vector<Tensor>& roots,
                    const std::vector<Tensor>& seeds, Pass& pass) {
  const bool graph = pass.create_graph;
  for (std::size_t r = 0; r < roots.size(); ++r) accumulate(roots[r].impl().pending_grad, seeds[r], false, graph);
  // Which tensors a gradient must still pass through: all of them for backward(); for grad(),
  // those from which a target can be reached (marked here, leaves first).
  const std::uint64_t needed_mark = ++passes;
  auto is_target = [&](const TensorImpl& t) {
    if (!pass.targets) return false;
    return std::any_of(pass.targets->begin(), pass.targets->end(), [&](const Tensor& x) { return &x.impl() == &t; });
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    TensorImpl& t = (*it)->impl();
    bool needed = !pass.targets || is_target(t);
    if (t.grad_fn)
      for (const Tensor& in : t.grad_fn->inputs)
        needed = needed || (needs_grad(in) && in.impl().reached_in_pass == needed_mark);
    if (needed) t.reached_in_pass = needed_mark;
  }
  // Every step that will run can run, checked before any gradient is added anywhere.
  for (const Tensor* handle : order) {
    const TensorImpl& t = handle->impl();
    if (t.reached_in_pass != needed_mark || !t.grad_fn) continue;
    const Node& node = *t.grad_fn;
    if (!node.backward)
      throw AutogradError("backward: the graph through ", node.op,
                          " was already freed by an earlier backward(); pass retain_graph=true to the first backward() "
                          "to run it again");
    if (graph && !node.graph_backward)
      throw AutogradError("backward with create_graph: the gradient of ", node.op,
                          " is computed by a kernel that records no graph, so it cannot be differentiated again "
                          "(autograd/autograd.hpp lists the operations whose gradients can be)");
    check_versions(node, t);
  }
  for (const Tensor* handle : order) {
    TensorImpl& t = handle->impl();
    if (t.reached_in_pass != needed_mark) continue;
    Tensor g = std::move(t.pending_grad);
    t.pending_grad = Tensor();
    if (!g.defined()) continue;  // no gradient reached it
    if (!t.hooks.empty()) g = run_hooks(t, g);
    if (pass.targets) {
      for (std::size_t k = 0; k < pass.targets->size(); ++k)
        if (&(*pass.targets)[k].impl() == &t) pass.captured[k] = g;
    } else if (!t.grad_fn || t.retains_grad) {  // a leaf's gradient, or one asked to be kept
      accumulate(t.grad, graph ? g : g.detach(), false, graph);
    }
    if (!t.grad_fn) continue;
    Node& node = *t.grad_fn;
    std::vector<Tensor> grads;
    if (graph) {
      grads = node.graph_backward(g, *handle, {node.inputs.begin(), node.inputs.end()});
    } else {
      grads = node.backward(g);
    }
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const Tensor& in = node.inputs[i];
      if (!in.defined() || !in.requires_grad() || i >= grads.size() || !grads[i].defined()) continue;
      if (grads[i].shape() != in.shape())  // else it would be added to the wrong elements, or past the end
        throw AutogradError("backward: the gradient ", node.op, " gave its input ", i, " has shape ", grads[i].shape(),
                            ", and the input has shape ", in.shape(), " (a bug in litgrad's ", node.op,
                            "; please report it)");
      accumulate(in.impl().pending_grad, grads[i], /*fresh=*/true, graph);
    }
    if (!pass.keep_graph) {  // free what the step saved; the emptied Node stays, to report a second backward()
      node.backward = nullptr;
      node.graph_backward = nullptr;
    }
  }
}

// Sends each seed back from its root through the graph. Gradients of intermediate tensors live
// in pending_grad only while the pass needs them; none is left behind, even when a step throws.
// A pass marks the tensors it walks (reached_in_pass) and keeps its order as pointers into the
// graph, so a second pass started inside it (by a hook, say) would overwrite its marks and could
// free what its order points at: that is refused, naming `op`.
void propagate(const char* op, const std::vector<Tensor>& roots, const std::vector<Tensor>& seeds, Pass& pass) {
  if (pass_running)
    throw AutogradError(op,
                        ": called while a backward pass is running on this thread (from a hook, say); litgrad's "
                        "backward passes do not nest, since a pass marks the graph it walks. Compute what the hook "
                        "needs after the backward() that runs it");
  struct Running {
    Running() { pass_running = true; }
    ~Running() { pass_running = false; }
  } running;
  const std::vector<const Tensor*> order = topological_order(roots, ++passes);
  {
    struct ClearPending {
      const std::vector<const Tensor*>& order;
      ~ClearPending() {
        for (const Tensor* t : order) t->impl().pending_grad = Tensor();
      }
    } clear_pending{order};
    send_gradients(order, roots, seeds, pass);
  }
  // With the gradients sent, the inputs last, from the leaves' end: they may hold the rest of
  // the graph, and clearing a Node's inputs frees only tensors this loop has passed.
  if (!pass.keep_graph)
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if ((*it)->impl().grad_fn && !(*it)->impl().grad_fn->backward) (*it)->impl().grad_fn->inputs.clear();
}

// The seed for a root: the given gradient, checked, or 1 for a one-element root.
Tensor seed_for(const char* op, const Tensor& root, const Tensor& gradient) {
  if (gradient.defined()) {
    if (gradient.shape() != root.shape())
      throw ShapeError(op, ": gradient of shape ", gradient.shape(), " for a tensor of shape ", root.shape());
    return gradient;
  }
  if (root.numel() != 1)
    throw AutogradError(op, ": a gradient can be implied only for a one-element output; this tensor has shape ",
                        root.shape(), " (pass the gradient, or reduce it first, e.g. with sum)");
  return ones(root.shape());
}

}  // namespace
}  // namespace detail

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  using namespace detail;
  if (!impl().requires_grad)
    throw AutogradError(
        "backward: this tensor does not require grad and has no grad_fn "
        "(did you forget requires_grad_() on a parameter, or run under NoGradGuard?)");
  const Tensor seed = seed_for("backward", *this, gradient);
  // The backward pass records nothing, unless create_graph asks it to.
  const bool was_enabled = is_grad_enabled();
  set_grad_enabled(create_graph);
  struct Restore {
    bool was;
    ~Restore() { set_grad_enabled(was); }
  } restore{was_enabled};
  Pass pass;
  pass.create_graph = create_graph;
  pass.keep_graph = retain_graph.value_or(create_graph);
  propagate("backward", {*this}, {seed}, pass);
}

namespace autograd {

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph, bool create_graph,
                         bool allow_unused) {
  using namespace detail;
  if (outputs.empty()) throw AutogradError("grad: no outputs to differentiate");
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size())
    throw AutogradError("grad: ", grad_outputs.size(), " grad_outputs for ", outputs.size(), " outputs");
  std::vector<Tensor> seeds;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].defined() || !outputs[i].requires_grad())
      throw AutogradError("grad: output ", i,
                          " does not require grad (it does not depend on anything that requires grad, or was computed "
                          "under NoGradGuard)");
    seeds.push_back(seed_for("grad", outputs[i], grad_outputs.empty() ? Tensor() : grad_outputs[i]));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].defined() || !inputs[i].requires_grad())
      throw AutogradError("grad: input ", i, " does not require grad, so it has no gradient");
  const bool was_enabled = is_grad_enabled();
  set_grad_enabled(create_graph);  // the pass records itself only with create_graph
  struct Restore {
    bool was;
    ~Restore() { set_grad_enabled(was); }
  } restore{was_enabled};
  Pass pass;
  pass.create_graph = create_graph;
  pass.keep_graph = retain_graph.value_or(create_graph);
  pass.targets = &inputs;
  pass.captured.resize(inputs.size());
  propagate("grad", outputs, seeds, pass);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!pass.captured[i].defined() && !allow_unused)
      throw AutogradError(
          "grad: input ", i, " of shape ", inputs[i].shape(),
          " was not used to compute the outputs (pass allow_unused = true to get an undefined gradient for it)");
  return pass.captured;
}

}  // namespace autograd

// ---------------------------------------------------------------------------------------------
// Tensor's autograd members that touch the graph.

Tensor& Tensor::retain_grad() {
  if (!requires_grad()) throw AutogradError("retain_grad: this tensor of shape ", shape(), " does not require grad");
  if (!is_leaf()) impl().retains_grad = true;
  return *this;
}

bool Tensor::retains_grad() const { return impl().retains_grad; }

RemovableHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) {
  if (!requires_grad())
    throw AutogradError("register_hook: this tensor of shape ", shape(),
                        " does not require grad, so no gradient will reach a hook");
  const std::uint64_t id = ++hook_ids;
  impl().hooks.emplace_back(id, std::move(hook));
  return RemovableHandle(impl_, id);
}

void RemovableHandle::remove() {
  if (auto t = tensor_.lock()) {
    auto& hooks = t->hooks;
    hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [&](const auto& h) { return h.first == id_; }), hooks.end());
  }
  tensor_.reset();
}

std::uint64_t Tensor::version() const { return impl().storage->version; }

}  // namespace litgrad
