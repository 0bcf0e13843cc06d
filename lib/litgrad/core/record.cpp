// What the backward pass walks, recorded as operations run: whether recording is on (per
// thread), one Node per operation that had an input requiring grad, and the version count that
// lets a Node refuse an input changed in place after it was recorded. The walk itself is
// autograd/autograd.cpp.

#include <algorithm>
#include <atomic>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/core/grad_mode.hpp"

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
EnableGradGuard::EnableGradGuard() : previous_(grad_enabled) { grad_enabled = true; }
EnableGradGuard::~EnableGradGuard() { grad_enabled = previous_; }

namespace detail {

Node::Node(const char* name, InputList in, BackwardFn fn, GraphBackwardFn graph_fn, Saved what,
           std::uint64_t out_version)
    : op(name),
      inputs(std::move(in)),
      backward(std::move(fn)),
      graph_backward(std::move(graph_fn)),
      saved(what),
      output_version(out_version) {
  input_versions.reserve(inputs.size());
  for (const Tensor& t : inputs) input_versions.push_back(t.defined() ? t.impl().storage->version : 0);
  ++live_nodes;
}
Node::~Node() { --live_nodes; }

bool records(Inputs inputs) { return grad_enabled && std::any_of(inputs.begin(), inputs.end(), needs_grad); }

bool records(const std::vector<Tensor>& inputs) {
  return grad_enabled && std::any_of(inputs.begin(), inputs.end(), needs_grad);
}

thread_local void (*note_node)(const Node*) = nullptr;

Tensor make_node(const char* op, const Tensor& value, Node::InputList inputs, BackwardFn backward,
                 GraphBackwardFn graph_backward, Saved saved, Reads reads) {
  Tensor out = share_storage(value, value.shape());
  out.impl().requires_grad = true;
  auto node = kernels::make_shared<Node>(op, std::move(inputs), std::move(backward), std::move(graph_backward), saved,
                                         value.impl().storage->version);
  node->reads.reserve(reads.size());
  for (const Read& r : reads) node->reads.push_back({r.what, r.tensor, r.tensor.impl().storage->version});
  if (note_node) note_node(node.get());
  out.impl().grad_fn = std::move(node);
  return out;
}

void note_in_place(const char* op, const Tensor& t, const char* instead) {
  if (grad_enabled && t.requires_grad())
    throw AutogradError(op, ": this tensor of shape ", t.shape(),
                        (t.is_leaf() ? " is a leaf that requires grad" : " was made by " + t.grad_fn()),
                        ", and gradients are being recorded; in-place changes are not recorded, so write parameters "
                        "inside a NoGradGuard, and use the out-of-place form (",
                        instead ? std::string(instead) : std::string(op).substr(0, std::string(op).size() - 1),
                        ") inside a graph");
  ++t.impl().storage->version;
}

void bump_version(const Tensor& t) { ++t.impl().storage->version; }

}  // namespace detail

}  // namespace litgrad
