// Reading the recorded graph out as data (graph.hpp), and the scopes an operation ran inside.
//
// Scopes are a stack of frames on this thread, each frame on the stack of the Scope that
// opened it; a ScopeCapture is told of every Node made while it lives (detail::note_node) and
// copies the stack for it. With no capture alive a Scope does nothing, so the modules that
// open one on every forward pass cost a test each.

#include "litgrad/autograd/graph.hpp"

#include <algorithm>
#include <map>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"

namespace litgrad::autograd {

namespace {
thread_local ScopeCapture* capture = nullptr;       // the innermost capture alive on this thread
thread_local std::vector<const void*> open_scopes;  // outermost first
}  // namespace

// Where the capture's private map is written from the note_node hook.
struct CaptureAccess {
  static void note(const litgrad::detail::Node* node) {
    if (capture) capture->scopes_[node] = open_scopes;
  }
};

ScopeCapture::ScopeCapture() : outer_(capture) {
  capture = this;
  detail::note_node = &CaptureAccess::note;
}

ScopeCapture::~ScopeCapture() {
  capture = outer_;
  if (!capture) detail::note_node = nullptr;
}

std::vector<const void*> ScopeCapture::scopes_of(const litgrad::detail::Node* node) const {
  const auto it = scopes_.find(node);
  return it == scopes_.end() ? std::vector<const void*>() : it->second;
}

Scope::Scope(const void* owner) : open_(capture != nullptr) {
  if (open_) open_scopes.push_back(owner);
}

Scope::~Scope() {
  if (open_) open_scopes.pop_back();
}

RecordedGraph recorded_graph(const Tensor& output, const std::vector<std::pair<std::string, Tensor>>& names,
                             const ScopeCapture* scopes) {
  if (!output.defined()) throw ValueError("recorded_graph: the output is an undefined tensor");
  // A vertex per Node, and per TensorImpl for tensors with no history: one tensor handle
  // shared by several operations is one vertex, as a parameter read twice is.
  std::map<const void*, std::size_t> index;
  RecordedGraph g;
  // Depth first from the output, inputs before the operation that read them, without
  // recursion (a long chain of operations would overflow the stack).
  struct Frame {
    Tensor tensor;
    std::size_t next_input;  // counting the inputs, then the other tensors the operation read
  };
  // An operation's inputs, then what else it read (an index, a condition): both flow into it.
  const auto read = [](const litgrad::detail::Node& node, std::size_t i) -> const Tensor& {
    return i < node.inputs.size() ? node.inputs[i] : node.reads[i - node.inputs.size()].tensor;
  };
  const auto key = [](const Tensor& t) -> const void* {
    const auto& impl = t.impl();
    return impl.grad_fn ? static_cast<const void*>(impl.grad_fn.get()) : static_cast<const void*>(&impl);
  };
  std::vector<Frame> stack{{output, 0}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    const auto& node = top.tensor.impl().grad_fn;
    if (node && !node->backward)
      throw AutogradError("recorded_graph: the graph of this tensor (made by ", node->op,
                          ") was freed by a backward pass; record it again, or call backward with retain_graph");
    if (node && top.next_input < node->inputs.size() + node->reads.size()) {
      const Tensor& in = read(*node, top.next_input++);
      if (in.defined() && !index.count(key(in))) stack.push_back({in, 0});
      continue;
    }
    RecordedVertex v;
    v.shape = top.tensor.shape();
    v.requires_grad = top.tensor.requires_grad();
    if (node) {
      v.op = node->op;
      if (scopes) v.scopes = scopes->scopes_of(node.get());
    } else {
      v.tensor = top.tensor;
      for (const auto& [name, t] : names)
        if (t.defined() && &t.impl() == &top.tensor.impl()) {
          v.name = name;
          break;
        }
    }
    const std::size_t at = g.vertices.size();
    index[key(top.tensor)] = at;
    g.vertices.push_back(std::move(v));
    if (node)
      for (std::size_t i = 0; i < node->inputs.size() + node->reads.size(); ++i)
        if (read(*node, i).defined()) g.edges.emplace_back(index.at(key(read(*node, i))), at);
    stack.pop_back();
  }
  return g;
}

}  // namespace litgrad::autograd
