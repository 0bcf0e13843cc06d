// Tensor's in-place operations, and clone(). Each in-place operation writes a tensor's own
// elements, which every tensor sharing its storage sees, and advances the storage's version, by
// which backward() notices a tensor changed after an operation saved it for its gradient.

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/core/grad_mode.hpp"
#include "litgrad/core/tensor.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/kernels/elementwise.hpp"
#include "litgrad/ops/indexing.hpp"
#include "litgrad/ops/registry.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad {

namespace {

// Throws ShapeError, naming op and what `other` is, unless `other` broadcasts to `self` without
// growing it (compared from the right, each of its sizes is 1 or equal).
void require_broadcast_to(const char* op, const Tensor& other, const Tensor& self,
                          const char* what = "the other tensor's") {
  const Shape &from = other.shape(), &to = self.shape();
  bool fits = from.size() <= to.size();
  for (std::size_t k = 1; fits && k <= from.size(); ++k) {
    const std::int64_t have = from[from.size() - k], want = to[to.size() - k];
    fits = have == want || have == 1;
  }
  if (!fits) throw ShapeError(op, ": ", what, " shape ", from, " does not broadcast to ", to);
}

void require_float(const char* op, const Tensor& self) {
  if (self.dtype() != DType::Float64)
    throw ValueError(op, ": arithmetic in place needs a Float64 tensor, this one is ", self.dtype(), " of shape ",
                     self.shape());
}

// self = f(self, other) elementwise, other broadcast to self's shape.
template <class F>
Tensor& combine_in_place(const char* op, Tensor& self, const Tensor& other, F f) {
  require_float(op, self);
  require_broadcast_to(op, other, self);
  detail::note_in_place(op, self);
  // Element i of self is read, then written, by the same step; other may be self.
  kernels::zip(self.shape(), self.data(), self.shape(), other.data(), other.shape(), self.data(), f);
  return self;
}

// Refuses, as copy_ does, to write a source that requires grad while gradients are recorded.
void require_no_grad_source(const char* op, const Tensor& src) {
  if (is_grad_enabled() && src.requires_grad())
    throw AutogradError(op, ": the source requires grad and gradients are being recorded; ", op,
                        " is not recorded, so write inside a NoGradGuard");
}

// Every element's own offset in t's storage, as a Float64 tensor of t's shape (exact: a
// double holds every integer below 2^53). A selection of it, made by the library's own
// operations, says which elements of t the same selection picks, so that writing through a
// selection follows reading through it exactly.
Tensor offsets(const Tensor& t) {
  std::vector<double> own(static_cast<std::size_t>(t.numel()));
  for (std::size_t i = 0; i < own.size(); ++i) own[i] = static_cast<double>(i);
  return tensor(std::move(own), t.shape());
}

// The offsets `select` picks from t's, its errors named as op's.
template <class Select>
Tensor picked(const char* op, const Tensor& t, Select select) {
  NoGradGuard no_grad;
  try {
    return select(offsets(t));
  } catch (const IndexError& e) {
    throw IndexError(op, ": ", e.what());
  } catch (const ShapeError& e) {
    throw ShapeError(op, ": ", e.what());
  } catch (const ValueError& e) {
    throw ValueError(op, ": ", e.what());
  }
}

// t's elements at the offsets `at` take `values`, broadcast to at's shape and converted to t's
// dtype; a later duplicate offset wins.
Tensor& write_at(const char* op, Tensor& t, const Tensor& at, const Tensor& values) {
  require_broadcast_to(op, values, at, "the values'");
  const Tensor v = litgrad::to(litgrad::expand(values, at.shape()), t.dtype());
  detail::note_in_place(op, t, "where or masked_fill");
  double* out = t.data();
  for (std::int64_t i = 0; i < at.numel(); ++i) out[static_cast<std::int64_t>(at.data()[i])] = v.data()[i];
  return t;
}

}  // namespace

Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& values) {
  require_no_grad_source("index_put_", values);
  return write_at("index_put_", *this, picked("index_put_", *this, [&](const Tensor& o) { return o.index(indices); }),
                  values);
}

Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices, double value) {
  return index_put_(indices, scalar_tensor(value));
}

Tensor& Tensor::index_fill_(std::int64_t dim, const Tensor& index, double value) {
  return write_at("index_fill_", *this,
                  picked("index_fill_", *this, [&](const Tensor& o) { return litgrad::index_select(o, dim, index); }),
                  scalar_tensor(value));
}

