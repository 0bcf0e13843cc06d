#pragma once
/// \file tensor.hpp
/// \brief `Tensor`: an N-dimensional array of doubles that remembers how it was made.
///
/// A tensor is a handle: copying a `Tensor` copies the handle, and both copies name the same
/// data, gradient and history, as Python names do in torch. Data are contiguous and
/// row-major, always `double`. torch computes in float32 by default; litgrad computes in
/// double precision throughout so that every gradient can be checked against finite
/// differences to many digits and every claim the book makes can be exact rather than
/// "close enough". A dtype tag tells indices (`Int64`) and masks (`Bool`) from numbers;
/// their elements are stored as doubles too, and arithmetic on them gives `Float64`.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "litgrad/base/shape.hpp"

namespace litgrad {

/// \brief What a tensor's elements mean: numbers, integer indices, or true/false.
enum class DType { Float64, Int64, Bool };

/// \brief `"Float64"`, `"Int64"` or `"Bool"`.
const char* to_string(DType dtype);

namespace detail {
struct TensorImpl;
}
namespace indexing {
class TensorIndex;
}

/// \brief What Tensor::register_hook() returns: remove() takes the hook off again.
class RemovableHandle {
 public:
  /// \brief A handle that removes nothing.
  RemovableHandle() = default;
  /// \brief Takes the hook off its tensor; a second call, or a call after the tensor is gone,
  /// does nothing.
  void remove();
  /// \cond INTERNAL
  RemovableHandle(std::weak_ptr<detail::TensorImpl> tensor, std::uint64_t id) : tensor_(std::move(tensor)), id_(id) {}
  /// \endcond

 private:
  std::weak_ptr<detail::TensorImpl> tensor_;
  std::uint64_t id_ = 0;
};

/// \brief An N-dimensional, contiguous, row-major array of `double` with optional gradient
/// and the record of the operation that made it.
///
/// \code
/// Tensor x = tensor({{1, 2}, {3, 4}}).requires_grad_();
/// Tensor loss = sum(x * x);
/// loss.backward();          // x.grad() is now 2 * x
/// \endcode
class Tensor {
 public:
  /// \brief An undefined tensor: no shape, no data. `defined()` is false.
  Tensor() = default;

  /// \brief Copying a Tensor copies the handle: both name the same elements, as in torch.
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;  ///< \brief The handle moved: the elements stay where they are.
  /// \brief `a = b` makes the name `a` a handle to b's tensor (the elements are not copied).
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;  ///< \brief As above, the handle moved.
  /// \brief Assigning to a temporary is a compile error: `a.grad() = Tensor()`, `x.index({0}) = y`
  /// or `lin.parameter("weight") = w` would rebind a copy of the handle and change nothing.
  /// Clear a gradient with `a.set_grad(Tensor())` (torch's `a.grad = None`) or zero it with
  /// `a.zero_grad()`; write into a tensor with copy_(), index_put_(), index_fill_(), scatter_().
  Tensor& operator=(const Tensor&) && = delete;
  Tensor& operator=(Tensor&&) && = delete;
  ~Tensor() = default;

  /// \brief True for every tensor except a default-constructed one (or an absent gradient).
  bool defined() const { return impl_ != nullptr; }

  /// \name Shape and type
  ///@{

  /// \brief The sizes of the dimensions, outermost first.
  const Shape& shape() const;
  /// \brief The number of dimensions (0 for a scalar).
  std::int64_t dim() const;
  /// \brief The size of dimension \p d; negative \p d counts from the end.
  std::int64_t size(std::int64_t d) const;
  /// \brief The number of elements.
  std::int64_t numel() const;
  /// \brief Float64, Int64 or Bool.
  DType dtype() const;
  ///@}

  /// \name Data
  ///@{

  /// \brief The elements in row-major order.
  const double* data() const;
  /// \brief The elements in row-major order, writable. Writing here bypasses autograd: do it
  /// only to leaves, outside a graph that will still be differentiated (as an optimiser does).
  double* data();
  /// \brief A copy of the elements in row-major order.
  std::vector<double> to_vector() const;
  /// \brief The value of a one-element tensor. \throws ValueError when numel() != 1.
  double item() const;
  /// \brief The element at a full index, e.g. `x.at({1, 2})`. \throws IndexError when out of range.
  double at(const std::vector<std::int64_t>& index) const;
  ///@}

  /// \name Autograd
  ///@{

