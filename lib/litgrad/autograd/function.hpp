#pragma once
/// \file function.hpp
/// \brief Operations of your own with gradients of your own: `autograd::Function`, as torch's
/// `torch.autograd.Function`.
///
/// A Function is a struct with two static members: `forward(ctx, args...)`, which computes the
/// output from tensors (and any other arguments) and may save what the backward needs in `ctx`;
/// and `backward(ctx, grad_output)`, which returns the gradient of each tensor argument, in order
/// (an undefined Tensor for one that needs none). `Function<F>::apply(args...)` runs forward
/// without recording it, and records the result as one operation whose backward is F::backward,
/// named `F::name` if the struct has one (`static constexpr const char* name = "cube";`), and
/// otherwise after the struct itself, as torch names a Function's node after its class (`Cube`;
/// namespaces are left out). A backward written with litgrad's operations can itself be
/// differentiated (autograd::grad with create_graph).
///
/// \code
/// // y = x³, with the gradient 3x² written by hand.
/// struct Cube {
///   static constexpr const char* name = "cube";
///   static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
///     ctx->save_for_backward({x});
///     return x * x * x;
///   }
///   static std::vector<Tensor> backward(autograd::AutogradContext* ctx, const Tensor& g) {
///     const Tensor x = ctx->saved_tensors()[0];
///     return {g * 3.0 * x * x};
///   }
/// };
/// Tensor y = autograd::Function<Cube>::apply(x);   // y.grad_fn() is "cube"
/// \endcode

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "litgrad/autograd/autograd.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad::autograd {

/// \brief What a Function's forward hands its backward, as torch's `ctx`.
class AutogradContext {
 public:
  /// \brief Keeps \p tensors for the backward. A tensor changed in place after this call makes
  /// saved_tensors() throw, as torch does.
  void save_for_backward(std::vector<Tensor> tensors);
  /// \brief The tensors save_for_backward() kept, in order.
  /// \throws AutogradError naming the tensor when one was changed in place since it was saved.
  std::vector<Tensor> saved_tensors() const;
  /// \brief Whether tensor argument \p i of the call requires grad (its gradient will be used).
  bool needs_input_grad(std::size_t i) const;
  /// \brief Numbers (or anything else convertible to double) the backward needs, by name, as
  /// torch's attributes on `ctx`.
  std::map<std::string, double> saved_data;

  /// \cond INTERNAL
  std::vector<bool> needs_grad_;
  std::string name_;
  /// \endcond

 private:
  std::vector<Tensor> saved_;
  std::vector<std::uint64_t> versions_;
};

namespace detail {
/// \cond INTERNAL
// Records `output` as the result of a Function named `name` over `inputs`, whose backward calls
// `backward` with the gradient of the output.
Tensor record_function(const char* name, const Tensor& output, std::vector<Tensor> inputs,
                       std::shared_ptr<AutogradContext> ctx,
                       std::vector<Tensor> (*backward)(AutogradContext*, const Tensor&));

template <class T>
void collect_tensor(std::vector<Tensor>& into, const T& arg) {
  if constexpr (std::is_same_v<std::decay_t<T>, Tensor>) into.push_back(arg);
}

// The name of a type as written, without its namespaces: "Cube" for the mangled name of
// my::Cube (as the compiler's runtime demangles it).
std::string type_name(const char* mangled);

template <class F, class = void>
struct has_name : std::false_type {};
template <class F>
struct has_name<F, std::void_t<decltype(F::name)>> : std::true_type {};

// F::name, or F's own name when it has none.
template <class F>
const char* function_name() {
  if constexpr (has_name<F>::value) {
    return F::name;
  } else {
    static const std::string name = type_name(typeid(F).name());
    return name.c_str();
  }
}
/// \endcond
}  // namespace detail

/// \brief A custom operation F: see the top of this file. F provides `static Tensor
/// forward(AutogradContext*, Args...)`, `static std::vector<Tensor> backward(AutogradContext*,
/// const Tensor& grad_output)` and, if it likes, `static constexpr const char* name`.
template <class F>
struct Function {
  /// \brief F::forward(args...) as one recorded operation; see the top of this file.
  /// \throws AutogradError when F::backward returns more gradients than there are tensor
  ///   arguments, or a gradient of another shape than its argument.
  template <class... Args>
  static Tensor apply(Args&&... args) {
    std::vector<Tensor> inputs;
    (detail::collect_tensor(inputs, args), ...);
    auto ctx = std::make_shared<AutogradContext>();
    const char* name = detail::function_name<F>();
    ctx->name_ = name;
    for (const Tensor& t : inputs) ctx->needs_grad_.push_back(t.defined() && t.requires_grad());
    Tensor output;
    {
      NoGradGuard no_grad;  // forward's own operations are not recorded: the Function is one
      output = F::forward(ctx.get(), std::forward<Args>(args)...);
    }
    return detail::record_function(name, output, std::move(inputs), std::move(ctx), &F::backward);
  }
};

}  // namespace litgrad::autograd
