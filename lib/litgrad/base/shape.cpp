#include "litgrad/base/shape.hpp"

#include <algorithm>
#include <ostream>

#include "litgrad/base/error.hpp"

namespace litgrad {

std::string to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::ostream& operator<<(std::ostream& os, const Shape& shape) { return os << to_string(shape); }

std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Align from the right: dimension i of the result is dimension i - (n - size) of each input.
    const std::int64_t sa = i + a.size() >= n ? a[i + a.size() - n] : 1;
    const std::int64_t sb = i + b.size() >= n ? b[i + b.size() - n] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      throw ShapeError(op, ": shapes ", a, " and ", b, " do not broadcast (sizes ", sa, " and ", sb, " at dimension ",
                       i, ")");
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

std::int64_t wrap_dim(const char* op, std::int64_t dim, std::int64_t ndim) {
  // A scalar still has one addressable dimension for reductions, as in torch (dim 0 or -1).
  const std::int64_t range = std::max<std::int64_t>(ndim, 1);
  if (dim < -range || dim >= range)
    throw IndexError(op, ": dimension ", dim, " is out of range for a tensor with ", ndim, " dimensions (expected [",
                     -range, ", ", range - 1, "])");
  return dim < 0 ? dim + range : dim;
}

}  // namespace litgrad
