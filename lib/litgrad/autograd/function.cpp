// autograd::Function: a custom operation recorded as one Node, its backward the user's.

#include "litgrad/autograd/function.hpp"

#include <cxxabi.h>

#include <cstdlib>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"

namespace litgrad::autograd {

void AutogradContext::save_for_backward(std::vector<Tensor> tensors) {
  saved_ = std::move(tensors);
  versions_.clear();
  for (const Tensor& t : saved_) versions_.push_back(t.defined() ? t.version() : 0);
}

std::vector<Tensor> AutogradContext::saved_tensors() const {
  for (std::size_t i = 0; i < saved_.size(); ++i)
    if (saved_[i].defined() && saved_[i].version() != versions_[i])
      throw AutogradError("backward: saved tensor ", i, " of ", name_, " (shape ", saved_[i].shape(),
                          ") was changed in place after it was saved: it is at version ", saved_[i].version(),
                          ", it was at version ", versions_[i]);
  return saved_;
}

bool AutogradContext::needs_input_grad(std::size_t i) const {
  if (i >= needs_grad_.size())
    throw IndexError("needs_input_grad: ", name_, " has ", needs_grad_.size(), " tensor arguments, not ", i + 1);
  return needs_grad_[i];
}

namespace detail {

std::string type_name(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  // Namespaces and enclosing classes off: up to the last "::" outside any template arguments.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == '<' || name[i] == '(') ++depth;
    if (name[i] == '>' || name[i] == ')') --depth;
    if (depth == 0 && name[i] == ':' && name[i + 1] == ':') start = i + 2;
  }
  return name.substr(start);
}

Tensor record_function(const char* name, const Tensor& output, std::vector<Tensor> inputs,
                       std::shared_ptr<AutogradContext> ctx,
                       std::vector<Tensor> (*backward)(AutogradContext*, const Tensor&)) {
  if (!output.defined()) throw AutogradError(name, ": forward returned an undefined tensor");
  // The user's backward, with its results checked against the inputs they belong to.
  auto call = [name, ctx, backward, shapes = [&] {
    std::vector<Shape> s;
    for (const Tensor& t : inputs) s.push_back(t.defined() ? t.shape() : Shape());
    return s;
  }()](const Tensor& g) {
    std::vector<Tensor> grads = backward(ctx.get(), g);
    if (grads.size() > shapes.size())
      throw AutogradError(name, ": backward returned ", grads.size(), " gradients for ", shapes.size(),
                          " tensor arguments");
    for (std::size_t i = 0; i < grads.size(); ++i)
      if (grads[i].defined() && grads[i].shape() != shapes[i])
        throw AutogradError(name, ": backward returned a gradient of shape ", grads[i].shape(), " for argument ", i,
                            " of shape ", shapes[i]);
    grads.resize(shapes.size());
    return grads;
  };
  // A fresh handle on the output's numbers, so that the result's history is the Function alone.
  const Tensor value = output.detach();
  // Recorded under its author's name, not an entry of the library's table of operations
  // (ops/registry.hpp): the one kind of Node the library makes for operations it does not know.
  if (!litgrad::detail::records(inputs)) return value;
  return litgrad::detail::make_node(
      name, value, litgrad::detail::Node::InputList(inputs.begin(), inputs.end()), call,
      [call](const Tensor& g, const Tensor&, const std::vector<Tensor>&) { return call(g); },
      litgrad::detail::Saved::nothing());  // (saved tensors are checked by saved_tensors())
}

}  // namespace detail
}  // namespace litgrad::autograd
