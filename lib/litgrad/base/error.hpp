#pragma once
/// \file error.hpp
/// \brief The exceptions litgrad throws, and the one helper that builds their messages.
///
/// Every message starts with the operation's name and then says what was wrong with which
/// shapes or values, for example `matmul: [2,3] @ [4,5]: inner sizes 3 and 4 differ`.
/// All of them are `std::logic_error`s: they report a mistake in the calling program, not a
/// condition of the environment.
///
/// An exception is made from the parts of its message, in order, as a sentence reads:
/// \code
/// throw ShapeError("matmul: ", a.shape(), " @ ", b.shape(), ": inner sizes ", k, " and ", kb, " differ");
/// \endcode
/// Text is copied as it is; an integer as `std::to_string` writes it; a floating-point number
/// in the fewest digits that read back as the same double (`0.1`, `1e-08`, `nan`), so that a
/// message never rounds away the value that was wrong; anything else (a Shape, a DType) by
/// the `to_string` of its own namespace.

#include <charconv>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace litgrad {

namespace detail {

inline void append_part(std::string& text, const std::string& part) { text += part; }
inline void append_part(std::string& text, std::string_view part) { text += part; }
inline void append_part(std::string& text, const char* part) { text += part; }
inline void append_part(std::string& text, char part) { text += part; }

template <class Part>
void append_part(std::string& text, const Part& part) {
  if constexpr (std::is_same_v<Part, bool>) {
    text += part ? "true" : "false";
  } else if constexpr (std::is_integral_v<Part>) {
    text += std::to_string(part);
  } else if constexpr (std::is_floating_point_v<Part>) {
    char digits[32];  // the shortest round trip of a double takes at most 24 characters
    text.append(digits, std::to_chars(digits, digits + sizeof digits, static_cast<double>(part)).ptr);
  } else {
    text += to_string(part);  // found in Part's own namespace (argument-dependent lookup)
  }
}

/// \brief The parts of a message, one after another (error.hpp says how each is written).
template <class... Parts>
std::string message(const Parts&... parts) {
  std::string text;
  (append_part(text, parts), ...);
  return text;
}

}  // namespace detail

/// \brief Shapes that do not fit together: they do not broadcast, multiply or concatenate.
struct ShapeError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
  /// \brief The message made of \p parts, one after another (see error.hpp).
  template <class... Parts, class = std::enable_if_t<(sizeof...(Parts) > 1)>>
  explicit ShapeError(const Parts&... parts) : std::invalid_argument(detail::message(parts...)) {}
};

/// \brief An argument with a bad value: a NaN probability, a negative size, a wrong dtype.
struct ValueError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
  /// \brief The message made of \p parts, one after another (see error.hpp).
  template <class... Parts, class = std::enable_if_t<(sizeof...(Parts) > 1)>>
  explicit ValueError(const Parts&... parts) : std::invalid_argument(detail::message(parts...)) {}
};

/// \brief A dimension or an index outside the range the tensor has.
struct IndexError : std::out_of_range {
  using std::out_of_range::out_of_range;
  /// \brief The message made of \p parts, one after another (see error.hpp).
  template <class... Parts, class = std::enable_if_t<(sizeof...(Parts) > 1)>>
  explicit IndexError(const Parts&... parts) : std::out_of_range(detail::message(parts...)) {}
};

/// \brief Autograd used out of order: `backward()` twice without `retain_graph`, on a tensor
/// that does not require grad, or on a non-scalar without an explicit gradient.
struct AutogradError : std::logic_error {
  using std::logic_error::logic_error;
  /// \brief The message made of \p parts, one after another (see error.hpp).
  template <class... Parts, class = std::enable_if_t<(sizeof...(Parts) > 1)>>
  explicit AutogradError(const Parts&... parts) : std::logic_error(detail::message(parts...)) {}
};

}  // namespace litgrad
