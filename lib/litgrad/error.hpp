#pragma once
/// \file error.hpp
/// \brief The exceptions litgrad throws, and the one helper that builds their messages.
///
/// Every message starts with the operation's name and then says what was wrong with which
/// shapes or values, for example `matmul: [2,3] @ [4,5]: inner sizes 3 and 4 differ`.
/// All of them are `std::logic_error`s: they report a mistake in the calling program, not a
/// condition of the environment.

#include <stdexcept>
#include <string>

namespace litgrad {

/// \brief Shapes that do not fit together: they do not broadcast, multiply or concatenate.
struct ShapeError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// \brief An argument with a bad value: a NaN probability, a negative size, a wrong dtype.
struct ValueError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// \brief A dimension or an index outside the range the tensor has.
struct IndexError : std::out_of_range {
  using std::out_of_range::out_of_range;
};

/// \brief Autograd used out of order: `backward()` twice without `retain_graph`, on a tensor
/// that does not require grad, or on a non-scalar without an explicit gradient.
struct AutogradError : std::logic_error {
  using std::logic_error::logic_error;
};

}  // namespace litgrad
