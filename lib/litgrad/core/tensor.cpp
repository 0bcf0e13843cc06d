#include "litgrad/core/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/kernels/elementwise.hpp"

namespace litgrad {

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::Float64: return "Float64";
    case DType::Int64: return "Int64";
    case DType::Bool: return "Bool";
  }
  return "?";
}

namespace detail {

namespace {
// A tensor with no history over `storage`, under `shape`.
Tensor tensor_over(std::shared_ptr<Storage> storage, const Shape& shape, DType dtype) {
  auto impl = kernels::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->shape = shape;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor make_tensor(const Shape& shape, DType dtype, bool zero) {
  for (auto s : shape)
    if (s < 0) throw ValueError("tensor: negative size in shape ", shape);
  const std::int64_t n = litgrad::numel(shape);
  auto storage = kernels::make_shared<Storage>(static_cast<std::size_t>(n));  // uninitialised
  if (zero) kernels::fill(storage->data(), n, 0.0);                           // on every thread, when large
  return tensor_over(std::move(storage), shape, dtype);
}
}  // namespace

Tensor empty_tensor(const Shape& shape, DType dtype) { return make_tensor(shape, dtype, true); }
Tensor uninitialized_tensor(const Shape& shape, DType dtype) { return make_tensor(shape, dtype, false); }

Tensor share_storage(const Tensor& x, const Shape& shape) { return tensor_over(x.impl().storage, shape, x.dtype()); }

void require_nonempty(const char* op, const Tensor& x) {
  if (x.numel() == 0) throw ValueError(op, ": expected a non-empty tensor, got shape ", x.shape());
}

}  // namespace detail

using detail::TensorImpl;

void Tensor::undefined() {
  throw ValueError("Tensor: this tensor is undefined (default-constructed or an absent grad)");
}

const Shape& Tensor::shape() const { return impl().shape; }
std::int64_t Tensor::dim() const { return static_cast<std::int64_t>(shape().size()); }
std::int64_t Tensor::size(std::int64_t d) const {
  if (dim() == 0) throw IndexError("size: a scalar tensor has no dimensions");
  return shape()[static_cast<std::size_t>(wrap_dim("size", d, dim()))];
}
std::int64_t Tensor::numel() const { return litgrad::numel(shape()); }
DType Tensor::dtype() const { return impl().dtype; }

const double* Tensor::data() const { return impl().storage->data(); }
double* Tensor::data() { return impl().storage->data(); }
std::vector<double> Tensor::to_vector() const { return {data(), data() + numel()}; }

double Tensor::item() const {
  if (numel() != 1) throw ValueError("item: expected a tensor with one element, got shape ", shape());
  return data()[0];
}

double Tensor::at(const std::vector<std::int64_t>& index) const {
  if (static_cast<std::int64_t>(index.size()) != dim())
    throw IndexError("at: index has ", index.size(), " entries for a tensor of shape ", shape());
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < index.size(); ++d) {
    const std::int64_t n = shape()[d];
    const std::int64_t i = index[d] < 0 ? index[d] + n : index[d];
    if (i < 0 || i >= n) throw IndexError("at: index ", index[d], " is out of range for dimension ", d, " of size ", n);
    offset = offset * n + i;
  }
  return data()[offset];
}

bool Tensor::requires_grad() const { return impl().requires_grad; }

Tensor& Tensor::requires_grad_(bool on) {
  auto& self = impl();
  if (self.grad_fn)
    throw ValueError("requires_grad_: only leaves can be marked; this tensor was made by ", self.grad_fn->op,
                     " (use detach() to make a leaf)");
  if (on && self.dtype != DType::Float64)
    throw ValueError("requires_grad_: only Float64 tensors can require grad, this one is ", self.dtype);
  self.requires_grad = on;
  return *this;
}

bool Tensor::is_leaf() const { return impl().grad_fn == nullptr; }
Tensor Tensor::grad() const {
  if (!is_leaf() && !impl().retains_grad)
    throw AutogradError("grad: this tensor was made by ", grad_fn(),
                        ", so it is not a leaf, and backward() keeps gradients only for leaves (tensors made directly, "
                        "with requires_grad_()) and for tensors asked to with retain_grad(); torch returns None here "
                        "with a warning. Call retain_grad() on it before backward(), or use autograd::grad()");
  return impl().grad;
}