Tensor& Tensor::scatter_(std::int64_t dim, const Tensor& index, const Tensor& src) {
  require_no_grad_source("scatter_", src);
  const Tensor at = picked("scatter_", *this, [&](const Tensor& o) { return litgrad::gather(o, dim, index); });
  // src[i][j] goes where index[i][j] says: the block of src the index's shape covers.
  if (src.dim() != index.dim())
    throw ShapeError("scatter_: the source has ", src.dim(), " dimensions (shape ", src.shape(), ") and the index ",
                     index.dim(), " (shape ", index.shape(), ")");
  Tensor block = src;
  for (std::int64_t d = 0; d < src.dim(); ++d) {
    if (index.size(d) > src.size(d))
      throw ShapeError("scatter_: the index, of shape ", index.shape(), ", is larger than the source, of shape ",
                       src.shape(), ", in dimension ", d);
    NoGradGuard no_grad;
    block = litgrad::slice(block, d, 0, index.size(d));
  }
  return write_at("scatter_", *this, at, block);
}

Tensor& Tensor::scatter_(std::int64_t dim, const Tensor& index, double value) {
  return write_at("scatter_", *this,
                  picked("scatter_", *this, [&](const Tensor& o) { return litgrad::gather(o, dim, index); }),
                  scalar_tensor(value));
}

Tensor& Tensor::copy_(const Tensor& src) {
  if (is_grad_enabled() && (requires_grad() || src.requires_grad()))
    throw AutogradError(
        "copy_: ", (requires_grad() ? "the destination" : "the source"),
        " requires grad and gradients are being recorded; copy_ is not recorded, so write parameters inside a "
        "NoGradGuard (torch refuses in-place writes to leaves that require grad for the same reason)");
  require_broadcast_to("copy_", src, *this, "the source's");
  const Tensor values = litgrad::to(litgrad::expand(src, shape()), dtype());
  detail::note_in_place("copy_", *this);
  kernels::copy(values.data(), values.numel(), data());
  return *this;
}

Tensor& Tensor::add_(const Tensor& other, double alpha) {
  if (alpha == 1.0) return combine_in_place("add_", *this, other, [](double a, double b) { return a + b; });
  return combine_in_place("add_", *this, other, [alpha](double a, double b) { return a + alpha * b; });
}
Tensor& Tensor::add_(double value) { return add_(scalar_tensor(value)); }
Tensor& Tensor::sub_(const Tensor& other, double alpha) {
  if (alpha == 1.0) return combine_in_place("sub_", *this, other, [](double a, double b) { return a - b; });
  return combine_in_place("sub_", *this, other, [alpha](double a, double b) { return a - alpha * b; });
}
Tensor& Tensor::mul_(const Tensor& other) {
  return combine_in_place("mul_", *this, other, [](double a, double b) { return a * b; });
}
Tensor& Tensor::mul_(double value) { return mul_(scalar_tensor(value)); }
Tensor& Tensor::div_(const Tensor& other) {
  return combine_in_place("div_", *this, other, [](double a, double b) { return a / b; });
}
Tensor& Tensor::div_(double value) { return div_(scalar_tensor(value)); }

Tensor& Tensor::masked_fill_(const Tensor& mask, double value) {
  if (mask.dtype() != DType::Bool)
    throw ValueError("masked_fill_: the mask must be a Bool tensor, got ", mask.dtype(), " of shape ", mask.shape());
  require_broadcast_to("masked_fill_", mask, *this, "the mask's");
  const Tensor fill = litgrad::to(scalar_tensor(value), dtype());  // validates the value for the dtype
  detail::note_in_place("masked_fill_", *this);
  const double v = fill.item();
  kernels::zip(shape(), data(), shape(), mask.data(), mask.shape(), data(),
               [v](double x, double masked) { return masked != 0.0 ? v : x; });
  return *this;
}

Tensor& Tensor::fill_(double value) {
  const double v = litgrad::to(scalar_tensor(value), dtype()).item();
  detail::note_in_place("fill_", *this, "full");
  kernels::fill(data(), numel(), v);
  return *this;
}

Tensor& Tensor::zero_() { return fill_(0.0); }

// y = x, in storage of its own; dx = g.
Tensor Tensor::clone() const {
  Tensor y = detail::uninitialized_tensor(shape(), dtype());
  kernels::copy(data(), numel(), y.data());
  return detail::record(
      op::clone, y, {*this}, [](const Tensor& g) -> std::vector<Tensor> { return {g}; },
      [](const Tensor& g, const Tensor&, const std::vector<Tensor>&) -> std::vector<Tensor> { return {g}; },
      detail::Saved::nothing());
}

}  // namespace litgrad
