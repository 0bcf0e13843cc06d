#pragma once
/// \file grad_mode.hpp
/// \brief Recording on and off: whether operations record their history, `NoGradGuard` (as
/// torch's `with torch.no_grad():`) and `EnableGradGuard`.
///
/// While recording is on (the default), every operation on a tensor that requires grad
/// records how to push a gradient back to its inputs (autograd/autograd.hpp walks those
/// records). Evaluation, optimiser updates and the backward pass itself run with recording off.

namespace litgrad {

/// \brief Whether operations currently record their history (per thread).
bool is_grad_enabled();

/// \brief Turns recording on or off for this thread; prefer NoGradGuard.
void set_grad_enabled(bool enabled);

/// \brief How many recorded operations are alive right now, in all threads.
///
/// A graph lives as long as some tensor made in it does, and is freed with the last one: in a
/// training loop this number returns to the same value after every step. Meant for tests and
/// for readers who want to watch a graph come and go.
long live_graph_nodes();

/// \brief Turns gradient recording off for its lifetime and restores the previous state.
///
/// \code
/// { NoGradGuard no_grad; Tensor y = model(x); }   // y has no history
/// \endcode
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

/// \brief Turns recording on for its lifetime and restores the previous state, as torch's
/// `with torch.enable_grad():` (inside a NoGradGuard, say).
class EnableGradGuard {
 public:
  EnableGradGuard();
  ~EnableGradGuard();
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace litgrad