  /// \brief Whether gradients flow to or through this tensor.
  bool requires_grad() const;
  /// \brief Marks a leaf as a parameter (or stops marking it); returns `*this` for chaining.
  /// \throws ValueError for a non-Float64 tensor or a tensor made by an operation.
  Tensor& requires_grad_(bool on = true);
  /// \brief True when no operation recorded this tensor (made by hand, or detached).
  bool is_leaf() const;
  /// \brief The accumulated gradient, shaped like this tensor; undefined until a `backward()`
  /// reaches this leaf. A tensor made by an operation keeps its gradient only after
  /// retain_grad(); otherwise asking for it throws AutogradError, saying so.
  Tensor grad() const;
  /// \brief Sets the accumulated gradient to zeros (torch 1.13's `zero_grad()` default).
  void zero_grad();
  /// \brief Replaces the accumulated gradient with a copy of \p g, as torch's `x.grad = g`; with an
  /// undefined tensor, `set_grad(Tensor())`, it clears it, as `x.grad = None`: the next
  /// backward() starts from nothing, and an optimiser skips this parameter until then.
  /// \throws AutogradError for a tensor made by an operation that does not retain its gradient
  ///   (as grad()); ShapeError when \p g is defined and its shape or dtype is not this tensor's.
  void set_grad(const Tensor& g);
  /// \brief The name of the operation that made this tensor, e.g. `"matmul"`; empty for a leaf.
  std::string grad_fn() const;
  /// \brief Asks backward() to keep the gradient of this tensor, made by an operation, in
  /// grad(), as torch's `retain_grad()` (a leaf keeps its own anyway); returns `*this`.
  /// \throws AutogradError for a tensor that does not require grad.
  Tensor& retain_grad();
  /// \brief Whether retain_grad() was called on this (non-leaf) tensor.
  bool retains_grad() const;

  /// \brief Computes the gradient of this tensor with respect to every leaf that requires
  /// grad, and adds it (`+=`, as torch does) to that leaf's `grad()`.
  ///
  /// \param gradient the gradient of the final objective with respect to this tensor, shaped
  ///   like it: the vector v of the vector–Jacobian product vᵀJ that backward computes. It may be
  ///   omitted only for a one-element tensor (it is then 1).
  /// \param retain_graph keep the recorded graph so that `backward()` can run again. Without
  ///   it, backward frees what each step saved, and a second `backward()` through the same
  ///   graph throws AutogradError, as torch raises. Unset: as \p create_graph, as torch.
  /// \param create_graph record the backward pass itself, so that the gradients it leaves in
  ///   grad() have a history and can be differentiated again (see autograd::grad()).
  /// \throws AutogradError when this tensor does not require grad, when \p gradient is
  ///   omitted for a non-scalar, when the graph was already freed, when a tensor the backward
  ///   needs was changed in place since the forward (see version()), when \p create_graph
  ///   meets an operation whose backward cannot be recorded, or when called inside a running
  ///   backward pass (from a hook: torch allows such reentrant passes, litgrad's do not nest).
  /// \throws ShapeError when \p gradient has another shape.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;

  /// \brief Calls \p hook with this tensor's gradient each time backward() has computed it
  /// whole, before it is used (passed on, or added to grad()); a defined tensor that the hook
  /// returns replaces the gradient, as torch's `register_hook`. Returns a handle that removes
  /// the hook. \throws AutogradError for a tensor that does not require grad.
  RemovableHandle register_hook(std::function<Tensor(const Tensor& grad)> hook);
  /// \brief register_hook() for any callable on the gradient: one that returns nothing (a hook
  /// that only looks, torch's hook returning None) leaves the gradient as it is.
  ///
  /// \code
  /// Tensor h = randn({3}).requires_grad_();
  /// std::vector<double> norms;  // the size of each gradient that reaches h
  /// h.register_hook([&](const Tensor& g) { norms.push_back(norm(g).item()); });
  /// \endcode
  template <class Hook, class = std::enable_if_t<std::is_invocable_v<Hook&, const Tensor&>>>
  RemovableHandle register_hook(Hook hook) {
    if constexpr (std::is_void_v<std::invoke_result_t<Hook&, const Tensor&>>)
      return register_hook(std::function<Tensor(const Tensor&)>([hook = std::move(hook)](const Tensor& g) mutable {
        hook(g);
        return Tensor();
      }));
    else
      return register_hook(std::function<Tensor(const Tensor&)>(std::move(hook)));
  }

  /// \brief How many times this tensor's elements (shared with its views) have been changed in
  /// place since they were made, as torch's `_version`: backward() compares it with the
  /// version each operation saw, and refuses to use a tensor changed since.
  std::uint64_t version() const;
  ///@}

