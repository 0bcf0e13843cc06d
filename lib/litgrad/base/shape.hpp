#pragma once
/// \file shape.hpp
/// \brief Shapes: their printing, element counts, broadcasting and dimension wrapping.

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <vector>

namespace litgrad {

/// \brief The sizes of a tensor's dimensions, outermost first: `{2, 3}` is two rows of three.
///
/// A sequence of `std::int64_t` with the interface of `std::vector` that shapes use (and
/// conversions to and from `std::vector<std::int64_t>`). Up to six dimensions are kept inside
/// the object, so making, copying and passing a shape allocates nothing; longer ones go to the
/// heap. Every operation makes a shape or two, and a small model's step makes hundreds.
class Shape {
 public:
  using value_type = std::int64_t;              ///< A dimension's size.
  using size_type = std::size_t;                ///< A count of dimensions.
  using iterator = std::int64_t*;               ///< Walks the sizes, writable.
  using const_iterator = const std::int64_t*;   ///< Walks the sizes.
  using reference = std::int64_t&;              ///< One size, writable.
  using const_reference = const std::int64_t&;  ///< One size.

  /// \brief The scalar shape: no dimensions.
  Shape() = default;
  /// \brief `Shape{2, 3}`.
  Shape(std::initializer_list<std::int64_t> sizes) { assign(sizes.begin(), sizes.end()); }
  /// \brief \p count dimensions, each of size \p size.
  explicit Shape(std::size_t count, std::int64_t size = 0) { resize(count, size); }
  /// \brief The sizes in [first, last).
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  Shape(It first, It last) {
    assign(first, last);
  }
  /// \brief From (and, below, to) the `std::vector` that shapes were before.
  Shape(const std::vector<std::int64_t>& sizes) { assign(sizes.begin(), sizes.end()); }
  /// \brief The sizes as a `std::vector`.
  operator std::vector<std::int64_t>() const { return {begin(), end()}; }

