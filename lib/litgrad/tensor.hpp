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
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "litgrad/shape.hpp"

namespace litgrad {

/// \brief What a tensor's elements mean: numbers, integer indices, or true/false.
enum class DType { Float64, Int64, Bool };

/// \brief `"Float64"`, `"Int64"` or `"Bool"`.
const char* to_string(DType dtype);

namespace detail {
struct TensorImpl;
}

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
  /// \brief Writes \p src's values into this tensor, in place, as torch's `copy_`: \p src
  /// broadcasts to this shape and is converted to this dtype; returns `*this`. Every tensor
  /// sharing this one's storage sees the new values. The copy is not recorded by autograd, so
  /// when gradients are being recorded (outside a NoGradGuard) neither tensor may require
  /// grad: set a parameter's values with `{ NoGradGuard g; w.copy_(values); }`.
  /// \throws ShapeError when \p src does not broadcast to this shape.
  /// \throws AutogradError when either tensor requires grad while gradients are recorded.
  Tensor& copy_(const Tensor& src);
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
  /// reaches this leaf. Gradients of intermediate tensors are not kept.
  Tensor grad() const;
  /// \brief Sets the accumulated gradient to zeros (torch 1.13's `zero_grad()` default).
  void zero_grad();
  /// \brief The name of the operation that made this tensor, e.g. `"matmul"`; empty for a leaf.
  std::string grad_fn() const;

  /// \brief Computes the gradient of this tensor with respect to every leaf that requires
  /// grad, and adds it (`+=`, as torch does) to that leaf's `grad()`.
  ///
  /// \param gradient the gradient of the final objective with respect to this tensor, shaped
  ///   like it; may be omitted only for a one-element tensor (it is then 1).
  /// \param retain_graph keep the recorded graph so that `backward()` can run again. Without
  ///   it, backward frees what each step saved, and a second `backward()` through the same
  ///   graph throws AutogradError, as torch raises.
  /// \throws AutogradError when this tensor does not require grad, when \p gradient is
  ///   omitted for a non-scalar, or when the graph was already freed.
  /// \throws ShapeError when \p gradient has another shape.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false) const;

  /// \brief A tensor with the same data (shared, not copied) and no history.
  Tensor detach() const;
  ///@}

  /// \brief Whether two handles name the same tensor (not whether the values are equal).
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  /// \name Member forms
  /// Thin forwards to the free functions of the same names (documented there), so that code
  /// reads as torch's: `x.sum()`, `x.mean({1})`, `x.reshape({2, -1})`, `x.transpose(0, 1)`,
  /// `x.matmul(w).softmax(-1)`.
  ///@{
  Tensor sum() const;                                                             ///< sum(x)
  Tensor sum(const std::vector<std::int64_t>& dims, bool keepdim = false) const;  ///< sum(x, dims, keepdim)
  Tensor mean() const;                                                            ///< mean(x)
  Tensor mean(const std::vector<std::int64_t>& dims, bool keepdim = false) const;  ///< mean(x, dims, keepdim)
  Tensor max() const;                                                             ///< max(x)
  Tensor min() const;                                                             ///< min(x)
  Tensor argmax() const;                                                          ///< argmax(x)
  Tensor argmax(std::int64_t dim, bool keepdim = false) const;                    ///< argmax(x, dim, keepdim)
  Tensor norm(double p = 2) const;                                                ///< norm(x, p)
  Tensor reshape(const Shape& shape) const;                                       ///< reshape(x, shape)
  Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;    ///< flatten(x, start, end)
  Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;                   ///< transpose(x, dim0, dim1)
  Tensor permute(const std::vector<std::int64_t>& dims) const;                    ///< permute(x, dims)
  Tensor unsqueeze(std::int64_t dim) const;                                       ///< unsqueeze(x, dim)
  Tensor squeeze(std::int64_t dim) const;                                         ///< squeeze(x, dim)
  Tensor expand(const Shape& sizes) const;                                        ///< expand(x, sizes)
  Tensor repeat(const std::vector<std::int64_t>& repeats) const;                  ///< repeat(x, repeats)
  Tensor matmul(const Tensor& other) const;                                       ///< matmul(x, other)
  Tensor softmax(std::int64_t dim) const;                                         ///< softmax(x, dim)
  Tensor log_softmax(std::int64_t dim) const;                                     ///< log_softmax(x, dim)
  Tensor exp() const;                                                             ///< exp(x)
  Tensor log() const;                                                             ///< log(x)
  Tensor tanh() const;                                                            ///< tanh(x)
  Tensor relu() const;                                                            ///< relu(x)
  Tensor sqrt() const;                                                            ///< sqrt(x)
  Tensor abs() const;                                                             ///< abs(x)
  Tensor pow(double exponent) const;                                              ///< pow(x, exponent)
  Tensor masked_fill(const Tensor& mask, double value) const;                     ///< masked_fill(x, mask, value)
  Tensor to(DType dtype) const;                                                   ///< to(x, dtype)
  ///@}

  /// \cond INTERNAL
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl) : impl_(std::move(impl)) {}
  detail::TensorImpl& impl() const;
  /// \endcond

 private:
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
/// \brief `[0, 1, ..., n-1]`.
Tensor arange(std::int64_t n);
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
///@}

/// \brief Prints like torch: `tensor([[1.0000, 2.0000]], grad_fn=<add>)`.
std::ostream& operator<<(std::ostream& os, const Tensor& t);
/// \brief The printout of operator<< as a string.
std::string to_string(const Tensor& t);

}  // namespace litgrad