  /// \name In-place operations
  /// Each changes this tensor's elements, returns `*this` and advances version(). They are not
  /// recorded by autograd: while gradients are recorded (outside a NoGradGuard) this tensor may
  /// not require grad (torch refuses in-place changes of leaves that require grad; litgrad also
  /// refuses them on tensors made by an operation, where torch would record them; use the
  /// out-of-place forms there). Write parameters inside a NoGradGuard.
  /// \throws AutogradError as above; ShapeError when the other operand does not broadcast to
  ///   this tensor's shape.
  ///@{

  /// \brief Writes \p src's values into this tensor, as torch's `copy_`: \p src broadcasts to
  /// this shape and is converted to this dtype. Every tensor sharing this one's storage sees the
  /// new values.
  Tensor& copy_(const Tensor& src);
  Tensor& add_(const Tensor& other, double alpha = 1.0);  ///< `*this += alpha * other`
  Tensor& add_(double value);                             ///< `*this += value`
  Tensor& sub_(const Tensor& other, double alpha = 1.0);  ///< `*this -= alpha * other`
  Tensor& mul_(const Tensor& other);                      ///< `*this *= other`
  Tensor& mul_(double value);                             ///< `*this *= value`
  Tensor& div_(const Tensor& other);                      ///< `*this /= other`
  Tensor& div_(double value);                             ///< `*this /= value`
  /// \brief `x -= lr * g` and the other compound assignments, as libtorch's and Python's: the
  /// in-place methods above (`sub_`, `add_`, `mul_`, `div_`), with their checks and errors.
  /// `w -= lr * w.grad()` inside a NoGradGuard is the hand-written step of gradient descent.
  /// On a temporary they are compile errors, as assignment is: litgrad has no views, so
  /// `x.select(0, 1) -= y` would change a copy and leave `x` as it was (write into part of a
  /// tensor with index_put_()).
  Tensor& operator+=(const Tensor& other) & { return add_(other); }
  Tensor& operator-=(const Tensor& other) & { return sub_(other); }  ///< `sub_(other)`
  Tensor& operator*=(const Tensor& other) & { return mul_(other); }  ///< `mul_(other)`
  Tensor& operator/=(const Tensor& other) & { return div_(other); }  ///< `div_(other)`
  Tensor& operator+=(double value) & { return add_(value); }         ///< `add_(value)`
  Tensor& operator-=(double value) & { return add_(-value); }        ///< `add_(-value)`
  Tensor& operator*=(double value) & { return mul_(value); }         ///< `mul_(value)`
  Tensor& operator/=(double value) & { return div_(value); }         ///< `div_(value)`
  Tensor& operator+=(const Tensor&) && = delete;
  Tensor& operator-=(const Tensor&) && = delete;
  Tensor& operator*=(const Tensor&) && = delete;
  Tensor& operator/=(const Tensor&) && = delete;
  Tensor& operator+=(double) && = delete;
  Tensor& operator-=(double) && = delete;
  Tensor& operator*=(double) && = delete;
  Tensor& operator/=(double) && = delete;
  Tensor& masked_fill_(const Tensor& mask, double value);  ///< `value` where the Bool \p mask is true
  Tensor& fill_(double value);                             ///< every element \p value
  Tensor& zero_();                                         ///< every element 0
  /// \brief Writes \p values (broadcast to the selection's shape, converted to this dtype) into
  /// the elements `index(indices)` selects, as libtorch's `x.index_put_({Slice(), 0}, y)` and
  /// Python's `x[:, 0] = y`. \throws IndexError or ShapeError, naming index_put_, for a
  /// selection index() refuses or values that do not broadcast to it.
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& values);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, double value);  ///< one value everywhere
  /// \brief \p value into every position along \p dim that the Int64 \p index lists, as torch's
  /// `index_fill_` (`x.index_fill_(1, ids, 0)` zeroes those columns).
  Tensor& index_fill_(std::int64_t dim, const Tensor& index, double value);
  /// \brief Writes \p src's elements where the Int64 \p index says along \p dim, as torch's
  /// `scatter_`: for a 2-D tensor and dim 0, `x[index[i][j]][j] = src[i][j]` (the block of src
  /// of index's shape is used; where two index the same element, the later wins).
  /// \throws IndexError for an index out of range; ShapeError for shapes torch refuses.
  Tensor& scatter_(std::int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(std::int64_t dim, const Tensor& index, double value);  ///< \p value at every indexed position
  ///@}

  /// \name Copies
  ///@{

  /// \brief A tensor with the same data (shared, not copied) and no history.
  Tensor detach() const;
  /// \brief A tensor with a copy of the data in storage of its own, recorded as an operation
  /// (the gradient passes through it unchanged), as torch's `clone`.
  Tensor clone() const;
  ///@}

  /// \brief Whether two handles name the same tensor (not whether the values are equal).
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  /// \name Member forms
  /// Thin forwards to the free functions of the same names (documented there), so that code
  /// reads as torch's: `x.sum()`, `x.mean({1})`, `x.reshape({2, -1})`, `x.transpose(0, 1)`,
  /// `x.matmul(w).softmax(-1)`.
  ///@{
  Tensor sum() const;                                                              ///< sum(x)
  Tensor sum(const std::vector<std::int64_t>& dims, bool keepdim = false) const;   ///< sum(x, dims, keepdim)
  Tensor mean() const;                                                             ///< mean(x)
  Tensor mean(const std::vector<std::int64_t>& dims, bool keepdim = false) const;  ///< mean(x, dims, keepdim)
  Tensor max() const;                                                              ///< max(x)
  Tensor min() const;                                                              ///< min(x)
  Tensor argmax() const;                                                           ///< argmax(x)
  Tensor argmax(std::int64_t dim, bool keepdim = false) const;                     ///< argmax(x, dim, keepdim)
  Tensor norm(double p = 2) const;                                                 ///< norm(x, p)
  Tensor reshape(const Shape& shape) const;                                        ///< reshape(x, shape)
  Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;     ///< flatten(x, start, end)
  Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;                    ///< transpose(x, dim0, dim1)
  Tensor permute(const std::vector<std::int64_t>& dims) const;                     ///< permute(x, dims)
  Tensor unsqueeze(std::int64_t dim) const;                                        ///< unsqueeze(x, dim)
  Tensor squeeze(std::int64_t dim) const;                                          ///< squeeze(x, dim)
  Tensor expand(const Shape& sizes) const;                                         ///< expand(x, sizes)
  Tensor repeat(const std::vector<std::int64_t>& repeats) const;                   ///< repeat(x, repeats)
  Tensor matmul(const Tensor& other) const;                                        ///< matmul(x, other)
  Tensor softmax(std::int64_t dim) const;                                          ///< softmax(x, dim)
  Tensor log_softmax(std::int64_t dim) const;                                      ///< log_softmax(x, dim)
  Tensor exp() const;                                                              ///< exp(x)
  Tensor log() const;                                                              ///< log(x)
  Tensor tanh() const;                                                             ///< tanh(x)
  Tensor relu() const;                                                             ///< relu(x)
  Tensor sqrt() const;                                                             ///< sqrt(x)
  Tensor abs() const;                                                              ///< abs(x)
  Tensor pow(double exponent) const;                                               ///< pow(x, exponent)
  Tensor pow(const Tensor& exponent) const;                                        ///< pow(x, exponent)
  Tensor masked_fill(const Tensor& mask, double value) const;                      ///< masked_fill(x, mask, value)
  Tensor to(DType dtype) const;                                                    ///< to(x, dtype)
  Tensor select(std::int64_t dim, std::int64_t index) const;                       ///< select(x, dim, index)
  Tensor slice(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1) const;  ///< slice(x, ...)
  Tensor narrow(std::int64_t dim, std::int64_t start,
                std::int64_t length) const;                          ///< slice(x, dim, start, start + length)
  Tensor index_select(std::int64_t dim, const Tensor& index) const;  ///< index_select(x, dim, index)
  Tensor gather(std::int64_t dim, const Tensor& index) const;        ///< gather(x, dim, index)
  std::vector<Tensor> split(std::int64_t split_size, std::int64_t dim = 0) const;  ///< split(x, split_size, dim)
  std::vector<Tensor> split(const std::vector<std::int64_t>& split_sizes,
                            std::int64_t dim = 0) const;                       ///< split(x, split_sizes, dim)
  std::vector<Tensor> chunk(std::int64_t chunks, std::int64_t dim = 0) const;  ///< chunk(x, chunks, dim)
  Tensor view(const Shape& shape) const;  ///< reshape(x, shape): litgrad's tensors are contiguous
  Tensor contiguous() const;  ///< `*this`: a litgrad tensor is always contiguous, so there is nothing to copy
  ///@}

  /// \brief Python's indexing, as libtorch's `x.index({Slice(), -1})` writes `x[:, -1]`: each
  /// entry indexes the next dimension, an integer selects (removing the dimension), a
  /// `Slice(start, stop, step)` slices, `None` inserts a dimension of size 1, and `Ellipsis`
  /// stands for as many whole dimensions as the other entries leave (see ops/indexing.hpp).
  /// \throws IndexError for more entries than dimensions, an index out of range, or two
  ///   ellipses.
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;

  ///@{
  ///@}

  /// \cond INTERNAL
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}
  /// Inline: every operation and every step of backward() reaches its tensors through it.
  detail::TensorImpl& impl() const {
    if (!impl_) undefined();
    return *impl_;
  }
  /// \endcond

 private:
  [[noreturn]] static void undefined();
  std::shared_ptr<detail::TensorImpl> impl_;
};