void Tensor::set_grad(const Tensor& g) {
  grad();  // the same refusal for a tensor that keeps no gradient
  if (g.defined() && (g.shape() != shape() || g.dtype() != dtype()))
    throw ShapeError("set_grad: the gradient is ", g.dtype(), " of shape ", g.shape(), ", and this tensor is ", dtype(),
                     " of shape ", shape());
  // A copy, so that backward's accumulation never writes into the caller's tensor (torch's,
  // finding g still held by the caller, adds out of place).
  impl().grad = g.defined() ? g.detach().clone() : Tensor();
}

void Tensor::zero_grad() {
  auto& g = impl().grad;
  if (g.defined()) std::fill(g.data(), g.data() + g.numel(), 0.0);
}

std::string Tensor::grad_fn() const {
  const auto& node = impl().grad_fn;
  return node ? node->op : "";
}

Tensor Tensor::detach() const { return detail::share_storage(*this, shape()); }

// ---------------------------------------------------------------------------------------------
// Making tensors

Tensor tensor(std::vector<double> values, Shape shape, DType dtype) {
  if (static_cast<std::int64_t>(values.size()) != numel(shape))
    throw ShapeError("tensor: ", values.size(), " values do not fill shape ", shape, " (", numel(shape), " elements)");
  for (double v : values) {
    if (dtype == DType::Int64 && !(std::isfinite(v) && v == std::trunc(v)))
      throw ValueError("tensor: Int64 values must be integers, got ", v);
    if (dtype == DType::Bool && v != 0.0 && v != 1.0) throw ValueError("tensor: Bool values must be 0 or 1, got ", v);
  }
  Tensor t = detail::uninitialized_tensor(shape, dtype);
  std::copy(values.begin(), values.end(), t.data());
  return t;
}

Tensor tensor(std::initializer_list<double> values) {
  return tensor(std::vector<double>(values), {static_cast<std::int64_t>(values.size())});
}

Tensor tensor(std::initializer_list<std::initializer_list<double>> rows) {
  const std::int64_t n = static_cast<std::int64_t>(rows.size());
  const std::int64_t m = n ? static_cast<std::int64_t>(rows.begin()->size()) : 0;
  std::vector<double> values;
  for (const auto& row : rows) {
    if (static_cast<std::int64_t>(row.size()) != m)
      throw ShapeError("tensor: rows of different lengths (", m, " and ", row.size(), ")");
    values.insert(values.end(), row.begin(), row.end());
  }
  return tensor(std::move(values), {n, m});
}

Tensor scalar_tensor(double value) { return tensor({value}, Shape{}); }

namespace detail {
void check_sizes(const char* op, const Shape& shape) {
  for (auto s : shape)
    if (s < 0) throw ValueError(op, ": negative size in shape ", shape);
}
}  // namespace detail

namespace {
Tensor filled(const char* op, const Shape& shape, double value, DType dtype) {
  detail::check_sizes(op, shape);
  Tensor t = detail::empty_tensor(shape, dtype);
  std::fill(t.data(), t.data() + t.numel(), value);
  if (dtype != DType::Float64) return tensor(t.to_vector(), shape, dtype);  // validates value
  return t;
}
}  // namespace

Tensor full(const Shape& shape, double value, DType dtype) { return filled("full", shape, value, dtype); }
Tensor zeros(const Shape& shape) { return filled("zeros", shape, 0.0, DType::Float64); }
Tensor ones(const Shape& shape) { return filled("ones", shape, 1.0, DType::Float64); }
Tensor zeros_like(const Tensor& like) { return zeros(like.shape()); }
Tensor ones_like(const Tensor& like) { return ones(like.shape()); }

Tensor arange(double start, double end, double step) {
  if (step == 0.0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(end) || (end - start) * step < 0)
    throw ValueError("arange: cannot step from ", start, " to ", end, " by ", step);
  const auto n = static_cast<std::int64_t>(std::ceil((end - start) / step));
  Tensor t = detail::empty_tensor({n});
  for (std::int64_t i = 0; i < n; ++i) t.data()[i] = start + static_cast<double>(i) * step;
  return t;
}

Tensor arange(double end) { return arange(0.0, end, 1.0); }