  /// \brief A copy of \p other's sizes.
  Shape(const Shape& other) { assign(other.begin(), other.end()); }
  /// \brief Takes \p other's sizes, leaving it empty.
  Shape(Shape&& other) noexcept { take(other); }
  /// \brief Copies \p other's sizes.
  Shape& operator=(const Shape& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  /// \brief Takes \p other's sizes, leaving it empty.
  Shape& operator=(Shape&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  /// \brief Frees the heap copy of long shapes.
  ~Shape() { release(); }

  /// \brief The number of dimensions.
  std::size_t size() const { return size_; }
  /// \brief Whether there are no dimensions (the scalar shape).
  bool empty() const { return size_ == 0; }
  /// \brief The sizes, contiguous, outermost first.
  std::int64_t* data() { return heap_ ? heap_ : inline_; }
  /// \brief The sizes, contiguous, outermost first.
  const std::int64_t* data() const { return heap_ ? heap_ : inline_; }
  /// \brief The outermost size.
  iterator begin() { return data(); }
  /// \brief Past the innermost size.
  iterator end() { return data() + size_; }
  /// \brief The outermost size.
  const_iterator begin() const { return data(); }
  /// \brief Past the innermost size.
  const_iterator end() const { return data() + size_; }
  /// \brief The size of dimension \p i (not checked).
  std::int64_t& operator[](std::size_t i) { return data()[i]; }
  /// \brief The size of dimension \p i (not checked).
  const std::int64_t& operator[](std::size_t i) const { return data()[i]; }
  /// \brief The outermost size.
  std::int64_t& front() { return data()[0]; }
  /// \brief The outermost size.
  const std::int64_t& front() const { return data()[0]; }
  /// \brief The innermost size.
  std::int64_t& back() { return data()[size_ - 1]; }
  /// \brief The innermost size.
  const std::int64_t& back() const { return data()[size_ - 1]; }

  /// \brief Appends an innermost dimension of size \p size.
  void push_back(std::int64_t size) {
    reserve(size_ + 1);
    data()[size_++] = size;
  }
  /// \brief As push_back().
  void emplace_back(std::int64_t size) { push_back(size); }
  /// \brief Removes the innermost dimension.
  void pop_back() { --size_; }
  /// \brief Removes every dimension.
  void clear() { size_ = 0; }
  /// \brief Keeps the first \p count dimensions, adding dimensions of size \p size as needed.
  void resize(std::size_t count, std::int64_t size = 0) {
    reserve(count);
    for (std::size_t i = size_; i < count; ++i) data()[i] = size;
    size_ = count;
  }
  /// \brief Inserts \p size before \p pos; returns where it went.
  iterator insert(const_iterator pos, std::int64_t size) {
    const std::size_t at = static_cast<std::size_t>(pos - begin());
    push_back(0);
    for (std::size_t i = size_ - 1; i > at; --i) data()[i] = data()[i - 1];
    data()[at] = size;
    return begin() + at;
  }
  /// \brief Inserts the sizes in [first, last) before \p pos; returns where the first went.
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  iterator insert(const_iterator pos, It first, It last) {
    std::size_t at = static_cast<std::size_t>(pos - begin());
    const std::size_t start = at;
    const Shape sizes(first, last);  // a copy: [first, last) may lie in this shape
    for (const std::int64_t size : sizes) insert(begin() + at++, size);
    return begin() + start;
  }
  /// \brief Removes the dimension at \p pos; returns what follows it.
  iterator erase(const_iterator pos) {
    const std::size_t at = static_cast<std::size_t>(pos - begin());
    for (std::size_t i = at; i + 1 < size_; ++i) data()[i] = data()[i + 1];
    --size_;
    return begin() + at;
  }
  /// \brief Makes room for \p count dimensions.
  void reserve(std::size_t count) {
    if (count <= capacity()) return;
    std::int64_t* grown = new std::int64_t[count];
    for (std::size_t i = 0; i < size_; ++i) grown[i] = data()[i];
    release();
    heap_ = grown;
    heap_capacity_ = count;
  }

  /// \brief Whether the two have the same sizes.
  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  /// \brief Whether the sizes differ.
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  static constexpr std::size_t kInline = 6;
  std::size_t capacity() const { return heap_ ? heap_capacity_ : kInline; }
  template <class It>
  void assign(It first, It last) {
    size_ = 0;
    reserve(static_cast<std::size_t>(last - first));
    for (; first != last; ++first) data()[size_++] = static_cast<std::int64_t>(*first);
  }
  void take(Shape& other) {  // other's sizes, leaving it empty (this holds nothing)
    if (other.heap_) {
      heap_ = other.heap_;
      heap_capacity_ = other.heap_capacity_;
      other.heap_ = nullptr;
    } else {
      for (std::size_t i = 0; i < other.size_; ++i) inline_[i] = other.inline_[i];
    }
    size_ = other.size_;
    other.size_ = 0;
  }
  void release() {
    delete[] heap_;
    heap_ = nullptr;
  }

  std::int64_t inline_[kInline] = {};
  std::int64_t* heap_ = nullptr;
  std::size_t heap_capacity_ = 0;
  std::size_t size_ = 0;
};

/// \brief `[2,3]`: the way every error message and printout writes a shape.
std::string to_string(const Shape& shape);

/// \brief Prints to_string(shape).
std::ostream& operator<<(std::ostream& os, const Shape& shape);

/// \brief The number of elements a tensor of this shape holds (1 for the scalar shape `{}`).
std::int64_t numel(const Shape& shape);

/// \brief The shape two operands broadcast to, by NumPy's and torch's rule.
///
/// Shapes are aligned at their last dimension; each pair of sizes must be equal or one of
/// them 1. \code broadcast_shapes("add", {2, 1, 3}, {4, 1}) == Shape{2, 4, 3} \endcode
/// \throws ShapeError naming \p op and both shapes when they do not broadcast.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);

/// \brief Wraps a possibly negative dimension into `[0, ndim)`, as torch does (`-1` is the last).
/// \throws IndexError naming \p op when \p dim is outside `[-ndim, ndim)`.
std::int64_t wrap_dim(const char* op, std::int64_t dim, std::int64_t ndim);

}  // namespace litgrad