/// \name Making tensors
///@{

/// \brief A tensor of shape \p shape holding \p values in row-major order.
/// \throws ShapeError when the counts differ; ValueError when an Int64 value is not an
/// integer or a Bool value is not 0 or 1.
Tensor tensor(std::vector<double> values, Shape shape, DType dtype = DType::Float64);
/// \brief A 1-D tensor: `tensor({1, 2, 3})` has shape `[3]`.
Tensor tensor(std::initializer_list<double> values);
/// \brief A 2-D tensor from rows: `tensor({{1, 2}, {3, 4}})` has shape `[2,2]`.
///
/// One-element rows, `tensor({{1}, {2}})`, are ambiguous in C++ (each `{1}` may be a number);
/// write `tensor({1, 2}, {2, 1})` instead. \throws ShapeError when rows differ in length.
Tensor tensor(std::initializer_list<std::initializer_list<double>> rows);
/// \brief A 0-dimensional tensor holding \p value.
Tensor scalar_tensor(double value);
/// \brief All elements \p value.
Tensor full(const Shape& shape, double value, DType dtype = DType::Float64);
/// \brief All zeros.
Tensor zeros(const Shape& shape);
/// \brief All ones.
Tensor ones(const Shape& shape);
/// \brief Zeros shaped like \p like.
Tensor zeros_like(const Tensor& like);
/// \brief Ones shaped like \p like.
Tensor ones_like(const Tensor& like);
/// \brief `[start, start+step, ...)` up to but excluding \p end, as a 1-D Float64 tensor.
/// \throws ValueError when \p step is zero or has the wrong sign.
Tensor arange(double start, double end, double step = 1.0);
/// \brief `[0, 1, ...]` below \p end, as a Float64 tensor, as `torch.arange(end)` for a
/// floating-point end: `arange(2.5)` is `[0, 1, 2]`.
Tensor arange(double end);
/// \brief \p steps evenly spaced points from \p start to \p end, both included, as
/// `torch.linspace`: `linspace(-1, 1, 5)` is `[-1, -0.5, 0, 0.5, 1]`, exactly. As torch, the
/// first half is counted up from start and the second down from end, so both ends are exact.
/// \throws ValueError for negative steps.
Tensor linspace(double start, double end, std::int64_t steps);
/// \brief The n-by-n identity matrix.
Tensor eye(std::int64_t n);
/// \brief A copy of \p x with another dtype. To Bool: nonzero is true. To Int64: truncation
/// toward zero, as torch. \throws ValueError for NaN or infinity converted to Int64.
Tensor to(const Tensor& x, DType dtype);
/// \brief `[0, 1, ..., n-1]` as an Int64 tensor, as `torch.arange(n)` for an integer n (an
/// index, ready for embedding() or index_select(); arithmetic with it gives Float64).
template <class Integer, std::enable_if_t<std::is_integral_v<Integer>, int> = 0>
Tensor arange(Integer n) {
  return to(arange(0.0, static_cast<double>(n), 1.0), DType::Int64);
}
/// \brief `[start, start+step, ...)` below \p end as an Int64 tensor, when all three are
/// integers, as `torch.arange(0, t)`: nanoGPT's positions, ready for an embedding. With any
/// floating-point argument, the Float64 form above is chosen, as torch chooses float.
/// \throws ValueError as the Float64 form.
template <class Start, class End, class Step = int,
          std::enable_if_t<std::is_integral_v<Start> && std::is_integral_v<End> && std::is_integral_v<Step>, int> = 0>
Tensor arange(Start start, End end, Step step = 1) {
  return to(arange(static_cast<double>(start), static_cast<double>(end), static_cast<double>(step)), DType::Int64);
}
///@}

/// \brief Prints like torch: `tensor([[1.0000, 2.0000]], grad_fn=<add>)`.
std::ostream& operator<<(std::ostream& os, const Tensor& t);
/// \brief The printout of operator<< as a string.
std::string to_string(const Tensor& t);

}  // namespace litgrad