// torch's CPU kernel: the first half counted up from start, the second half down from end, so
// both ends are exact and the points are symmetric.
Tensor linspace(double start, double end, std::int64_t steps) {
  if (steps < 0) throw ValueError("linspace: steps must be non-negative, got ", steps);
  Tensor t = detail::empty_tensor({steps});
  if (steps == 1) t.data()[0] = start;
  if (steps <= 1) return t;
  const double step = (end - start) / static_cast<double>(steps - 1);
  const std::int64_t half = steps / 2;
  for (std::int64_t i = 0; i < steps; ++i)
    t.data()[i] = i < half ? start + step * static_cast<double>(i) : end - step * static_cast<double>(steps - 1 - i);
  return t;
}

Tensor eye(std::int64_t n) {
  Tensor t = detail::empty_tensor({n, n});
  for (std::int64_t i = 0; i < n; ++i) t.data()[i * n + i] = 1.0;
  return t;
}

Tensor to(const Tensor& x, DType dtype) {
  Tensor t = detail::uninitialized_tensor(x.shape(), dtype);
  kernels::map(x.numel(), x.data(), t.data(), [dtype](double v) {
    if (dtype == DType::Int64 && !std::isfinite(v)) throw ValueError("to: cannot convert ", v, " to Int64");
    return dtype == DType::Bool ? (v != 0.0) : dtype == DType::Int64 ? std::trunc(v) : v;
  });
  return t;
}

// ---------------------------------------------------------------------------------------------
// Printing, close to torch's format: four decimals, or scientific notation when the magnitudes
// call for it; integers as "2."; nested brackets aligned under "tensor(".

namespace {

std::vector<std::string> format_elements(const Tensor& t) {
  const double* v = t.data();
  const std::int64_t n = t.numel();
  std::vector<std::string> out(static_cast<std::size_t>(n));
  if (t.dtype() == DType::Bool) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = v[i] != 0.0 ? "True" : "False";
    return out;
  }
  bool integral = true;
  double lo = INFINITY, hi = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) continue;
    integral = integral && v[i] == std::trunc(v[i]);
    const double a = std::fabs(v[i]);
    hi = std::max(hi, a);
    if (a > 0) lo = std::min(lo, a);
  }
  const bool sci = !integral && hi > 0 && (hi >= 1e8 || lo < 1e-4 || hi / lo > 1000);
  char buf[64];
  for (std::int64_t i = 0; i < n; ++i) {
    if (std::isnan(v[i]))
      out[i] = "nan";
    else if (std::isinf(v[i]))
      out[i] = v[i] > 0 ? "inf" : "-inf";
    else if (t.dtype() == DType::Int64)
      std::snprintf(buf, sizeof buf, "%.0f", v[i]), out[i] = buf;
    else if (integral)
      std::snprintf(buf, sizeof buf, "%.0f.", v[i]), out[i] = buf;
    else if (sci)
      std::snprintf(buf, sizeof buf, "%.4e", v[i]), out[i] = buf;
    else
      std::snprintf(buf, sizeof buf, "%.4f", v[i]), out[i] = buf;
  }
  return out;
}

void print_level(std::ostream& os, const Shape& shape, std::size_t d, const std::vector<std::string>& s,
                 std::int64_t& next, std::size_t width, int indent) {
  if (d == shape.size()) {
    os << std::string(width - std::min(width, s[next].size()), ' ') << s[next];
    ++next;
    return;
  }
  os << '[';
  for (std::int64_t i = 0; i < shape[d]; ++i) {
    if (i) {
      os << ',';
      if (d + 1 == shape.size())
        os << ' ';
      else
        os << std::string(shape.size() - d - 1, '\n') << std::string(indent + d + 1, ' ');
    }
    print_level(os, shape, d + 1, s, next, width, indent);
  }
  os << ']';
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "tensor(undefined)";
  const auto s = format_elements(t);
  std::size_t width = 0;  // as torch: align on the finite values; inf and nan take what they need
  for (const auto& e : s)
    if (e != "nan" && e != "inf" && e != "-inf") width = std::max(width, e.size());
  std::int64_t next = 0;
  os << "tensor(";
  print_level(os, t.shape(), 0, s, next, width, 7);
  if (t.numel() == 0) os << ", size=" << to_string(t.shape());
  if (t.dtype() != DType::Float64) os << ", dtype=" << to_string(t.dtype());
  if (!t.grad_fn().empty())
    os << ", grad_fn=<" << t.grad_fn() << ">";
  else if (t.requires_grad())
    os << ", requires_grad=True";
  return os << ')';
}

std::string to_string(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

}  // namespace litgrad
