#pragma once
/// \file op.hpp
/// \brief What the library knows of each operation it records for the backward pass: its name
/// and the promises the tests hold it to. The operations themselves are listed in one table,
/// ops/registry.hpp.

namespace litgrad {

/// \brief Whether an operation's backward can itself be recorded, so that a gradient through it
/// can be differentiated again (`backward` or `autograd::grad` with `create_graph`).
enum class Twice {
  yes,  ///< its backward is written with operations, recorded in their turn
  no    ///< its backward is a kernel; create_graph through it throws AutogradError naming it
};

/// \brief One operation the library records: the Node it leaves in a graph is named by
/// `name` (what `Tensor::grad_fn()` says, as torch's `grad_fn`), and every error it throws
/// starts with that name.
struct Op {
  const char* name;  ///< the public name, e.g. "matmul"
  Twice twice;       ///< whether create_graph goes through it
  /// Why no input can be wrong for it (the bad-input table then has no row for it), or "" when
  /// some can, and the table must show the error.
  const char* no_bad_input;
};

}  // namespace litgrad
